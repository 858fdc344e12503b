import LumenProtocol
import Testing

@Suite("Colours as people write them")
struct ColorConversionTests {
    @Test func kelvinBecomesMiredsWithinWhatLightsTake() {
        #expect(CIEColor.mireds(kelvin: 2_700) == 370)
        #expect(CIEColor.mireds(kelvin: 6_500) == 154)
        #expect(CIEColor.mireds(kelvin: 1_000) == 500)
        #expect(CIEColor.mireds(kelvin: 10_000) == 153)
        #expect(CIEColor.mireds(kelvin: 0) == 500)
    }

    @Test func rgbBecomesXYAsHueComputesIt() throws {
        let white = CIEColor(red: 255, green: 255, blue: 255)
        #expect(abs(white.x - 0.3227) < 0.0005 && abs(white.y - 0.3290) < 0.0005, "\(white)")
        #expect(CIEColor(red: 0, green: 0, blue: 0) == .white)
        let orange = try #require(CIEColor(hex: "#FF8800"))
        #expect(CIEColor(hex: "ff8800") == orange)
        // (0.6010, 0.3837) unclipped, just beyond the gamut's red–green edge: onto it.
        #expect(abs(orange.x - 0.5975) < 0.001 && abs(orange.y - 0.3789) < 0.001, "\(orange)")
    }

    @Test func aColourBeyondTheGamutIsTheNearestInside() {
        // Pure sRGB red lies beyond gamut C's red corner: it is shown as that corner, near enough.
        let red = CIEColor(red: 255, green: 0, blue: 0)
        #expect(abs(red.x - CIEColor.gamut.red.x) < 0.01 && abs(red.y - CIEColor.gamut.red.y) < 0.01, "\(red)")
        let inside = CIEColor(x: 0.4, y: 0.4)
        #expect(inside.clippedToGamut == inside)
        let below = CIEColor(x: 0.4, y: 0.0).clippedToGamut
        #expect(below.y > 0.05 && below.y < 0.25, "\(below)")
    }

    @Test(arguments: ["#ff88", "#gg0000", "ff88000", ""])
    func aTextThatIsNotAColourIsNone(text: String) {
        #expect(CIEColor(hex: text) == nil)
    }

    @Test func aColourHasTheNearestColourTemperature() {
        #expect(CIEColor.white.mireds == 154)
        // The Planckian locus at 2,700 K.
        #expect(abs(CIEColor(x: 0.4599, y: 0.4106).mireds - 370) <= 2)
    }
}

/// Every front's colour goes through the same two conversions, hue and saturation to xy and back; a value
/// written reads back as written.
@Suite("One colour model")
struct ColorRoundTripTests {
    @Test func hueAndSaturationReadBackAsWrittenAllRoundTheWheel() {
        for step in 0..<72 {
            for saturation in [0.05, 0.3, 0.77, 1.0] {
                let hue = Double(step) / 72
                let back = CIEColor(hue: hue, saturation: saturation).hueAndSaturation
                var hueError = abs(back.hue - hue)
                hueError = min(hueError, 1 - hueError)
                // Within one unit of LIFX's resolution, the finest any front has.
                #expect(
                    hueError < 1 / 65_535.0 && abs(back.saturation - saturation) < 1 / 65_535.0,
                    "hue \(hue) saturation \(saturation) read back as \(back)")
            }
        }
    }

    @Test func noSaturationIsWhiteWithNoHue() {
        let back = CIEColor(hue: 0.4, saturation: 0).hueAndSaturation
        #expect(back.saturation < 1 / 65_535.0)
    }

    @Test func aColourTemperatureHasItsPointOnThePlanckianLocus() {
        // The locus at 2,700 K and 6,500 K, to three places.
        let warm = CIEColor(mireds: 370)
        #expect(abs(warm.x - 0.4599) < 0.002 && abs(warm.y - 0.4106) < 0.002, "\(warm)")
        let cool = CIEColor(mireds: 154)
        #expect(abs(cool.x - 0.3135) < 0.002 && abs(cool.y - 0.3237) < 0.002, "\(cool)")
        // McCamy's approximation, which reads the temperature back, drifts by a few mireds at the warm end.
        for mireds in LightStateRange.mireds {
            #expect(abs(CIEColor(mireds: mireds).mireds - mireds) <= 6, "\(mireds)")
        }
    }
}

private enum LightStateRange {
    static let mireds = stride(from: 153, through: 500, by: 7)
}
