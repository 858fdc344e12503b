extension String {
    /// `value` in hexadecimal, with zeros on the left to make at least `digits` digits: `String(hex: 10,
    /// digits: 2)` is `"0a"`.
    public init(hex value: some UnsignedInteger, digits: Int, uppercase: Bool = false) {
        let text = String(value, radix: 16, uppercase: uppercase)
        self = text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
