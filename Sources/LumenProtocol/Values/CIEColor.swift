/// A colour as a point in the CIE 1931 xy chromaticity diagram, as Hue and Matter lights take it.
public struct CIEColor: Sendable, Hashable {
    /// x, 0–1.
    public var x: Double
    /// y, 0–1.
    public var y: Double

    /// A chromaticity point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// D65 white, the colour a colour light shows by default.
    public static let white = CIEColor(x: 0.3127, y: 0.3290)
}

extension CIEColor {
    /// `{"x": …, "y": …}`, as the wire protocol and fixtures write a colour.
    public var jsonValue: JSONValue { .object(["x": .double(x), "y": .double(y)]) }

    /// The colour `{"x": …, "y": …}` describes, or `nil` when it is not one.
    public init?(json: JSONValue) {
        guard let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue else { return nil }
        self.init(x: x, y: y)
    }
}
