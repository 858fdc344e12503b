#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Colours as people write them — a colour temperature in kelvin, an sRGB colour — turned into what lights
/// take: mireds and CIE 1931 xy.
extension CIEColor {
    /// The corners of the colour lights' gamut (Hue's gamut C: red, green, blue); a colour outside it is shown
    /// as the nearest colour inside, as a Hue bridge does.
    public static let gamut = (
        red: CIEColor(x: 0.6915, y: 0.3083), green: CIEColor(x: 0.17, y: 0.7), blue: CIEColor(x: 0.1532, y: 0.0475)
    )

    /// The colour of an sRGB value (each channel 0–255), as Hue computes it: each channel's gamma undone, the
    /// result taken to XYZ with the wide-gamut D65 matrix, projected to xy, and clipped into ``gamut``. Black,
    /// which has no chromaticity, is D65 white.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value > 0.04045 ? pow((value + 0.055) / 1.055, 2.4) : value / 12.92
        }
        let (r, g, b) = (linear(red), linear(green), linear(blue))
        let x = r * 0.664511 + g * 0.154324 + b * 0.162028
        let y = r * 0.283881 + g * 0.668433 + b * 0.047685
        let z = r * 0.000088 + g * 0.072310 + b * 0.986039
        guard x + y + z > 0 else {
            self = .white
            return
        }
        self = CIEColor(x: x / (x + y + z), y: y / (x + y + z)).clippedToGamut
    }

    /// The colour as sRGB channels, each 0–1, the brightest at 1: the inverse of ``init(red:green:blue:)``
    /// (Hue's xy to RGB), with what falls outside sRGB clamped.
    public var sRGB: (red: Double, green: Double, blue: Double) {
        guard y > 0 else { return (1, 1, 1) }
        let (bigX, bigZ) = (x / y, (1 - x - y) / y)
        var r = bigX * 1.656492 - 0.354851 - bigZ * 0.255038
        var g = -bigX * 0.707196 + 1.655397 + bigZ * 0.036152
        var b = bigX * 0.051713 - 0.121364 + bigZ * 1.011530
        (r, g, b) = (max(0, r), max(0, g), max(0, b))
        let high = max(r, g, b, .ulpOfOne)
        func gamma(_ value: Double) -> Double {
            value <= 0.0031308 ? 12.92 * value : 1.055 * pow(value, 1 / 2.4) - 0.055
        }
        return (gamma(r / high), gamma(g / high), gamma(b / high))
    }

    /// The colour of a hue and saturation (each 0–1, hue round the wheel) at full value, through sRGB: how Hue's
    /// `hue`/`sat` and LIFX's HSBK read as xy.
    public init(hue: Double, saturation: Double) {
        let h = hue.truncatingRemainder(dividingBy: 1) * 6
        let s = min(max(saturation, 0), 1)
        let sector = Int(h)
        let f = h - Double(sector)
        let (p, q, t) = (1 - s, 1 - s * f, 1 - s * (1 - f))
        let (r, g, b): (Double, Double, Double) =
            switch sector {
            case 0: (1, t, p)
            case 1: (q, 1, p)
            case 2: (p, 1, t)
            case 3: (p, q, 1)
            case 4: (t, p, 1)
            default: (1, p, q)
            }
        self.init(red: UInt8((r * 255).rounded()), green: UInt8((g * 255).rounded()), blue: UInt8((b * 255).rounded()))
    }

    /// The colour of `#rrggbb` (the `#` optional, upper or lower case), or `nil` when the text is not one.
    public init?(hex text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// This colour, or the nearest point of ``gamut`` when it lies outside.
    public var clippedToGamut: CIEColor {
        let (r, g, b) = Self.gamut
        func cross(_ o: CIEColor, _ a: CIEColor, _ p: CIEColor) -> Double {
            (a.x - o.x) * (p.y - o.y) - (a.y - o.y) * (p.x - o.x)
        }
        // Inside when on the same side of each edge as the triangle (its corners go anticlockwise).
        if cross(r, g, self) >= 0, cross(g, b, self) >= 0, cross(b, r, self) >= 0 { return self }
        func nearest(on a: CIEColor, _ b: CIEColor) -> CIEColor {
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            let t = min(max(((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy), 0), 1)
            return CIEColor(x: a.x + t * dx, y: a.y + t * dy)
        }
        func distance(_ p: CIEColor) -> Double { (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) }
        return [nearest(on: r, g), nearest(on: g, b), nearest(on: b, r)].min { distance($0) < distance($1) }!
    }

    /// The colour temperature nearest this colour, in mireds (McCamy's approximation of the correlated colour
    /// temperature), within what lights take (153–500).
    public var mireds: Int {
        let n = (x - 0.3320) / (0.1858 - y)
        let kelvin = 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33
        return Self.mireds(kelvin: kelvin)
    }

    /// The colour temperatures lights take, in mireds: 153–500, 6,500–2,000 K.
    public static let miredRange: ClosedRange<Int> = 153...500

    /// A colour temperature in kelvin as mireds (a million over it), rounded, within ``miredRange``.
    public static func mireds(kelvin: Double) -> Int {
        guard kelvin.isFinite, kelvin > 0 else { return miredRange.upperBound }
        return min(max(Int((1_000_000 / kelvin).rounded()), miredRange.lowerBound), miredRange.upperBound)
    }
}
