/// One LIFX LAN protocol datagram: its 36-byte header (frame, frame address, protocol header) and its payload,
/// all little-endian, as LIFX documents the protocol ("LAN Protocol: Header").
public struct LIFXPacket: Sendable, Hashable {
    /// The size of the header.
    public static let headerSize = 36
    /// The protocol number every packet carries.
    public static let protocolNumber: UInt16 = 1024

    /// Whether it is for every device (`target` all zeros), as discovery broadcasts are.
    public var tagged: Bool
    /// The client's own number, which every reply echoes.
    public var source: UInt32
    /// The device's MAC address in the first six bytes; zeros when tagged.
    public var target: [UInt8]
    /// The sender wants a state reply (`res_required`).
    public var wantsReply: Bool
    /// The sender wants an acknowledgement (`ack_required`).
    public var wantsAcknowledgement: Bool
    /// The client's sequence number, which every reply echoes.
    public var sequence: UInt8
    /// The message type (101 is `Light.Get`).
    public var type: UInt16
    /// The message's fields.
    public var payload: [UInt8]

    /// A packet.
    public init(
        tagged: Bool = false, source: UInt32, target: [UInt8] = [UInt8](repeating: 0, count: 8),
        wantsReply: Bool = false, wantsAcknowledgement: Bool = false, sequence: UInt8, type: UInt16,
        payload: [UInt8] = []
    ) {
        self.tagged = tagged
        self.source = source
        self.target = target
        self.wantsReply = wantsReply
        self.wantsAcknowledgement = wantsAcknowledgement
        self.sequence = sequence
        self.type = type
        self.payload = payload
    }

    /// Why a datagram is not a packet this device reads.
    public enum Malformed: Error, Sendable, Hashable {
        /// Shorter than a header, or than the size it gives.
        case short
        /// The size field disagrees with the datagram's length.
        case wrongSize
        /// Another protocol number, or not addressable.
        case notLIFX
    }

    /// Reads a datagram.
    /// - Throws: ``Malformed`` for what a bulb would drop.
    public init(bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= Self.headerSize else { throw .short }
        var reader = LIFXReader(bytes)
        let size = Int(reader.uint16())
        guard size == bytes.count else { throw size > bytes.count ? .short : .wrongSize }
        let flags = reader.uint16()
        guard flags & 0x0FFF == Self.protocolNumber, flags & 0x1000 != 0 else { throw .notLIFX }
        tagged = flags & 0x2000 != 0
        source = reader.uint32()
        target = reader.bytes(8)
        reader.skip(6)
        let requirements = reader.uint8()
        wantsReply = requirements & 0x01 != 0
        wantsAcknowledgement = requirements & 0x02 != 0
        sequence = reader.uint8()
        reader.skip(8)
        type = reader.uint16()
        reader.skip(2)
        payload = Array(bytes[Self.headerSize...])
    }

    /// The datagram.
    public var bytes: [UInt8] {
        var writer = LIFXWriter(capacity: Self.headerSize + payload.count)
        writeHeader(&writer, tagged: tagged, target: target, requirements: requirements, type: type)
        writer.bytes(payload, count: payload.count)
        writer.setSize()
        return writer.output
    }

    /// The datagram of `reply` from the device whose MAC is `serial`: the same source and sequence, addressed from
    /// it, written into one array, header and payload, as a bulb answers many queries.
    func datagram(replying reply: LIFXReply, from serial: [UInt8]) -> [UInt8] {
        // Room for the common replies (`Light.State`'s payload is 52 bytes); a longer one grows the array.
        var writer = LIFXWriter(capacity: Self.headerSize + 64)
        writeHeader(&writer, tagged: false, target: serial, requirements: 0, type: reply.type)
        reply.write(&writer)
        writer.setSize()
        return writer.output
    }

    /// The `res_required` and `ack_required` bits, as the header carries them.
    var requirements: UInt8 { (wantsReply ? 0x01 : 0) | (wantsAcknowledgement ? 0x02 : 0) }

    /// Writes a header with this packet's source and sequence and the rest given, its size left 0 for
    /// ``LIFXWriter/setSize()`` to fill in once the payload is written.
    func writeHeader(_ writer: inout LIFXWriter, tagged: Bool, target: [UInt8], requirements: UInt8, type: UInt16) {
        writer.uint16(0)
        writer.uint16(Self.protocolNumber | 0x1000 | (tagged ? 0x2000 : 0))
        writer.uint32(source)
        writer.bytes(target, count: 8)
        writer.zeros(6)
        writer.uint8(requirements)
        writer.uint8(sequence)
        writer.zeros(8)
        writer.uint16(type)
        writer.zeros(2)
    }
}

/// Reads little-endian fields in turn; past the end it reads zeros, as a short payload's missing fields are.
struct LIFXReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func uint16() -> UInt16 { UInt16(uint8()) | UInt16(uint8()) << 8 }

    mutating func uint32() -> UInt32 { UInt32(uint16()) | UInt32(uint16()) << 16 }

    mutating func uint64() -> UInt64 { UInt64(uint32()) | UInt64(uint32()) << 32 }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var field = [UInt8](repeating: 0, count: count)
        for index in 0..<count where offset + index < bytes.count { field[index] = bytes[offset + index] }
        offset += count
        return field
    }

    mutating func skip(_ count: Int) { offset += count }

    /// A fixed-size text field: up to its first zero byte, as UTF-8.
    mutating func text(_ count: Int) -> String {
        let field = bytes(count)
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Writes little-endian fields in turn.
struct LIFXWriter {
    var output: [UInt8] = []

    init() {}

    /// A writer with room for `capacity` bytes, so that writing that many allocates once.
    init(capacity: Int) { output.reserveCapacity(capacity) }

    mutating func uint8(_ value: UInt8) { output.append(value) }

    mutating func uint16(_ value: UInt16) {
        output.append(UInt8(value & 0xFF))
        output.append(UInt8(value >> 8))
    }

    mutating func uint32(_ value: UInt32) {
        uint16(UInt16(value & 0xFFFF))
        uint16(UInt16(value >> 16))
    }

    mutating func uint64(_ value: UInt64) {
        uint32(UInt32(value & 0xFFFF_FFFF))
        uint32(UInt32(value >> 32))
    }

    /// `count` bytes: `value`'s, cut or padded with zeros.
    mutating func bytes(_ value: [UInt8], count: Int) {
        output += value.prefix(count)
        if value.count < count { zeros(count - value.count) }
    }

    mutating func zeros(_ count: Int) { output.append(contentsOf: repeatElement(0, count: count)) }

    /// A fixed-size text field: UTF-8, cut at a character's boundary to fit, padded with zeros.
    mutating func text(_ value: String, count: Int) {
        let start = output.count
        if value.utf8.count <= count {
            output.append(contentsOf: value.utf8)
        } else {
            for scalar in value.unicodeScalars {
                guard output.count - start + UTF8.width(scalar) <= count else { break }
                UTF8.encode(scalar) { output.append($0) }
            }
        }
        zeros(count - (output.count - start))
    }

    /// Writes the datagram's size into its first two bytes, once all of it is written.
    mutating func setSize() {
        output[0] = UInt8(output.count & 0xFF)
        output[1] = UInt8(output.count >> 8)
    }
}
