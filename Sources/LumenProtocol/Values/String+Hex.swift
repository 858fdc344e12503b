extension String {
    /// `value` in hexadecimal, with zeros on the left to make at least `digits` digits: `String(hex: 10,
    /// digits: 2)` is `"0a"`.
    public init(hex value: some UnsignedInteger, digits: Int, uppercase: Bool = false) {
        let text = String(value, radix: 16, uppercase: uppercase)
        self = text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}

extension String {
    /// Hexadecimal digits from the kernel's random source (4 bits each; 32 digits, 128 bits, unless told
    /// otherwise): a session ID, a token, a nonce or a Hue user's name that no one can guess.
    public static func unguessable(digits: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        while text.count < digits { text += String(hex: generator.next() as UInt64, digits: 16) }
        return String(text.prefix(digits))
    }
}
