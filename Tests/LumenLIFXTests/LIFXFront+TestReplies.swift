import LumenModel
import LumenProtocol
import LumenSimulation

@testable import LumenLIFX

extension LIFXFront {
    /// Every addressed bulb's replies to `packet`, gathered.
    func answer(_ packet: LIFXPacket, at address: IPv4Address? = nil, from sender: String = "lifx test") async
        -> [[UInt8]]
    {
        let gathered = Locked<[[UInt8]]>([])
        await answer(packet, at: address, from: { sender }) { replies, _ in gathered.withLock { $0 += replies } }
        return gathered.withLock { $0 }
    }

    /// The replies to `packet`, moving `home`'s virtual clock an event at a time until they come: how the
    /// suites that speak to one bulb at a time wait for its answer.
    func replies(to packet: LIFXPacket, movingClockOf home: Home) async throws -> [LIFXPacket] {
        let answered = Locked<[[UInt8]]?>(nil)
        Task {
            let replies = await answer(packet)
            answered.withLock { $0 = replies }
        }
        for _ in 0..<10_000 where answered.withLock({ $0 }) == nil {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        return try (answered.withLock { $0 } ?? []).map { try LIFXPacket(bytes: $0) }
    }
}
