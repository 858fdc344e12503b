import LumenProtocol
import Testing

@Suite("A short lock", .timeLimit(.minutes(1)))
struct LockedTests {
    /// Two threads bump one counter under the lock and every bump lands. Under ThreadSanitizer, which sees the
    /// pthread mutex, no bump is reported as a race (each was, under `Synchronization.Mutex`).
    @Test func bumpsFromTwoThreadsUnderTheLockAllLand() async {
        let counter = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let running = Locked(2)
            for index in 0..<2 {
                DetachedThread.start(name: "locked-test.\(index)") {
                    for _ in 0..<20_000 { counter.withLock { $0 += 1 } }
                    if running.withLock({
                        $0 -= 1; return $0
                    }) == 0 {
                        done.resume()
                    }
                }
            }
        }
        #expect(counter.withLock { $0 } == 40_000)
    }

    /// A lock over nothing, held only to keep two threads' work apart (as a client's writes are), is not
    /// reported as a race either: its empty value is no access at the object's own address.
    @Test func aLockOverNothingKeepsTwoThreadsApart() async {
        let writing = Locked(())
        let written = Locked([Int]())
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let running = Locked(2)
            for index in 0..<2 {
                DetachedThread.start(name: "locked-test.\(index)") {
                    for step in 0..<5_000 { writing.withLock { _ in written.withLock { $0.append(step) } } }
                    if running.withLock({
                        $0 -= 1; return $0
                    }) == 0 {
                        done.resume()
                    }
                }
            }
        }
        #expect(written.withLock { $0.count } == 10_000)
    }

    struct Refused: Error, Equatable {}

    /// An error thrown inside the body comes out as it was thrown, with the lock released and the change made
    /// before it kept.
    @Test func aBodyThatThrowsLeavesTheLockFree() {
        let value = Locked([1])
        #expect(throws: Refused()) {
            try value.withLock { (numbers: inout [Int]) throws(Refused) in
                numbers.append(2)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2])
    }
}
