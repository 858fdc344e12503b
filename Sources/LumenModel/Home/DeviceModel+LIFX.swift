/// What a light of a model is on the LIFX LAN (LIFX's public products list): the product it reports and the
/// colour temperatures that product takes. Here, not in the LIFX front, because the home refuses a colour
/// temperature the product does not take, whichever way in sends it.
extension DeviceModel {
    /// The LIFX product ID of a light of `kind` named `product`: the LIFX product its name gives, where known,
    /// else a generic bulb of its kind.
    ///
    /// A colour light named a Beam is the LIFX Beam, one named a LIFX Z or a strip the LIFX Z, both with zones;
    /// one named a Tile the LIFX Tile, a matrix; one named a Candle the LIFX Candle Colour, a matrix of one tile;
    /// one named a Ceiling the LIFX Ceiling, a matrix of one 8×8 tile, or, named a Ceiling 13x26 (or 16x8), the LIFX
    /// Ceiling 13x26, a matrix of one tile 16 wide and 8 high; one named a Night Vision (or LIFX+) is one,
    /// with infrared; one named a Clean the LIFX Clean, with HEV. A white to warm light named a Candle is the LIFX
    /// Candle White to Warm, a bulb of one zone (no matrix); any other white Candle, and a white light named a
    /// Ceiling (LIFX making none white), a white bulb of its kind. An on/off light is a white bulb, not a LIFX
    /// Switch (a relay, which clients drive with relay messages).
    static func lifxProductID(kind: LightKind, product: String) -> UInt32 {
        // Names compared as bytes, ASCII letters lower-cased.
        let name = product.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
        func has(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { word in
                name.count >= word.count
                    && (0...(name.count - word.count)).contains { name[$0..<$0 + word.count].elementsEqual(word) }
            }
        }
        if kind.supports(.color) {
            if has("beam") { return 38 }  // LIFX Beam
            if has("tile") { return 55 }  // LIFX Tile
            // The US Candle Colour: photons, aiolifx and lifx-async all know it as a matrix without a chain (photons
            // knows none of the later Candles, 185 on).
            if has("candle") { return 137 }  // LIFX Candle Colour
            // The US Ceilings: the 13x26, 16 pixels by 8, when the name gives that size, else the 8×8. Home Assistant
            // and aiolifx know both as Ceilings (the sky among their effects), lifx-async as Ceilings with the
            // uplight at the last pixel; photons knows neither.
            if has("ceiling") {
                return has("13x26") || has("16x8") ? 201 : 176  // LIFX Ceiling 13x26, LIFX Ceiling
            }
            if has("lifx z") || has("strip") { return 32 }  // LIFX Z
            if has("clean") { return 90 }  // LIFX Clean
            if has("night vision") || has("lifx+") {
                return has("br30") ? 110 : 109  // LIFX BR30 Night Vision, LIFX A19 Night Vision
            }
        }
        // The US Candle White to Warm: photons, aiolifx and lifx-async all know it, with 2,200–6,500 K.
        if kind == .ambiance, has("candle") { return 81 }  // LIFX Candle White to Warm
        if has("mini") {
            if kind.supports(.color) { return 49 }  // LIFX Mini Color
            return kind.supports(.colorTemperature) ? 50 : 51  // LIFX Mini White to Warm, Mini White
        }
        switch kind {
        case .color: return 27  // LIFX A19
        case .ambiance: return 50  // LIFX Mini White to Warm
        case .dimmable, .onoff: return 51  // LIFX Mini White
        }
    }

    /// The kelvin range of its LIFX product (``lifxProductID``) at firmware 3.90, which every simulated bulb runs.
    ///
    /// LIFX's products list widens some ranges with firmware: the A19, LIFX Z and Beam reach 1,500 K from 2.80,
    /// the Mini White to Warm from 3.70; the Candle Colour has 1,500–9,000 K from its first, and either Ceiling until
    /// 4.148 (1,000–10,000 K from then); the Tile stays at 2,500–9,000 K, the Candle White to Warm at
    /// 2,200–6,500 K, and the Mini White has its one white, 2,700 K. lifx-async, photons and aiolifx (so Home
    /// Assistant) read these ranges, and lifx-async refuses a colour outside its bulb's.
    package var lifxKelvinRange: ClosedRange<Int> {
        switch lifxProductID {
        case 51: 2_700...2_700
        case 55: 2_500...9_000
        case 81: 2_200...6_500
        default: 1_500...9_000
        }
    }
}
