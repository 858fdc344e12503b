/// Calls a handler when a file descriptor becomes readable: how a ``ServiceGroup`` hears of stop signals
/// (their pipe). lumend's main event loop is the one lumend uses, so no other thread waits for them.
public protocol ReadableWatcher: Sendable {
    /// Calls `handler` whenever `fd` is readable, until the returned closure is called.
    func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}
