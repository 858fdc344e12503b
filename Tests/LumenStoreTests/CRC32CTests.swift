import LumenSimulation
import Testing

@testable import LumenStore

@Suite("CRC-32C")
struct CRC32CTests {
    @Test func theCheckValueIsTheStandardOne() {
        // The check value of CRC-32C (Castagnoli), as RFC 3720 and every implementation give it.
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.tableChecksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    @Test func theInstructionAndTheTableAgreeOnEveryLengthAndAlignment() {
        var random = SeededRandom(seed: 7)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                let slice = bytes[start..<end]
                #expect(CRC32C.checksum(slice) == CRC32C.tableChecksum(slice), "bytes \(start)..<\(end)")
            }
        }
        if !CRC32C.hasInstruction { print("SKIPPED: the instruction path: this processor has no CRC-32C instruction") }
    }
}
