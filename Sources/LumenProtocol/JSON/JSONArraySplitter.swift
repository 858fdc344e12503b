/// Finds where each element of a top-level JSON array lies in a line, without parsing the elements: strings
/// (with their escapes) are skipped and brackets and braces counted, nothing more.
///
/// A large batch can then be parsed one element at a time, with turns for others between, rather than as one
/// tree in one go. The ranges only say where elements would be: each must still be parsed, and whatever the
/// splitter does not recognise (`nil`) is left to the parser, which says what is wrong.
package enum JSONArraySplitter {
    /// The byte ranges of the array's elements, in order, when `bytes` holds one array (with optional white
    /// space around it and between its parts); `nil` when it does not have that shape.
    package static func elements(in bytes: [UInt8]) -> [Range<Int>]? {
        var index = skipSpace(bytes, from: 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        index = skipSpace(bytes, from: index + 1)
        var ranges: [Range<Int>] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            return skipSpace(bytes, from: index + 1) == bytes.count ? [] : nil
        }
        while index < bytes.count {
            guard let end = endOfValue(bytes, from: index) else { return nil }
            ranges.append(index..<end)
            index = skipSpace(bytes, from: end)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "]") {
                return skipSpace(bytes, from: index + 1) == bytes.count ? ranges : nil
            }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, from: index + 1)
        }
        return nil
    }

    /// Where the value starting at `start` ends: after its closing bracket, brace or quote, or, for a number or
    /// a literal, at the next comma, closing bracket or space. `nil` when the line ends first or a closing
    /// bracket does not match.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int? {
        var closers: [UInt8] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let end = endOfString(bytes, from: index) else { return nil }
                index = end
                if closers.isEmpty { return index }
                continue
            case UInt8(ascii: "["): closers.append(UInt8(ascii: "]"))
            case UInt8(ascii: "{"): closers.append(UInt8(ascii: "}"))
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if closers.isEmpty { return index == start ? nil : index }
                guard closers.removeLast() == byte else { return nil }
                if closers.isEmpty { return index + 1 }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                if closers.isEmpty { return index == start ? nil : index }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The index after the string whose opening quote is at `start`, honouring backslash escapes.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    private static func skipSpace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count,
            bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
                || bytes[index] == UInt8(ascii: "\r") || bytes[index] == UInt8(ascii: "\n")
        {
            index += 1
        }
        return index
    }
}
