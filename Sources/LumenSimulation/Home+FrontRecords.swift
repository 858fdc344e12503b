import LumenModel
import LumenProtocol

/// What the home tells the fronts, in the turn of the home it happens in (``Home/addFrontListener(_:)``): news
/// of what a front keeps beside the home, in memory or in its record.
package enum FrontNews: Sendable {
    /// The fronts' records became those of a fixture or checkpoint (``Home/restore(to:)``): a front reads its
    /// record again. `previous` holds them as they were before.
    case restored(previous: [String: JSONValue])
    /// The light is gone: a front forgets what it kept for it. Its entries in the records of
    /// ``Fixture/entryFrontNames`` are dropped and saved already.
    case lightRemoved(LightID)
    /// The light's power is cut for `downMs` (a power cycle, a reboot): what a device holds only while powered
    /// is lost, and it boots when the power is back.
    case powerCut(LightID, downMs: Double)
    /// The light came while lumend runs (added, found by a scan, brought back by a reset): a front that gives
    /// it a place (an address) gives and checks it now, as it does at start.
    case lightAdded(LightID)
    /// The light's device settings or its fixture's LIFX address changed (``Home/updateSettings(_:light:)``, a
    /// restore), or, for `nil`, every light's settings are worked out afresh (a restore): a light may now be
    /// reached over another network, or need an address counted, so a front that answers for one network's
    /// devices no longer knows it has seen them all.
    case settingsChanged(LightID?)
    /// A timed effect (``TimedEffect``: a sunrise, a sunset) began or ended on the light, landed or ended by a
    /// command, a fault or a restore (one piece of news when a command ends one and starts another; a light
    /// removed is ``lightRemoved(_:)``): a front that reports it tells its clients, though no level may have moved.
    case timedEffectChanged(LightID)
}

/// A front's hook, called with the home it listens to.
package typealias FrontListener = @Sendable (isolated Home, FrontNews) -> Void

extension Home {
    /// What the front called `name` keeps (``Fixture/fronts``), as it last saved it.
    package func frontRecord(_ name: String) -> JSONValue? { frontRecords[name] }

    /// Keeps `record` as what the front called `name` keeps, and saves it with the home.
    package func saveFrontRecord(_ name: String, _ record: JSONValue) {
        frontRecords[name] = record
        persistenceSink?.record(.front(name, record))
    }

    /// Keeps `entry` as the entry `key` of what the front called `name` keeps (one of ``Fixture/entryFrontNames``:
    /// a LIFX bulb's, under its light's ID), and saves that entry alone with the home; `nil` drops the entry.
    /// Saves nothing when the entry is as kept already.
    package func saveFrontEntry(_ name: String, key: String, _ entry: JSONValue?) {
        guard frontRecords[name]?[key] != entry else { return }
        // Taken out while it changes, so that the record is changed in place rather than copied.
        frontRecords[name] = Fixture.record(frontRecords.removeValue(forKey: name), setting: key, to: entry)
        persistenceSink?.record(.frontEntry(name, key: key, entry))
    }

    /// Calls `listener` with every ``FrontNews``, in the turn of the home that made it, after the home changed:
    /// the way a front hears that what it holds in memory is no longer what the home keeps.
    package nonisolated func addFrontListener(_ listener: @escaping FrontListener) {
        frontListeners.withLock { $0.append(listener) }
    }

    /// Tells every front `news`.
    func tellFronts(_ news: FrontNews) {
        for listener in frontListeners.withLock({ $0 }) { listener(self, news) }
    }

    /// Makes the fronts' records `target`'s, each saved as a front saves it (an entry at a time for
    /// ``Fixture/entryFrontNames``), and has each front read its own again.
    func restoreFrontRecords(to target: [String: JSONValue]) {
        let previous = frontRecords
        for name in Fixture.frontNames where previous[name] != target[name] {
            if Fixture.entryFrontNames.contains(name) {
                let before = previous[name]?.objectValue ?? JSONObject()
                let after = target[name]?.objectValue ?? JSONObject()
                for key in before.keys where after[key] == nil { saveFrontEntry(name, key: key, nil) }
                for (key, entry) in after { saveFrontEntry(name, key: key, entry) }
                // As the target has it, its entries in its order: what a snapshot then writes.
                frontRecords[name] = target[name]
            } else {
                frontRecords[name] = target[name]
                persistenceSink?.record(.front(name, target[name] ?? .null))
            }
        }
        tellFronts(.restored(previous: previous))
    }

    /// Drops the light's entries from the records of ``Fixture/entryFrontNames`` and tells the fronts it is gone.
    func forgetFrontEntries(of light: LightID) {
        for name in Fixture.entryFrontNames.sorted() where frontRecords[name]?[light.rawValue] != nil {
            saveFrontEntry(name, key: light.rawValue, nil)
        }
        tellFronts(.lightRemoved(light))
    }
}
