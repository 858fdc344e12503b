import Foundation
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

@testable import LumenServer

@Suite("Event loops and the connections on them", .timeLimit(.minutes(1)))
struct ConnectionLoopTests {
    /// A connection on one end of a socket pair, on `eventLoop`, and the other end.
    func makeLoop(on eventLoop: EventLoop = EventLoop(name: "test-loop")) throws -> (ConnectionLoop, peer: Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        return (ConnectionLoop(fd: ends[0], on: eventLoop), ends[1])
    }

    @Test func aTaskPreferringTheLoopRunsOnItsThread() async throws {
        let (loop, peer) = try makeLoop()
        defer { close(peer) }
        loop.start(readable: { _ in }, writable: {})
        let loopThread = await withCheckedContinuation { continuation in
            loop.submit { continuation.resume(returning: currentThread()) }
        }
        let taskThreads = await Task(executorPreference: loop.eventLoop) { () async -> [UInt] in
            let first = currentThread()
            await Task.yield()
            return [first, currentThread()]
        }.value
        #expect(taskThreads == [loopThread, loopThread])
        loop.stop()
    }

    /// A task that prefers a loop can still have work after the loop stopped (lumend is ending): it must
    /// still run, or whatever waits for it stalls.
    @Test func workArrivingAfterTheConnectionAndItsLoopEndedStillRuns() async throws {
        let eventLoop = EventLoop(name: "test-loop")
        let (loop, peer) = try makeLoop(on: eventLoop)
        defer { close(peer) }
        loop.start(readable: { _ in }, writable: {})
        loop.stop()
        // The loop closes the connection's end when it stops it: the peer reads end-of-file.
        let ended = await offload {
            var byte: UInt8 = 0
            return read(peer, &byte, 1) == 0
        }
        #expect(ended)
        #expect(await Task(executorPreference: eventLoop) { 41 }.value == 41)
        await eventLoop.shutDown()
        let value = await Task(executorPreference: eventLoop) { 42 }.value
        #expect(value == 42)
        let ran = await withCheckedContinuation { continuation in
            loop.submit { continuation.resume(returning: true) }
        }
        #expect(ran)
    }
}

extension ConnectionLoopTests {
    /// Two connections on one loop: each is read in turn, so a flood on one does not hold up the other.
    @Test func oneLoopServesManyConnectionsInTurn() async throws {
        let eventLoop = EventLoop(name: "test-loop")
        let (flooded, floodPeer) = try makeLoop(on: eventLoop)
        let (quiet, quietPeer) = try makeLoop(on: eventLoop)
        defer {
            close(floodPeer)
            close(quietPeer)
        }
        let floodReads = Atomic<Int>(0)
        let (heard, heardContinuation) = AsyncStream.makeStream(of: Int.self)
        // The flooded connection never drains its socket: each turn reads a little.
        flooded.start(
            readable: { context in _ = context.read(flooded.fd) { _ in floodReads.add(1, ordering: .relaxed) } },
            writable: {})
        quiet.start(
            readable: { context in
                _ = context.read(quiet.fd) { _ in heardContinuation.yield(floodReads.load(ordering: .relaxed)) }
            }, writable: {})
        // As much as the socket takes, without blocking this thread.
        _ = fcntl(floodPeer, F_SETFL, fcntl(floodPeer, F_GETFL) | O_NONBLOCK)
        let flood = [UInt8](repeating: 0x61, count: 200_000)
        _ = flood.withUnsafeBytes { write(floodPeer, $0.baseAddress, $0.count) }
        var byte: UInt8 = 0x62
        _ = write(quietPeer, &byte, 1)
        var iterator = heard.makeAsyncIterator()
        let readsBefore = await iterator.next()
        // The quiet connection was read while the flood was still being read, not after all of it.
        #expect((readsBefore ?? 0) < 200_000 / 65_536 + 2)
        flooded.stop()
        quiet.stop()
        await eventLoop.shutDown()
    }
}

/// The thread this runs on. (`Thread.current.name` is no help: on Linux it can report a Dispatch queue's
/// name for a thread Foundation started.)
func currentThread() -> UInt { UInt(pthread_self()) }

extension ConnectionLoopTests {
    /// A write's reply comes from a task the home's loop resumes after it handed the write's change to the
    /// subscribers' loops: the reply goes out after the change's notices, never before.
    @Test func aReplyResumedAfterAChangeGoesOutAfterItsNotices() async throws {
        let eventLoop = EventLoop(name: "test-loop")
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        defer { close(ends[1]) }
        let connection = ClientConnection(fd: ends[0], on: eventLoop, limits: ServerLimits()) { _ in }
        let home = Home(fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .virtual)
        let context = ServerContext(
            scopeContext: ScopeContext(home: home), limits: ServerLimits(),
            logger: Logger(level: .critical, handler: MemoryLogHandler()))
        let session = Session(id: 1, context: context, simulationRefusal: nil, eventLoop: eventLoop) {
            [connectionLoop = connection.loop] in _ = connectionLoop.requestWrite()
        }
        await Task(executorPreference: eventLoop) {
            connection.start(session: session)
            session.outbox.addSubscription(7, value: "Before")
        }.value
        context.hub.add(7, key: .home(.name), session: session)
        // The loop is kept busy, so the notices wait in its queue while the reply is sent.
        let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        eventLoop.execute { _ in
            held.signal()
            release.wait()
        }
        await offload { held.wait() }
        context.hub.publish(ChangeEvent(.property(.home(.name), "After"), timeMicros: 0))
        let replied = Task(executorPreference: eventLoop) {
            connection.send(reply: Array(#"{"jsonrpc":"2.0","result":{"value":"After"},"id":1}"#.utf8))
        }
        release.signal()
        await replied.value
        var reader = LineReader(fd: ends[1])
        let lines = try [reader.next(timeout: .seconds(10)), reader.next(timeout: .seconds(10))].map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(lines[0].contains(#""method":"changed""#))
        #expect(lines[1].contains(#""id":1"#))
        await Task(executorPreference: eventLoop) { connection.close(reason: nil) }.value
        await eventLoop.shutDown()
    }
}
