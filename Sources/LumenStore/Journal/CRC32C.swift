import LumenProtocol

#if canImport(CLinux)
    import CLinux
#endif

/// CRC-32C (Castagnoli), the checksum that tells a whole journal record from a torn or damaged one.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// Whether this processor computes CRC-32C in one instruction (SSE 4.2 on x86-64).
    static let hasInstruction: Bool = {
        #if canImport(CLinux)
            lumen_has_crc32c_instruction() != 0
        #else
            false
        #endif
    }()

    /// The checksum of `bytes`: with the processor's instruction over contiguous bytes where there is one (a
    /// 20 MB snapshot is read at start-up), else a byte at a time from a table.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        #if canImport(CLinux)
            if hasInstruction,
                let crc = bytes.withContiguousStorageIfAvailable({ buffer in
                    lumen_crc32c_update(0xFFFF_FFFF, buffer.baseAddress, buffer.count)
                })
            {
                return crc ^ 0xFFFF_FFFF
            }
        #endif
        return tableChecksum(bytes)
    }

    /// The checksum of `bytes`, a byte at a time from a table.
    static func tableChecksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// A checksum as the journal and the snapshot write it: 8 lower-case hexadecimal digits.
    static func text(_ checksum: UInt32) -> String { String(hex: checksum, digits: 8) }

    /// The checksum that `digits` write, when they are 8 lower-case hexadecimal digits; else `nil`.
    static func parse(_ digits: ArraySlice<UInt8>) -> UInt32? {
        // Lower-case only: an upper-case digit is a changed byte, even where it means the same number.
        guard digits.count == 8, digits.allSatisfy(isDigit) else { return nil }
        return UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
    }

    /// Whether `byte` is one of the digits a checksum is written with (`0`-`9`, `a`-`f`).
    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
