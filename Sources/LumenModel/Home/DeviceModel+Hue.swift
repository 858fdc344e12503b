/// What a light of a model is to a Hue bridge, where the home itself depends on it: Signify's own lights and the
/// colour temperatures a Hue White Ambiance light takes.
extension DeviceModel {
    /// Whether it is Signify's own ("Signify", "Signify Netherlands B.V.", "Philips"): the lights a bridge reports
    /// as certified and names as Signify's, another maker's not.
    package var isSignify: Bool {
        let maker = manufacturer.lowercased()
        return maker.hasPrefix("signify") || maker.hasPrefix("philips")
    }

    /// The colour temperatures of a Hue White Ambiance light, in mireds: 153–454 (about 2,200–6,500 K; 454 mireds is
    /// 2,203 K), as a bridge lists every recorded one (v1's `ct`, v2's `mirek_schema`), where Signify's colour
    /// lights take 153–500.
    package static let hueWhiteAmbianceMiredRange = 153...454
}
