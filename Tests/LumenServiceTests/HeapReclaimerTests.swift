import LumenProtocol
import LumenService
import LumenTestSupport
import Testing

/// A heap whose free bytes the test sets; trimming records itself and may free some of them (from the top).
final class FakeHeap: ReclaimableHeap {
    private let state = Locked<(free: Int, trims: Int, trimReleases: Int)>((0, 0, 0))
    func freeBytes() -> Int { state.withLock { $0.free } }
    func trim() {
        state.withLock {
            $0.trims += 1
            $0.free -= $0.trimReleases
        }
    }
    func set(free: Int) { state.withLock { $0.free = free } }
    func releaseOnTrim(_ bytes: Int) { state.withLock { $0.trimReleases = bytes } }
    var trims: Int { state.withLock { $0.trims } }
}

@Suite("Heap reclaimer")
struct HeapReclaimerTests {
    let mebibyte = 1 << 20

    @Test func itTrimsOnceEnoughHasBeenFreedSinceTheLastTrimAndNotAgainForTheSameBytes() {
        let heap = FakeHeap()
        heap.set(free: 1 * mebibyte)
        var reclaimer = HeapReclaimer(heap: heap, threshold: 4 * mebibyte)
        heap.set(free: 4 * mebibyte)
        #expect(reclaimer.check() == nil)
        heap.set(free: 5 * mebibyte)
        #expect(reclaimer.check() == 5 * mebibyte)
        #expect(heap.trims == 1)
        // Trimmed pages still count as free: the same bytes never prompt another trim.
        for _ in 0..<10 { #expect(reclaimer.check() == nil) }
        heap.set(free: 8 * mebibyte)
        #expect(reclaimer.check() == nil)
        heap.set(free: 9 * mebibyte)
        #expect(reclaimer.check() != nil)
        #expect(heap.trims == 2)
    }

    @Test func freeBytesReusedAndFreedAgainAreTrimmedAgain() {
        let heap = FakeHeap()
        heap.set(free: 6 * mebibyte)
        var reclaimer = HeapReclaimer(heap: heap, threshold: 4 * mebibyte)
        // The allocator hands the free bytes out again, then they are freed once more.
        heap.set(free: 1 * mebibyte)
        #expect(reclaimer.check() == nil)
        heap.set(free: 6 * mebibyte)
        #expect(reclaimer.check() == 6 * mebibyte)
        #expect(heap.trims == 1)
    }

    @Test func whatATrimReleasesFromTheTopIsCountedFromAfterIt() {
        let heap = FakeHeap()
        var reclaimer = HeapReclaimer(heap: heap, threshold: 4 * mebibyte)
        heap.releaseOnTrim(3 * mebibyte)
        heap.set(free: 5 * mebibyte)
        #expect(reclaimer.check() != nil)
        // 2 MiB stayed free after the trim; 4 more must be freed before the next.
        heap.set(free: 5 * mebibyte)
        #expect(reclaimer.check() == nil)
        heap.set(free: 6 * mebibyte)
        #expect(reclaimer.check() != nil)
        #expect(heap.trims == 2)
    }

    @Test func theSystemHeapReportsWhatIsFreed() {
        if let sanitizer = runningSanitizer {
            print("SKIPPED: glibc's heap figures: \(sanitizer) replaces the allocator")
            return
        }
        let before = SystemHeap().freeBytes()
        // Blocks below glibc's mmap threshold, freed while the last stays in use, are free bytes in the heap.
        // Other tests' threads allocate meanwhile: 64 MiB freed leaves a wide margin over what they take.
        var blocks = (0..<1_024).map { _ in [UInt8](repeating: 1, count: 64 << 10) }
        let last = blocks.removeLast()
        blocks.removeAll()
        #expect(SystemHeap().freeBytes() >= before + 32 * mebibyte)
        SystemHeap().trim()
        withExtendedLifetime(last) {}
    }
}
