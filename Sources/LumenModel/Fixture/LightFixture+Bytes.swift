import LumenProtocol

extension LightFixture {
    /// A light read straight from the bytes of its JSON object, with no tree made, when it is written the
    /// plain way lumend writes lights: only the keys `id`, `name`, `kind`, `manufacturer`, `product`,
    /// `state` (`isOn`, `brightness`, `colorTemperature`, `color` with `x` and `y`) and `reachable`, each at
    /// most once, strings of ASCII without escapes, no `null`s.
    ///
    /// `nil` for anything else, right or wrong: the caller then reads the light the ordinary way
    /// (``init(cursor:)``), which accepts what this does with the same result and says what is wrong. A
    /// snapshot's lights are all of this shape unless they have settings of their own, so start-up reads a
    /// large home without a tree for each light.
    static func read(plainBytes bytes: UnsafeBufferPointer<UInt8>) -> LightFixture? {
        var reader = PlainReader(bytes: bytes)
        guard let light = reader.light(), reader.atEnd else { return nil }
        return light
    }
}

/// Reads the plain shape of a light (``LightFixture/read(plainBytes:)``); every method returns `nil` at the
/// first thing outside it.
private struct PlainReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool {
        mutating get {
            skipWhitespace()
            return index == bytes.count
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The members of an object, each handed to `member` with its key; `false` when the object is not
    /// plain or `member` returns `false`.
    mutating func object(_ member: (inout PlainReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A string of printable ASCII without escapes.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    mutating func bool() -> Bool? {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Moves past `word` if it comes next.
    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// A number in JSON's grammar.
    mutating func number() -> JSONNumber? {
        skipWhitespace()
        return JSONNumber.read(bytes, at: &index)
    }

    mutating func double(in range: ClosedRange<Double>) -> Double? {
        guard let value = number()?.doubleValue, value.isFinite, range.contains(value) else { return nil }
        return value
    }

    mutating func light() -> LightFixture? {
        var id: String?
        var name: String?
        var kind: LightKind?
        var manufacturer: String?
        var product: String?
        var state: PlainState?
        var reachable: Bool?
        let read = object { reader, key in
            switch key {
            case "id" where id == nil:
                id = reader.string()
                return id.map { EntityID.validate($0) == nil } ?? false
            case "name" where name == nil:
                name = reader.string()
                return name != nil
            case "kind" where kind == nil:
                kind = reader.string().flatMap(LightKind.init(rawValue:))
                return kind != nil
            case "manufacturer" where manufacturer == nil:
                manufacturer = reader.string()
                return manufacturer != nil
            case "product" where product == nil:
                product = reader.string()
                return product != nil
            case "state" where state == nil:
                state = reader.state()
                return state != nil
            case "reachable" where reachable == nil:
                reachable = reader.bool()
                return reachable != nil
            default:
                return false
            }
        }
        guard read, let id, let name, let kind else { return nil }
        let model = DeviceModel(
            kind: kind, manufacturer: manufacturer ?? "Lumen", product: product ?? "Simulated \(kind.rawValue) light")
        var light = LightFixture(id: LightID(id), name: name, model: model)
        if let state {
            guard let lightState = state.lightState(for: kind) else { return nil }
            light.state = lightState
        }
        light.isReachable = reachable ?? true
        return light
    }

    /// A state's members as read, checked against the light's kind once that is known.
    struct PlainState {
        var isOn: Bool?
        var brightness: Double?
        var colorTemperature: Int?
        var color: CIEColor?

        func lightState(for kind: LightKind) -> LightState? {
            var state = LightState.factoryDefault
            if let isOn { state.isOn = isOn }
            if brightness != nil, !LightProperty.brightness.isSupported(by: kind) { return nil }
            if colorTemperature != nil, !LightProperty.colorTemperature.isSupported(by: kind) { return nil }
            if color != nil, !LightProperty.color.isSupported(by: kind) { return nil }
            if let brightness { state.brightness = brightness }
            if let colorTemperature { state.colorTemperature = colorTemperature }
            // A colour light given only a colour temperature shows that white.
            state.color = color ?? CIEColor(mireds: state.colorTemperature)
            return state
        }
    }

    mutating func state() -> PlainState? {
        var state = PlainState()
        let read = object { reader, key in
            switch key {
            case "isOn" where state.isOn == nil:
                state.isOn = reader.bool()
                return state.isOn != nil
            case "brightness" where state.brightness == nil:
                state.brightness = reader.double(in: LightState.brightnessRange)
                return state.brightness != nil
            case "colorTemperature" where state.colorTemperature == nil:
                guard let int = reader.number()?.intValue, LightState.colorTemperatureRange.contains(int) else {
                    return false
                }
                state.colorTemperature = int
                return true
            case "color" where state.color == nil:
                state.color = reader.color()
                return state.color != nil
            default:
                return false
            }
        }
        return read ? state : nil
    }

    mutating func color() -> CIEColor? {
        var x: Double?
        var y: Double?
        let read = object { reader, key in
            switch key {
            case "x" where x == nil:
                x = reader.double(in: LightState.colorCoordinateRange)
                return x != nil
            case "y" where y == nil:
                y = reader.double(in: LightState.colorCoordinateRange)
                return y != nil
            default:
                return false
            }
        }
        guard read, let x, let y else { return nil }
        return CIEColor(x: x, y: y)
    }
}
