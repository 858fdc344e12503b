import Foundation

/// Runs `work` on a thread of its own and returns what it gives: for work that blocks (a wait on a socket or a
/// process) or runs for long without suspending (a simulation, a load of a large state), which on the
/// cooperative pool would hold one of its few threads (two, on two cores) from every other test's tasks,
/// servers included.
///
/// A thread each call, not a Dispatch queue: the global queues run only about as many blocking calls at once as
/// there are cores, so tests that each wait on a socket would otherwise wait for one another.
public func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// ``offload(_:)`` for work that throws.
public func offload<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await offload { Result(catching: work) }
    return try result.get()
}
