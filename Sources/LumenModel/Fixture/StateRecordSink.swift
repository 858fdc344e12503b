/// Where a home hands the saved forms of what changes: the state store, or a test's log.
public protocol StateRecordSink: Sendable {
    /// Notes the saved form of an entity that changed.
    func record(_ record: StateRecord)
    /// Notes a light's saved form that its home may update in place until the sink takes it
    /// (``PendingLightRecord/take()``). A sink that keeps no records waiting takes it at once.
    func record(_ light: PendingLightRecord)
}

extension StateRecordSink {
    /// Takes the record at once and notes it as any other.
    public func record(_ light: PendingLightRecord) {
        if let taken = light.take() { record(taken) }
    }
}
