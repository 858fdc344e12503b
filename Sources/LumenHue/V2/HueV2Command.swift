import LumenProtocol
import LumenSimulation

/// A v2 light or grouped light body (`{"on": {"on": true}, "dimming": {"brightness": 40}, …}`) read as the v1
/// command it stands for, so that both APIs check and send a command the same way; with the exact brightness
/// and transition v2 gives, which v1's steps would round.
struct HueV2Command: Sendable {
    /// The command in v1's words (`{"on": true, "bri": 101}`).
    var v1Body: JSONObject = [:]
    /// The brightness given, in per cent, exact.
    var brightness: Double?
    /// The transition given (`dynamics.duration`), in milliseconds, exact.
    var transitionMs: Double?
    /// The name given (`metadata.name`), 1 to 32 characters.
    var name: String?
    /// The speed of the light's dynamics given (`dynamics.speed`, 0–1), which the bridge keeps and reports.
    var speed: Double?

    /// Whether a signal that needs colour was asked for (`signaling` `on_off_color`).
    var isColorSignal = false
    /// The timed effect to start (`timed_effects` `sunrise` or `sunset`, with its `duration`).
    var timedEffect: TimedEffect?
    /// Whether the light's timed effect is to stop (`timed_effects` `no_effect`, or `effects` given: Home
    /// Assistant stops a sunrise with `effects` `no_effect`).
    var stopsTimedEffect = false

    /// Reads `body`, whole, before anything is done with it.
    /// - Throws: ``HueV2Error`` 400 for a feature Lumen does not model or a value out of its range.
    init(_ body: JSONObject) throws(HueV2Error) {
        for (key, value) in body.members {
            switch key {
            case "type", "id", "id_v1", "owner":
                continue
            case "on":
                guard let on = value["on"]?.boolValue else { throw HueV2Error.invalidValue(value, for: key) }
                v1Body["on"] = .bool(on)
            case "dimming":
                guard let level = Self.brightness(value) else { throw HueV2Error.invalidValue(value, for: key) }
                brightness = level
                v1Body["bri"] = .int(HueValues.bri(brightness: level))
            case "dimming_delta":
                guard let steps = try Self.delta(value, "brightness_delta", in: 0...100, key) else { continue }
                v1Body["bri_inc"] = .int(Int((steps * 254 / 100).rounded()))
            case "color_temperature":
                guard let mirek = value["mirek"]?.intValue, CIEColor.miredRange.contains(mirek) else {
                    throw HueV2Error.invalidValue(value, for: key)
                }
                v1Body["ct"] = .int(mirek)
            case "color_temperature_delta":
                guard let steps = try Self.delta(value, "mirek_delta", in: 0...347, key) else { continue }
                v1Body["ct_inc"] = .int(Int(steps))
            case "color":
                guard let x = value["xy"]?["x"]?.doubleValue, let y = value["xy"]?["y"]?.doubleValue,
                    (0...1).contains(x), (0...1).contains(y)
                else { throw HueV2Error.invalidValue(value, for: key) }
                // Brought into the lights' gamut by the command, as v1's is.
                v1Body["xy"] = [.double(x), .double(y)]
            case "dynamics":
                guard let fields = value.objectValue, fields.keys.allSatisfy(["duration", "speed"].contains) else {
                    throw HueV2Error.invalidValue(value, for: key)
                }
                if let duration = fields["duration"] {
                    guard let ms = Self.durationMs(duration) else { throw HueV2Error.invalidValue(value, for: key) }
                    transitionMs = Double(ms)
                    v1Body["transitiontime"] = .int(Self.transitionTime(ms: ms))
                }
                if let given = fields["speed"] {
                    guard let level = Self.speed(given) else { throw HueV2Error.invalidValue(value, for: key) }
                    speed = level
                }
            case "alert":
                guard value["action"]?.stringValue == "breathe" else { throw HueV2Error.invalidValue(value, for: key) }
                v1Body["alert"] = "select"
            case "identify":
                guard value["action"]?.stringValue == "identify" else { throw HueV2Error.invalidValue(value, for: key) }
                v1Body["alert"] = "select"
            case "signaling":
                // Lumen's long breathing stands for the bridge's signals, which flash the light for a while.
                switch value["signal"]?.stringValue {
                case "no_signal":
                    v1Body["alert"] = "none"
                case "on_off", "on_off_color":
                    guard let ms = value["duration"]?.intValue, (0...65_534_000).contains(ms) else {
                        throw HueV2Error.invalidValue(value, for: key)
                    }
                    if value["signal"]?.stringValue == "on_off_color" { isColorSignal = true }
                    v1Body["alert"] = "lselect"
                default:
                    throw HueV2Error.invalidValue(value, for: key)
                }
            case "timed_effects":
                try readTimedEffect(value)
            case "effects":
                stopsTimedEffect = true
                switch value["effect"]?.stringValue {
                case "prism": v1Body["effect"] = "colorloop"
                case "no_effect": v1Body["effect"] = "none"
                default: throw HueV2Error.invalidValue(value, for: key)
                }
            case "metadata":
                guard let name = Self.name(value) else { throw HueV2Error.invalidValue(value, for: key) }
                self.name = name
            default:
                throw HueV2Error.badRequest("invalid property, \(key), for this resource")
            }
        }
    }

    /// Reads `timed_effects`: `{"effect": "sunrise" or "sunset", "duration": ms}` to start one, `{"effect":
    /// "no_effect"}` to stop the one running; a duration is required to start one, and is 0 to
    /// ``TimedEffect/longestMs``.
    /// - Throws: ``HueV2Error`` 400 for another field, another effect, or a duration missing or out of range.
    private mutating func readTimedEffect(_ value: JSONValue) throws(HueV2Error) {
        let key = "timed_effects"
        guard let fields = value.objectValue, fields.keys.allSatisfy(["effect", "duration"].contains),
            let name = fields["effect"]?.stringValue
        else { throw HueV2Error.invalidValue(value, for: key) }
        var durationMs: Double?
        if let given = fields["duration"] {
            guard let ms = given.intValue, (0...Int(TimedEffect.longestMs)).contains(ms) else {
                throw HueV2Error.invalidValue(given, for: "\(key).duration")
            }
            durationMs = Double(ms)
        }
        if name == "no_effect" {
            stopsTimedEffect = true
            return
        }
        guard let kind = TimedEffect.Kind(rawValue: name) else {
            throw HueV2Error.invalidValue(.string(name), for: "\(key).effect")
        }
        guard let durationMs else { throw HueV2Error.badRequest("missing property, \(key).duration") }
        timedEffect = TimedEffect(kind, durationMs: durationMs)
    }

    /// The longest transition v2 takes, in milliseconds (`dynamics.duration`, a scene's `recall.duration`): the
    /// API's 100 minutes; a longer one is refused, not cut short.
    static let durationLimitMs = 6_000_000

    /// The transition `value` gives in milliseconds, `nil` unless a whole number from 0 to ``durationLimitMs``.
    static func durationMs(_ value: JSONValue) -> Int? {
        value.intValue.flatMap { (0...durationLimitMs).contains($0) ? $0 : nil }
    }

    /// v1's `transitiontime`, in tenths of a second, for a transition of `ms` milliseconds: the nearest tenth.
    static func transitionTime(ms: Int) -> Int { (ms + 50) / 100 }

    /// The brightness `dimming` (`{"brightness": 40}`) gives, `nil` unless 0–100 %; below 1 % it is 1 %, the dimmest.
    static func brightness(_ dimming: JSONValue) -> Double? {
        dimming["brightness"]?.doubleValue.flatMap { (0...100).contains($0) ? max(1, $0) : nil }
    }

    /// The name in `metadata` (`{"name": …}`), `nil` unless 1 to 32 characters, as a bridge takes names.
    static func name(_ metadata: JSONValue) -> String? {
        metadata["name"]?.stringValue.flatMap { HueValues.isName($0) ? $0 : nil }
    }

    /// The speed of dynamics `value` gives, `nil` unless a number from 0 to 1.
    static func speed(_ value: JSONValue) -> Double? {
        value.doubleValue.flatMap { (0...1).contains($0) ? $0 : nil }
    }

    /// The signed steps of a `*_delta` feature: `nil` for `stop`, which Lumen has nothing to stop for.
    private static func delta(
        _ value: JSONValue, _ field: String, in range: ClosedRange<Double>, _ key: String
    ) throws(HueV2Error) -> Double? {
        let action = value["action"]?.stringValue
        if action == "stop" { return nil }
        guard action == "up" || action == "down", let steps = value[field]?.doubleValue, range.contains(steps)
        else { throw HueV2Error.invalidValue(value, for: key) }
        return action == "up" ? steps : -steps
    }

    /// The v1 command, with v2's exact brightness and transition in place of v1's steps.
    func exact(_ command: HueCommand) -> HueCommand {
        var command = command
        if let brightness, command.change.brightness != nil { command.change.brightness = brightness }
        if let transitionMs { command.transitionMs = transitionMs }
        return command
    }
}
