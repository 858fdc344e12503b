#if canImport(CLinux)
    import CLinux
#endif

/// The process heap, as far as giving freed memory back goes: a boundary, so tests can stand in for it.
public protocol ReclaimableHeap: Sendable {
    /// Bytes the allocator holds free: taken from the system, not in use, not yet given back.
    func freeBytes() -> Int
    /// Gives every whole free page back to the system.
    func trim()
}

/// glibc's heap (every arena): `mallinfo2` and `malloc_trim`. Where those are missing it reports nothing free.
public struct SystemHeap: ReclaimableHeap {
    /// The heap of this process.
    public init() {}

    public func freeBytes() -> Int {
        #if canImport(CLinux)
            Int(mallinfo2().fordblks)
        #else
            0
        #endif
    }

    public func trim() {
        #if canImport(CLinux)
            _ = malloc_trim(0)
        #endif
    }
}

/// Gives freed heap memory back to the system once enough has been freed since it last did.
///
/// glibc returns freed memory on its own only from the top of an arena. Memory a burst of work took (a client
/// that sent a flood and never read its replies, a crowd of sessions that left) stays resident for as long as
/// anything allocated after it lives. ``check()`` compares the heap's free bytes with what they were after
/// the last trim; once they have grown by ``threshold`` it trims. It costs a walk of the allocator's free
/// lists, so it is called on a timer, not on every free.
public struct HeapReclaimer<Heap: ReclaimableHeap>: Sendable {
    /// How much more must lie free than after the last trim before trimming again.
    public let threshold: Int
    private let heap: Heap
    /// Free bytes after the last trim, lowered whenever the allocator reuses some of them.
    private var floor: Int

    /// A reclaimer of `heap`, counting from what is free now.
    public init(heap: Heap, threshold: Int = 4 << 20) {
        self.heap = heap
        self.threshold = threshold
        floor = heap.freeBytes()
    }

    /// Trims when at least ``threshold`` more bytes lie free than after the last trim.
    /// - Returns: the free bytes that prompted a trim, or `nil` when it did not trim.
    public mutating func check() -> Int? {
        let free = heap.freeBytes()
        guard free - floor >= threshold else {
            floor = min(floor, free)
            return nil
        }
        heap.trim()
        floor = heap.freeBytes()
        return free
    }
}

/// Checks the heap every `interval` and gives freed memory back to the system (``HeapReclaimer``), logging
/// each time at debug level.
public struct HeapReclaimingService: Service {
    public var name: String { "heap reclaimer" }
    let interval: Duration
    let clock: any Clock<Duration>
    let logger: Logger

    /// A service checking this process's heap every `interval` of `clock`.
    public init(interval: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown { [self] in
            var reclaimer = HeapReclaimer(heap: SystemHeap())
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                if let free = reclaimer.check() {
                    logger.debug("gave freed heap memory back to the system", [("free_kib", String(free >> 10))])
                }
            }
        }
    }
}
