extension String {
    /// `value` in hexadecimal, with zeros on the left to make at least `digits` digits: `String(hex: 10,
    /// digits: 2)` is `"0a"`.
    public init(hex value: some UnsignedInteger, digits: Int, uppercase: Bool = false) {
        let text = String(value, radix: 16, uppercase: uppercase)
        self = text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}

extension String {
    /// 128 bits from the kernel's random source, as 32 hexadecimal digits: a session ID, a token or a nonce
    /// that no one can guess.
    public static func unguessable() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(hex: generator.next() as UInt64, digits: 16) + String(hex: generator.next() as UInt64, digits: 16)
    }
}
