/// What ends a wait on a file the user named (for a FIFO's writer, or for what it writes): descriptors that
/// become readable when the wait may have to end, each with a check, made then, that says whether it does.
package struct WaitStop: Sendable {
    /// One thing that may end the wait.
    package struct Source: Sendable {
        /// Readable when the wait may have to end; a negative one is never watched.
        package var descriptor: Int32
        /// Consumes what made ``descriptor`` readable, and says whether the wait ends.
        package var isRequested: @Sendable () -> Bool
    }

    /// Everything that may end the wait; the first that says so ends it.
    package var sources: [Source]

    /// A stop that `descriptor` signals and `isRequested` confirms.
    package init(descriptor: Int32, isRequested: @escaping @Sendable () -> Bool) {
        sources = [Source(descriptor: descriptor, isRequested: isRequested)]
    }

    /// A stop that any of `stops` ends.
    package init(anyOf stops: [WaitStop]) {
        sources = stops.flatMap(\.sources)
    }

    /// Nothing ends the wait but the file.
    package static let never = WaitStop(anyOf: [])
}
