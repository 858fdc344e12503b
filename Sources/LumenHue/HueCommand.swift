import LumenModel
import LumenProtocol
import LumenSimulation

/// A light's `state` or a group's `action` body, read as one Lumen command: what changes, over what
/// transition, and the result list the bridge answers with once it is done.
struct HueCommand {
    /// What the command changes.
    var change = LightChange()
    /// `transitiontime` (tenths of a second) in milliseconds; 400 when not given, a bridge's default.
    var transitionMs: Double = 400
    /// The bridge's answer, one entry for each parameter in the body's order: a success for a parameter taken,
    /// an error for one refused.
    var results: [JSONValue] = []
    /// The parameters refused, in the body's order.
    var refusals: [HueError] = []
    /// Where the parameters live (`/lights/3/state`).
    let address: String
    /// The first parameter taken.
    var firstParameter: String?
    /// The parameter the body gave for each property it changes, as sent (`hue` rather than `xy`), so that an
    /// error names what the app sent.
    var sentParameters: [String: String] = [:]
    /// The relative changes (`bri_inc`, …) the body gave, for the properties it gave no value.
    var increments = Increments()
    /// `hue` or `sat` taken without the other: the other half is each light's own (``change(for:)``).
    var loneHueOrSat: (hue: Int?, sat: Int?)?
    /// The `effect` given (`colorloop`, `none`).
    var effect: String?
    /// The `alert` given (`select`, `lselect`, `none`).
    var alert: String?
    /// The first of `effect` and `alert` the body gave, as sent: what a bridge refuses for a light that is off.
    var firstEffectParameter: String?

    /// A command that changes nothing, to map a refusal of what was sent at `address` to Hue's error.
    init(address: String, firstParameter: String?) {
        self.address = address
        self.firstParameter = firstParameter
    }

    /// Reads `body` whole, for a light of `kind`: a scene's light state, or what API v2 sends as one.
    /// - Throws: the first parameter refused (``init(taking:kind:at:)``).
    init(_ body: JSONObject, kind: LightKind, at address: String) throws(HueError) {
        self.init(taking: body, kind: kind, at: address)
        if let refused = refusals.first { throw refused }
    }

    /// Reads `body` as a bridge reads a light's state, for a light of `kind` (a group's action is read for the kind
    /// that has everything): each parameter for itself, those refused answered with their error (6 for a parameter
    /// the bridge or the light does not have, 7 for a bad value) and the others taken. An app that sends back the
    /// state it read, `colormode` and `reachable` included, still sets the light.
    init(taking body: JSONObject, kind: LightKind, at address: String) {
        self.address = address
        var hueAndSat: (hue: Int?, sat: Int?) = (nil, nil)
        for (name, value) in body.members {
            do {
                try take(name, value, kind: kind, hueAndSat: &hueAndSat)
                results.append(["success": .object(["\(address)/\(name)": value])])
            } catch {
                refusals.append(error)
                results.append(error.jsonValue)
            }
        }
        // A colour given more than one way is taken as a bridge takes it: `xy`, else `ct`, else `hue` and `sat`.
        guard change.color == nil, change.colorTemperature == nil else { return }
        switch hueAndSat {
        case (let hue?, let sat?): change.color = HueValues.color(hue: hue, sat: sat)
        case (nil, nil): break
        default: loneHueOrSat = hueAndSat
        }
    }

    /// Takes the parameter `name` of a body for a light of `kind`; `hue` and `sat` are kept in `hueAndSat`, to be
    /// read together once the body is.
    /// - Throws: ``HueError`` 6 for a parameter the bridge or the light does not have, 7 for a bad value.
    private mutating func take(
        _ name: String, _ value: JSONValue, kind: LightKind, hueAndSat: inout (hue: Int?, sat: Int?)
    ) throws(HueError) {
        switch name {
        case "on":
            guard let on = value.boolValue else { throw HueError.invalidValue(value, of: name, at: address) }
            change.isOn = on
        case "bri":
            try requires(.brightness, name, kind)
            let bri = try HueValues.integer(value, in: 0...254, of: name, at: address)
            change.brightness = HueValues.brightness(bri: bri)
        case "ct":
            try requires(.colorTemperature, name, kind)
            let ct = try HueValues.integer(value, in: 0...65_535, of: name, at: address)
            change.colorTemperature = HueValues.mireds(ct: ct)
        case "xy":
            try requires(.color, name, kind)
            guard let (x, y) = HueValues.xy(value), (0...1).contains(x), (0...1).contains(y) else {
                throw HueError.invalidValue(value, of: name, at: address)
            }
            // A colour outside the lights' gamut is shown, and reported through either API, as the nearest one
            // inside, as a bridge does.
            change.color = CIEColor(x: x, y: y).clippedToGamut
        case "hue", "sat":
            try requires(.color, name, kind)
            let number = try HueValues.integer(value, in: 0...(name == "hue" ? 65_535 : 254), of: name, at: address)
            if name == "hue" { hueAndSat.hue = number } else { hueAndSat.sat = number }
        case "bri_inc", "ct_inc", "hue_inc", "sat_inc", "xy_inc":
            try readIncrement(name, value, kind: kind)
        case "transitiontime":
            transitionMs = Double(try HueValues.transitionTime(value, at: address)) * 100
        case "effect":
            try requires(.color, name, kind)
            guard let effect = value.stringValue, ["none", "colorloop"].contains(effect) else {
                throw HueError.invalidValue(value, of: name, at: address)
            }
            self.effect = effect
        case "alert":
            guard let alert = value.stringValue, ["none", "select", "lselect"].contains(alert) else {
                throw HueError.invalidValue(value, of: name, at: address)
            }
            self.alert = alert
        default:
            throw HueError.parameterNotAvailable(name, at: address)
        }
        if firstParameter == nil { firstParameter = name }
        // A bridge flashes an off light for `alert` (Home Assistant turns lights off with `alert: none`), but
        // shows no `effect` on one.
        if name == "effect", firstEffectParameter == nil { firstEffectParameter = name }
        if let property = Self.property(for: name), sentParameters[property] == nil {
            sentParameters[property] = name
        }
    }

    /// Refuses an `effect` or `alert` for a light that is off and stays off, as a bridge does whatever the light:
    /// it sends neither to a light that is off.
    /// - Throws: ``HueError`` 201, naming the parameter as sent.
    func checkEffects(forLightOn isOn: Bool) throws(HueError) {
        guard let parameter = firstEffectParameter, !isOn, change.isOn != true else { return }
        throw HueError.deviceOff(parameter, at: address)
    }

    func requires(_ property: LightProperty, _ name: String, _ kind: LightKind) throws(HueError) {
        guard kind.supports(property) else { throw HueError.parameterNotAvailable(name, at: address) }
    }

    /// The Hue error for what Lumen refused.
    func hueError(for error: any Error) -> HueError {
        guard let error = error as? LumenError else {
            return .internalError("\(error)", at: address)
        }
        // The parameter it concerns, when Lumen's error names one; else the first the body gave.
        let parameter =
            error.data["connection"]?.stringValue.map { sentParameters[$0] ?? Self.parameter(for: $0) }
            ?? firstParameter ?? "on"
        switch error.code {
        case .busy:
            return .tooManyRequests(error.message)
        case .deviceOff:
            return .deviceOff(parameter, at: address)
        case .invalidParams:
            return HueError(type: 7, address: "\(address)/\(parameter)", description: error.message)
        case .notSupported:
            return .parameterNotAvailable(parameter, at: address)
        case .noSuchEntity:
            // The light or group went (a fixture edit, a reset) while the command was on its way.
            return .notAvailable(address)
        default:
            return .internalError(error.message, at: address)
        }
    }

    /// The Lumen property a Hue parameter changes, if it changes one.
    static func property(for parameter: String) -> String? {
        switch parameter {
        case "on": "isOn"
        case "bri", "bri_inc": "brightness"
        case "ct", "ct_inc": "colorTemperature"
        case "xy", "hue", "sat", "xy_inc", "hue_inc", "sat_inc": "color"
        default: nil
        }
    }

    /// Hue's parameter for a Lumen property.
    static func parameter(for property: String) -> String {
        switch property {
        case "isOn": "on"
        case "brightness": "bri"
        case "colorTemperature": "ct"
        case "color": "xy"
        default: property
        }
    }
}
