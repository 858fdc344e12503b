import LumenModel
import LumenProtocol

/// How Lumen's values read in the Hue API v1, and back (docs/hue.md lists each with its source).
enum HueValues {
    /// The `transitiontime` values taken, in tenths of a second: a bridge's whole range, up to 65535 (some
    /// 1.8 hours).
    static let transitionTenths = 0...65_535

    /// The whole number in `range` that `value` gives for the parameter `name` at `address`.
    /// - Throws: ``HueError`` 7 for a value that is not a whole number in `range`.
    static func integer(
        _ value: JSONValue, in range: ClosedRange<Int>, of name: String, at address: String
    ) throws(HueError) -> Int {
        guard let number = value.intValue, range.contains(number) else {
            throw HueError.invalidValue(value, of: name, at: address)
        }
        return number
    }

    /// The `transitiontime` `value` gives, in tenths of a second.
    /// - Throws: ``HueError`` 7 for a value that is not a whole number in ``transitionTenths``.
    static func transitionTime(_ value: JSONValue, at address: String) throws(HueError) -> Int {
        try integer(value, in: transitionTenths, of: "transitiontime", at: address)
    }

    /// Whether `text` may name a group, a scene or a geofence client: 1 to 32 characters, as on a bridge.
    static func isName(_ text: String) -> Bool { (1...32).contains(text.count) }

    /// A group's or scene's name (``isName(_:)``).
    /// - Throws: ``HueError`` 7 for any other value.
    static func name(_ value: JSONValue, at address: String) throws(HueError) -> String {
        guard let name = value.stringValue, isName(name) else {
            throw HueError.invalidValue(value, of: "name", at: address)
        }
        return name
    }

    /// The two numbers of an `xy` pair (`[0.3, 0.3]`), `nil` unless `value` is an array of two numbers.
    static func xy(_ value: JSONValue) -> (x: Double, y: Double)? {
        guard let pair = value.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue
        else { return nil }
        return (x, y)
    }

    /// Lumen's brightness (1–100 %) from Hue's `bri` (1–254, 1 being the dimmest level): a straight line
    /// through both ends, to a tenth.
    static func brightness(bri: Int) -> Double {
        let clamped = Double(min(max(bri, 1), 254))
        return ((1 + (clamped - 1) * 99 / 253) * 10).rounded() / 10
    }

    /// Hue's `bri` for Lumen's brightness.
    static func bri(brightness: Double) -> Int { Int((1 + (brightness - 1) * 253 / 99).rounded()) }

    /// Lumen's colour temperature for Hue's `ct`, both in mireds, within the API's 153–500; each light's own
    /// range is applied to the change made for it (``HueCommand/change(for:)``).
    static func mireds(ct: Int) -> Int { CIEColor.miredRange.clamping(ct) }

    /// CIE xy for Hue's `hue` (0–65535 round the colour wheel, both ends red) and `sat` (0–254), at full value,
    /// through sRGB as Hue's own conversion goes.
    static func color(hue: Int, sat: Int) -> CIEColor {
        CIEColor(hue: Double(min(max(hue, 0), 65_535)) / 65_535, saturation: Double(min(max(sat, 0), 254)) / 254)
    }

    /// Hue's `hue` and `sat` for a colour: the inverse of ``color(hue:sat:)``.
    static func hueAndSat(of color: CIEColor) -> (hue: Int, sat: Int) {
        let (hue, saturation) = color.hueAndSaturation
        return (Int((hue * 65_535).rounded()), Int((saturation * 254).rounded()))
    }

    /// The colour of a light in `state` as the bridge reports it for a light of `kind`: `ct`; `hue`, `sat` and
    /// `xy` for a colour light; and `colormode`, what was set last (a colour temperature leaves a colour light
    /// showing that white).
    static func colorFields(of state: LightState, kind: LightKind) -> JSONObject {
        var fields = JSONObject()
        if kind.supports(.colorTemperature) { fields["ct"] = .int(state.colorTemperature) }
        if kind.supports(.color) {
            let (hue, sat) = hueAndSat(of: state.color)
            fields["hue"] = .int(hue)
            fields["sat"] = .int(sat)
            fields["xy"] = .array([.double(state.color.x), .double(state.color.y)])
        }
        if kind.supports(.colorTemperature) {
            fields["colormode"] = kind.supports(.color) && !state.showsColorTemperature ? "xy" : "ct"
        }
        return fields
    }

    /// The Hue light type of a kind of light.
    static func type(of kind: LightKind) -> String {
        switch kind {
        case .onoff: "On/Off plug-in unit"
        case .dimmable: "Dimmable light"
        case .ambiance: "Color temperature light"
        case .color: "Extended color light"
        }
    }

    /// The model ID a light reports to the bridge: for a Signify light the commonest Signify model of its kind;
    /// for another maker's, its product, as such a light names itself (not a Hue model ID, which an app would
    /// take for one of Signify's).
    static func modelID(of model: DeviceModel) -> String {
        guard model.isSignify else { return model.product }
        return switch model.kind {
        case .onoff: "LOM001"
        case .dimmable: "LWB010"
        case .ambiance: "LTW010"
        case .color: "LCT015"
        }
    }

    /// The maker a light reports to the bridge: "Signify Netherlands B.V." for Signify's own, however the home
    /// spells it ("Signify", "Philips"), as a bridge names each of Signify's lights through either API; another
    /// maker's name as the home gives it.
    static func manufacturer(of model: DeviceModel) -> String {
        model.isSignify ? "Signify Netherlands B.V." : model.manufacturer
    }

    /// Two hex digits of `byte`.
    static func hex(_ byte: UInt64, uppercase: Bool = false) -> String {
        String(hex: byte & 0xFF, digits: 2, uppercase: uppercase)
    }

    /// A light's Zigbee-style unique ID, in Signify's address range: `00:17:88:01:xx:xx:xx:xx-0b`.
    static func uniqueID(of light: LightID) -> String { zigbeeAddress(hashing: light.rawValue) + "-0b" }

    /// A Zigbee address (EUI-64) in Signify's range, `00:17:88:01:` and four bytes of `key`'s FNV-1a digest.
    static func zigbeeAddress(hashing key: String) -> String {
        let hash = FNV1a.hash(key.utf8)
        return "00:17:88:01:" + (0..<4).map { hex(hash >> (8 * UInt64(3 - $0))) }.joined(separator: ":")
    }

    /// The bridge's ID (`001788FFFE` and three bytes of the home's digest) and its MAC address.
    static func bridgeIdentity(homeID: String) -> (bridgeID: String, mac: String) {
        let hash = FNV1a.hash(homeID.utf8)
        let bytes = (0..<3).map { hash >> (8 * UInt64(2 - $0)) }
        return (
            "001788FFFE" + bytes.map { hex($0, uppercase: true) }.joined(),
            "00:17:88:" + bytes.map { hex($0) }.joined(separator: ":")
        )
    }
}

extension JSONObject {
    /// An object of the members `member` makes of each key and value of `dictionary`, in the order of the keys:
    /// a dictionary has no order of its own, and the bridge writes the same one the same way each time.
    init<Key: Comparable, Value>(
        sortedByKey dictionary: [Key: Value], _ member: (Key, Value) -> (key: String, value: JSONValue)
    ) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { member($0.key, $0.value) })
    }
}
