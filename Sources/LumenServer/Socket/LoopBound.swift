import LumenLoop

/// A value that belongs to one event loop: read and changed only on that loop's thread, which every access
/// checks. As swift-nio's `NIOLoopBound`, the box is `Sendable` so that the blocks and tasks bound for the
/// loop can carry it.
///
/// `@unchecked Sendable` with no lock: the thread check is what makes sharing the box safe. Every access
/// first checks that it runs on the loop's thread, and one thread runs one access at a time, so no two ever
/// overlap; an access from any other thread stops the process rather than race.
final class LoopBound<Value>: @unchecked Sendable {
    /// The loop whose thread alone touches the value.
    let loop: EventLoop
    private var value: Value

    /// `value`, bound to `loop` from now on (made on any thread).
    init(_ value: Value, on loop: EventLoop) {
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value, on the loop's thread.
    func with<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        precondition(loop.isCurrent, "a value of \(loop.name)'s touched from another thread")
        return try body(&value)
    }
}

extension LoopBound where Value: AnyObject {
    /// The object, on the loop's thread. Unlike ``with(_:)`` this holds no exclusive access while the object is
    /// used, so a call that comes back into it (a C library's callback, for one) is no conflict.
    var object: Value {
        precondition(loop.isCurrent, "a value of \(loop.name)'s touched from another thread")
        return value
    }
}
