import Foundation
import LumenTestSupport
import Testing

@testable import LumenServer

@Suite("Connection loop", .timeLimit(.minutes(1)))
struct ConnectionLoopTests {
    /// A loop on one end of a socket pair, and the other end.
    func makeLoop() throws -> (ConnectionLoop, peer: Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        return (ConnectionLoop(fd: ends[0]), ends[1])
    }

    @Test func aTaskPreferringTheLoopRunsOnItsThread() async throws {
        let (loop, peer) = try makeLoop()
        defer { close(peer) }
        loop.start(readable: {}, writable: {})
        let loopThread = await withCheckedContinuation { continuation in
            loop.submit { continuation.resume(returning: currentThread()) }
        }
        let taskThreads = await Task(executorPreference: loop) { () async -> [UInt] in
            let first = currentThread()
            await Task.yield()
            return [first, currentThread()]
        }.value
        #expect(taskThreads == [loopThread, loopThread])
        loop.stop()
    }

    /// Swift may schedule an actor's work on the task executor of whichever task woke it, so work can reach
    /// a loop after its connection ended; it must still run, or that actor (the home) stalls for everyone.
    @Test func workArrivingAfterTheLoopEndedStillRuns() async throws {
        let (loop, peer) = try makeLoop()
        defer { close(peer) }
        loop.start(readable: {}, writable: {})
        loop.stop()
        // The loop closes its end when its thread is done: the peer reads end-of-file.
        let ended = await offload {
            var byte: UInt8 = 0
            return read(peer, &byte, 1) == 0
        }
        #expect(ended)
        let value = await Task(executorPreference: loop) { 42 }.value
        #expect(value == 42)
        let ran = await withCheckedContinuation { continuation in
            loop.submit { continuation.resume(returning: true) }
        }
        #expect(ran)
    }
}

/// The thread this runs on. (`Thread.current.name` is no help: on Linux it can report a Dispatch queue's
/// name for a thread Foundation started.)
func currentThread() -> UInt { UInt(pthread_self()) }
