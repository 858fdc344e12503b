import LumenProtocol

/// What a bridge says of a command it takes but that may not have effect: the light (or every light of a group)
/// is off and the command leaves it off ("soft off"), or a light cannot be reached. The command is answered
/// `207 Multi-Status`, with the resource changed in `data` and a warning in `errors` for each feature of the
/// command; clients read such an answer as done with a warning (Home Assistant logs "may not have effect" and
/// goes on).
enum HueV2Warning {
    /// The features of a light command a warning names, with the field each names.
    static let fields: [(feature: String, field: String)] = [
        ("on", ".on"), ("dimming", ".dimming.brightness"), ("dimming_delta", ".dimming_delta"),
        ("color", ".color.xy"), ("color_temperature", ".color_temperature.mirek"),
        ("color_temperature_delta", ".color_temperature_delta"), ("effects", ".effects.effect"),
    ]

    /// The warnings for `body` sent to a resource of `type` (`light`, `grouped_light`), in the body's order, in
    /// the words a bridge uses (which some clients compare whole): none when every light can be reached and one
    /// is on or is turned on.
    /// - Parameters:
    ///   - isOn: whether the light, or any light of the group, is on.
    ///   - isReachable: whether the light, or every light of the group, can be reached.
    static func warnings(
        for body: JSONObject, to type: String, isOn: Bool, isReachable: Bool
    ) -> [String] {
        let why: String
        if !isReachable {
            why = "has communication issues"
        } else if !isOn, body["on"]?["on"]?.boolValue != true {
            why = #"is "soft off""#
        } else {
            return []
        }
        return body.keys.compactMap { key in
            fields.first { $0.feature == key }.map {
                "device (\(type)) \(why), command (\($0.field)) may not have effect"
            }
        }
    }
}
