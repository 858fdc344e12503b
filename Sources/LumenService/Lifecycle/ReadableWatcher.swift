import Dispatch

/// Calls a handler when a file descriptor becomes readable: how a ``ServiceGroup`` hears of stop signals
/// (their pipe). lumend's main event loop is one; ``DispatchReadableWatcher`` is the default.
public protocol ReadableWatcher: Sendable {
    /// Calls `handler` whenever `fd` is readable, until the returned closure is called.
    func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

/// A Dispatch read source on a shared queue (Dispatch's threads run it).
public struct DispatchReadableWatcher: ReadableWatcher {
    /// The watcher.
    public init() {}

    public func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        // A Dispatch source may be cancelled from any thread; Dispatch does not mark it `Sendable`.
        nonisolated(unsafe) let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return { source.cancel() }
    }
}
