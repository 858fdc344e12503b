extension JSONValue {
    /// The value as compact JSON text, keys in their order, with no trailing newline.
    public func serialized() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value as compact JSON bytes, appended to `bytes`.
    public func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): bytes.append(contentsOf: number.text.utf8)
        case .string(let string): Self.writeString(string, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The value as indented JSON text for files people read (fixtures, snapshots), ending in a newline.
    public func prettySerialized() -> String {
        var bytes: [UInt8] = []
        writePretty(to: &bytes, indent: 0)
        bytes.append(UInt8(ascii: "\n"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private func writePretty(to bytes: inout [UInt8], indent: Int) {
        func newline(_ level: Int) {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
        }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            // Arrays of scalars stay on one line; they are short lists of IDs or numbers.
            if elements.allSatisfy({ $0.arrayValue == nil && $0.objectValue == nil }) {
                write(to: &bytes)
                return
            }
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                element.writePretty(to: &bytes, indent: indent + 1)
            }
            newline(indent)
            bytes.append(UInt8(ascii: "]"))
        case .object(let object) where object.count > 0:
            bytes.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                Self.writeString(member.key, to: &bytes)
                bytes.append(contentsOf: ": ".utf8)
                member.value.writePretty(to: &bytes, indent: indent + 1)
            }
            newline(indent)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(to: &bytes)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Keys, names and IDs need no escape: copied whole, not a byte at a time.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
