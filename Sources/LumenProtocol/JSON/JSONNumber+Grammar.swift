extension JSONNumber {
    /// What is wrong with text where a number should be, and where in it.
    struct GrammarProblem: Error {
        /// A zero followed by more digits, rather than no number at all.
        let isLeadingZero: Bool
        /// The offset of the byte at fault.
        let offset: Int
    }

    /// Where the number in JSON's grammar that starts at `start` in `bytes` ends: the one scan of that grammar,
    /// for the parser and for readers of their own.
    static func end(ofNumberIn bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(GrammarProblem) -> Int {
        var index = start
        func isDigit(_ offset: Int) -> Bool {
            offset < bytes.count && bytes[offset] >= UInt8(ascii: "0") && bytes[offset] <= UInt8(ascii: "9")
        }
        func digits() throws(GrammarProblem) {
            guard isDigit(index) else { throw GrammarProblem(isLeadingZero: false, offset: index) }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { throw GrammarProblem(isLeadingZero: false, offset: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw GrammarProblem(isLeadingZero: true, offset: index) }
        } else {
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
        return index
    }

    /// The number in JSON's grammar that starts at `index` in `bytes`, with `index` moved past it; `nil`, and
    /// `index` left where it was, when none starts there.
    public static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> JSONNumber? {
        guard let end = try? end(ofNumberIn: bytes, from: index) else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        index = end
        return JSONNumber(validatedText: text)
    }
}
