import LumenProtocol

/// A light's saved form while it waits in a ``StateRecordSink`` to be written: until the sink takes it, the
/// home brings its state up to date in place rather than building and noting a whole new record.
///
/// A light switched a thousand times between two commits is then built as a record once and written once, and
/// each switch after the first costs one short lock of the light's own. Only the state is updated in place;
/// any other change to the light (its name, settings, reachability, room) is noted as a new record.
///
/// ```swift
/// let pending = PendingLightRecord(entry, room: "kitchen")
/// sink.record(pending)
/// if !pending.update(state: newState) { /* taken: note a new record */ }
/// ```
public final class PendingLightRecord: Sendable {
    /// The light the record is about.
    public let id: LightID
    /// The record's contents; `nil` once taken.
    private let contents: Locked<Contents?>

    private struct Contents {
        var light: LightFixture
        var room: RoomID
    }

    /// A pending record of `light`, in `room`.
    public init(_ light: LightFixture, room: RoomID) {
        id = light.id
        contents = Locked(Contents(light: light, room: room))
    }

    /// What the record is about.
    public var subject: StateRecord.Subject { .entity(.light(id)) }

    /// Sets the state the record saves, unless the record was taken already. Returns whether it was set: when
    /// not, the change is not noted anywhere, and the caller must note a new record.
    public func update(state: LightState) -> Bool {
        contents.withLock { contents in
            guard contents != nil else { return false }
            contents!.light.state = state
            return true
        }
    }

    /// The record as it is now, or `nil` when it was taken already. Later updates fail.
    public func take() -> StateRecord? {
        contents.withLock { contents in
            defer { contents = nil }
            return contents.map { .light($0.light, room: $0.room) }
        }
    }

    /// Whether the record was taken (or set aside), so that updates fail.
    public var isTaken: Bool { contents.withLock { $0 == nil } }
}
