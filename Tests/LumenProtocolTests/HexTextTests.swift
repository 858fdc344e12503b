import LumenProtocol
import Testing

/// Hexadecimal text as serials, checksums and IDs are written: zero-padded on the left to a width.
@Suite("Hexadecimal text")
struct HexTextTests {
    @Test func valuesArePaddedToTheirWidthAndNeverCut() {
        #expect(String(hex: UInt(0), digits: 2) == "00")
        #expect(String(hex: UInt8(10), digits: 2) == "0a")
        #expect(String(hex: UInt8(10), digits: 2, uppercase: true) == "0A")
        #expect(String(hex: UInt32(0xBEEF), digits: 8) == "0000beef")
        #expect(String(hex: UInt64.max, digits: 16) == "ffffffffffffffff")
        #expect(String(hex: UInt(0x12345), digits: 2) == "12345")
    }

    @Test func anUnguessableTextIs128BitsInHexAndNeverTheSameTwice() {
        let texts = (0..<100).map { _ in String.unguessable() }
        #expect(texts.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(texts).count == texts.count)
    }
}
