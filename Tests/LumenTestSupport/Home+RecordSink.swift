import LumenModel
import LumenSimulation

extension Home {
    /// Calls `body` with the saved form of every entity whose saved form changes, as the change is applied:
    /// every record, a light's too, handed over whole as it is made.
    public func setPersistenceSink(_ body: @escaping @Sendable (StateRecord) -> Void) {
        setPersistenceSink(ClosureRecordSink(body: body))
    }
}

/// A sink that is a closure.
private struct ClosureRecordSink: StateRecordSink {
    let body: @Sendable (StateRecord) -> Void

    func record(_ record: StateRecord) { body(record) }
}
