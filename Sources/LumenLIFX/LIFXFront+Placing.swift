import LumenModel
import LumenSimulation

extension LIFXFront {
    /// Gives a bulb that came while lumend runs (added, found by a scan, brought back by a reset) its address at
    /// once and checks it as start does: an address that is not this machine's (``addressProblem``) is reported
    /// now, not at the next start. A fixture's address wins over one given by count, as at start: a bulb counted
    /// to it moves to the next free one, reported too.
    func place(_ light: LightID, in home: isolated Home) {
        guard home.device(light, on: .lifxLAN) != nil else { return }
        let given = home.fixtureAddress(of: light)
        let placed = book.withLock { book -> (bulb: LIFXLight?, moved: LIFXLight?, displaced: LightID?) in
            var displaced: LightID?
            if let given, let other = book.byAddress[given], other != light {
                book.forget(other)
                displaced = other
            }
            if book.isComplete {
                // Every other bulb has its address: only this one, or the one it displaced, may need one, given
                // as looking at every bulb would give it, without looking at them.
                for id in [light, displaced].compactMap({ $0 })
                where home.fixtureAddress(of: id) == nil && book.byLight[id] == nil
                    && home.device(id, on: .lifxLAN) != nil
                {
                    book.count(id, from: firstAddress) { home.fixtureAddressOwner(of: $0) != nil }
                }
                book.list(light, serial: DeviceSerial.of(light, homeDigest: homeDigest))
            } else {
                _ = everyBulb(.every, in: home, book: &book)
            }
            return (
                bulb(light, in: home, book: book), displaced.flatMap { bulb($0, in: home, book: book) }, displaced
            )
        }
        guard let bulb = placed.bulb else { return }
        if let displaced = placed.displaced, let moved = placed.moved {
            report(
                "the LIFX bulb '\(light)' takes \(bulb.address), which its fixture gives it; '\(displaced)', counted to "
                    + "it before, answers at \(moved.address) now")
            if let why = addressProblem?(moved.address) { report(Self.notThisMachine(moved, why)) }
        }
        if let why = addressProblem?(bulb.address) { report(Self.notThisMachine(bulb, why)) }
    }

    /// What is said of a bulb whose address is not one of this machine's, at start and when it comes later.
    public static func notThisMachine(_ bulb: LIFXLight, _ why: String) -> String {
        "the LIFX bulb '\(bulb.light.id)' answers at \(bulb.address), which is not an address of this machine "
            + "(\(why)): add it (ip address add \(bulb.address)/24 dev IFACE, or a macvlan; see docs/lifx.md), or "
            + "give the bulb another with lifx.address in the fixture"
    }
}
