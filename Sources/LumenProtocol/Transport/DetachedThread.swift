#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own, started with POSIX threads rather than Foundation's `Thread`, which would bring
/// Foundation's internationalization and ICU's data (some 30 MB) into every static binary: lumend's event
/// loops, a home's executor and a client's reader run on these.
package enum DetachedThread {
    /// Starts a detached thread that runs `body`, named `name` (cut to the 15 bytes Linux keeps) when given.
    package static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        let status = create(Unmanaged.passRetained(Context(name: name, body: body)).toOpaque())
        precondition(status == 0, "pthread_create: \(String(cString: strerror(status)))")
    }

    /// Starts a detached thread that runs ``run(_:)`` on `context`.
    private static func create(_ context: UnsafeMutableRawPointer) -> Int32 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, &attributes, detachedThreadEntry, context)
        pthread_attr_destroy(&attributes)
        return status
    }

    private final class Context: Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    fileprivate static func run(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let raw else { return nil }
        let context = Unmanaged<Context>.fromOpaque(raw).takeRetainedValue()
        if let name = context.name {
            #if canImport(Glibc)
                // As pthread_setname_np does for the calling thread; Glibc's module does not declare it.
                let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
                if comm >= 0 {
                    let cut = Array(name.utf8.prefix(15))
                    _ = cut.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
                    close(comm)
                }
            #else
                pthread_setname_np(name)
            #endif
        }
        context.body()
        return nil
    }
}

/// Where a ``DetachedThread`` begins: a function of C's, as `pthread_create` takes.
#if canImport(Glibc)
    private func detachedThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        DetachedThread.run(context)
    }
#else
    private func detachedThreadEntry(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        DetachedThread.run(context)
    }
#endif
