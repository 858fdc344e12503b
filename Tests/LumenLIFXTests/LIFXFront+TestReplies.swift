import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport

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

    /// The replies to `packet`, moving `home`'s virtual clock an event at a time while the message is on its way
    /// to the bulb, until they come (none, after 10,000 looks, for a message the bulb drops): how the suites that
    /// speak to one bulb at a time wait for its answer.
    func replies(to packet: LIFXPacket, movingClockOf home: Home) async throws -> [LIFXPacket] {
        let answered = Locked<[[UInt8]]?>(nil)
        Task {
            let replies = await answer(packet)
            answered.withLock { $0 = replies }
        }
        // The clock moves only while someone waits on the simulation (the message on its way to the bulb): not
        // before a query reaches the bulb, nor while an answer is on its way back, which would read the bulb late.
        for _ in 0..<10_000 where answered.withLock({ $0 }) == nil {
            if await home.waitingOnSimulation > 0 { _ = try await home.advanceToNextEvent() }
            await Task.yield()
        }
        return try (answered.withLock { $0 } ?? []).map { try LIFXPacket(bytes: $0) }
    }
}

extension LIFXFront {
    /// The replies to `packets` read in one go, in the order they were sent: each one's work made as the UDP
    /// server reads it, and their tasks started one after the other on the home's loop, as the server starts
    /// them; `home`'s virtual clock moved until every one is done.
    func repliesReadInOneGo(_ packets: [LIFXPacket], movingClockOf home: Home) async throws -> [LIFXPacket] {
        let works = packets.compactMap { respond(to: $0.bytes, from: { "127.0.0.1:51234" }) }
        let gathered = Locked<[[UInt8]]>([])
        let tasks = works.map { work in
            Task(executorPreference: Home.sharedLoop) {
                await work { datagrams, _ in gathered.withLock { $0 += datagrams } }
            }
        }
        for task in tasks { _ = try await home.driving { await task.value } }
        return try gathered.withLock { $0 }.map { try LIFXPacket(bytes: $0) }
    }
}
