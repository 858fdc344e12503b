#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a short lock: the shape of `Synchronization.Mutex` (`withLock { state in … }`), locked with a
/// `pthread_mutex_t`.
///
/// On Linux `Mutex` locks with futex calls that ThreadSanitizer does not see, so TSan cannot tell a body that
/// holds the lock from one that does not; it sees `pthread_mutex_lock`, so every access made here is checked.
/// Hold it only for a few instructions, never across a system call that can wait or a call out to code that
/// could take it again (it is not recursive).
package final class Locked<Value>: @unchecked Sendable {
    // Sendable because the value is touched only inside `withLock`, under `mutex`, and crosses into and out of
    // it as `sending`, as `Mutex` does. Both live on the heap: a `pthread_mutex_t` must not move, and a value
    // reached through a pointer is not an exclusivity-checked access of the object, which ThreadSanitizer would
    // place at the object's own address when the value is empty (`Locked(())`) and call a race with the
    // unlocked read of the object's header in the next `withLock`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// Puts `initialValue` behind a new lock.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the value with the lock held, and returns what it returns.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
