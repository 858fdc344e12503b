/// What a light of a model is to a Hue bridge, where the home itself depends on it: Signify's own lights and the
/// colour temperatures a Hue White Ambiance light takes.
extension DeviceModel {
    /// Whether a light by `manufacturer` is Signify's own ("Signify", "Signify Netherlands B.V.", "Philips").
    package static func isSignify(manufacturer: String) -> Bool {
        let maker = manufacturer.lowercased()
        return maker.hasPrefix("signify") || maker.hasPrefix("philips")
    }

    /// Whether it is Signify's own.
    package var isSignify: Bool { Self.isSignify(manufacturer: manufacturer) }

    /// The colour temperatures of a Hue White Ambiance light, in mireds: 2,200–6,500 K, as a bridge lists every
    /// recorded one (v1's `ct` and v2's `mirek_schema` 153–454), where Signify's colour lights take 153–500.
    package static let hueWhiteAmbianceMiredRange = 153...454
}
