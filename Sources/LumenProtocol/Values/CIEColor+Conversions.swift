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

    /// Linear RGB to XYZ: the wide-gamut D65 matrix Hue's own conversion uses, rows X, Y, Z.
    static let toXYZ: [[Double]] = [
        [0.664511, 0.154324, 0.162028], [0.283881, 0.668433, 0.047685], [0.000088, 0.072310, 0.986039],
    ]

    /// XYZ to linear RGB: the inverse of ``toXYZ``, worked out exactly (not the rounded inverse Hue's
    /// documentation prints), so that a colour taken to xy and back is the colour it was.
    static let fromXYZ: [[Double]] = {
        let m = toXYZ
        let cofactors: [[Double]] = (0..<3).map { row in
            (0..<3).map { column in
                let (r1, r2) = ((row + 1) % 3, (row + 2) % 3)
                let (c1, c2) = ((column + 1) % 3, (column + 2) % 3)
                return m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
            }
        }
        let determinant = (0..<3).reduce(0) { $0 + m[0][$1] * cofactors[0][$1] }
        // The inverse is the transposed cofactors over the determinant.
        return (0..<3).map { row in (0..<3).map { column in cofactors[column][row] / determinant } }
    }()

    /// The chromaticity of linear RGB (each channel 0–1); `nil` for black, which has none.
    static func chromaticity(linear rgb: [Double]) -> CIEColor? {
        let xyz = toXYZ.map { row in zip(row, rgb).reduce(0) { $0 + $1.0 * $1.1 } }
        let sum = xyz[0] + xyz[1] + xyz[2]
        guard sum > 0 else { return nil }
        return CIEColor(x: xyz[0] / sum, y: xyz[1] / sum)
    }

    /// sRGB's transfer function undone: a channel (0–1) as light.
    static func linear(_ value: Double) -> Double {
        value > 0.04045 ? pow((value + 0.055) / 1.055, 2.4) : value / 12.92
    }

    /// sRGB's transfer function: light (0–1) as a channel.
    static func encoded(_ value: Double) -> Double {
        value <= 0.0031308 ? 12.92 * value : 1.055 * pow(value, 1 / 2.4) - 0.055
    }

    /// The colour of an sRGB value (each channel 0–255), as Hue computes it: each channel's gamma undone, the
    /// result taken to XYZ with the wide-gamut D65 matrix, projected to xy, and clipped into ``gamut``. Black,
    /// which has no chromaticity, is D65 white.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        let rgb = [red, green, blue].map { Self.linear(Double($0) / 255) }
        self = Self.chromaticity(linear: rgb)?.clippedToGamut ?? .white
    }

    /// The colour as sRGB channels, each 0–1, the brightest at 1: the inverse of ``init(red:green:blue:)``
    /// (Hue's xy to RGB), with what falls outside sRGB clamped.
    public var sRGB: (red: Double, green: Double, blue: Double) {
        guard y > 0 else { return (1, 1, 1) }
        let xyz = [x / y, 1, (1 - x - y) / y]
        let rgb = Self.fromXYZ.map { row in max(0, zip(row, xyz).reduce(0) { $0 + $1.0 * $1.1 }) }
        let high = max(rgb[0], rgb[1], rgb[2], .ulpOfOne)
        return (Self.encoded(rgb[0] / high), Self.encoded(rgb[1] / high), Self.encoded(rgb[2] / high))
    }

    /// The colour of a hue and saturation (each 0–1, hue round the wheel) at full value, through sRGB: how Hue's
    /// `hue`/`sat` and LIFX's HSBK read as xy. Worked in full precision and not clipped into the gamut, so
    /// that ``hueAndSaturation`` gives them back as they were.
    public init(hue: Double, saturation: Double) {
        let wrapped = hue - hue.rounded(.down)
        let h = wrapped * 6
        let s = min(max(saturation, 0), 1)
        let sector = min(Int(h), 5)
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
        self = Self.chromaticity(linear: [r, g, b].map(Self.linear)) ?? .white
    }

    /// The hue and saturation (each 0–1) of this colour at full value, through sRGB: the inverse of
    /// ``init(hue:saturation:)``.
    public var hueAndSaturation: (hue: Double, saturation: Double) {
        let (r, g, b) = sRGB
        let high = max(r, g, b)
        let low = min(r, g, b)
        guard high > 0, high > low else { return (0, 0) }
        let delta = high - low
        var hue: Double
        if high == r {
            hue = (g - b) / delta
        } else if high == g {
            hue = 2 + (b - r) / delta
        } else {
            hue = 4 + (r - g) / delta
        }
        hue /= 6
        if hue < 0 { hue += 1 }
        return (hue, delta / high)
    }

    /// The white of a colour temperature in mireds: its point on the Planckian locus (Kim et al.'s cubic
    /// approximation, good from 1,667 K to 25,000 K). A colour light set to a colour temperature shows this.
    public init(mireds: Int) {
        let t = 1_000_000 / Double(min(max(mireds, 40), 600))
        let (t2, t3) = (t * t, t * t * t)
        let x =
            t <= 4_000
            ? -0.266_123_9e9 / t3 - 0.234_358_9e6 / t2 + 0.877_695_6e3 / t + 0.179_910
            : -3.025_846_9e9 / t3 + 2.107_037_9e6 / t2 + 0.222_634_7e3 / t + 0.240_390
        let (x2, x3) = (x * x, x * x * x)
        let y: Double
        if t <= 2_222 {
            y = -1.106_381_4 * x3 - 1.348_110_20 * x2 + 2.185_558_32 * x - 0.202_196_83
        } else if t <= 4_000 {
            y = -0.954_947_6 * x3 - 1.374_185_93 * x2 + 2.091_370_15 * x - 0.167_488_67
        } else {
            y = 3.081_758_0 * x3 - 5.873_386_70 * x2 + 3.751_129_97 * x - 0.370_014_83
        }
        self.init(x: x, y: y)
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

    /// The colour temperatures any light takes, in mireds: 111–667, 9,000–1,500 K (LIFX bulbs' range).
    public static let widestMiredRange: ClosedRange<Int> = 111...667

    /// The colour temperatures most lights take, and the Hue API's, in mireds: 153–500, 6,500–2,000 K.
    public static let miredRange: ClosedRange<Int> = 153...500

    /// A colour temperature in kelvin as mireds (a million over it), rounded, within `range` (``miredRange``
    /// unless given).
    public static func mireds(kelvin: Double, in range: ClosedRange<Int> = miredRange) -> Int {
        guard kelvin.isFinite, kelvin > 0 else { return range.upperBound }
        return min(max(Int((1_000_000 / kelvin).rounded()), range.lowerBound), range.upperBound)
    }
}
