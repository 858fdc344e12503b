import LumenModel

extension LIFXDeviceRecords {
    /// A HEV bulb's germicidal cycles: the one under way, how the last ended and its configuration.
    struct HEV: Sendable, Hashable {
        /// A cycle under way: when it started (simulation milliseconds), how long it runs, whether the light
        /// was on before it.
        struct Cycle: Sendable, Hashable {
            var startMs: Double
            var durationS: UInt32
            var lastPower: Bool

            /// The time it has left at `nowMs`: never less than nothing, nor more than its length.
            func leftMs(atMs nowMs: Double) -> Double {
                let lengthMs = Double(durationS) * 1_000
                return min(lengthMs, max(0, startMs + lengthMs - nowMs))
            }
        }

        var cycle: Cycle?
        /// The last cycle once it is over (ran its length, stopped or cut short): a Clean goes on reporting its
        /// length and the power before it, with nothing left.
        var lastCycle: Ended?
        /// LIFX's `LastHevCycleResult`: 0 done, 2 cut short by a reboot or power loss, 4 stopped over the LAN,
        /// 255 none yet.
        var lastResult: UInt8 = 255
        /// LIFX's `LastHevCycleResult` while a cycle runs: `BUSY`.
        static let busy: UInt8 = 1
        var indication = false
        /// The length of a cycle started without one: two hours, as LIFX ships the Clean.
        var defaultDurationS: UInt32 = 7_200

        /// A cycle that is over: how long it was to run, whether the light was on before it.
        struct Ended: Sendable, Hashable {
            var durationS: UInt32
            var lastPower: Bool
        }

        /// What `StateHevCycle` tells of the cycle under way at `nowMs`, or of the last one once it is over (its
        /// length, none left), or before any of the configured length.
        func reported(atMs nowMs: Double) -> (durationS: UInt32, remainingS: UInt32, lastPower: Bool) {
            if let cycle {
                // Never more than the cycle's length, nor less than nothing, whatever an old record gave its start.
                let leftS = (cycle.leftMs(atMs: nowMs) / 1_000).rounded(.up)
                return (cycle.durationS, UInt32(leftS), cycle.lastPower)
            }
            return (lastCycle?.durationS ?? defaultDurationS, 0, lastCycle?.lastPower ?? false)
        }

        /// Ends the cycle under way with `result` (LIFX's `LastHevCycleResult`).
        mutating func end(as result: UInt8) {
            guard let cycle else { return }
            lastCycle = Ended(durationS: cycle.durationS, lastPower: cycle.lastPower)
            self.cycle = nil
            lastResult = result
        }

        /// Ends the cycle whose time is up at `nowMs`, as done.
        mutating func settle(atMs nowMs: Double) {
            guard let cycle, nowMs >= cycle.startMs + Double(cycle.durationS) * 1_000 else { return }
            end(as: 0)
        }

        /// Ends the cycle under way at `nowMs` as a reboot or power loss does, `INTERRUPTED_BY_RESET`; one whose
        /// time was up by then ended done.
        /// - Returns: whether a cycle was cut short.
        mutating func interrupt(atMs nowMs: Double) -> Bool {
            settle(atMs: nowMs)
            guard cycle != nil else { return false }
            end(as: 2)
            return true
        }
    }

    /// The bulb's HEV state at `nowMs`, a cycle whose time is up ended.
    func hev(of light: LightID, atMs nowMs: Double) -> HEV {
        hevStates.withLock { cycles in
            var state = cycles[light] ?? HEV()
            state.settle(atMs: nowMs)
            cycles[light] = state
            return state
        }
    }

    /// Starts a cycle of `durationS` (0: the configured length) at `nowMs`, the light on or not before it; or
    /// stops the one under way, as stopped over the LAN.
    func setHEVCycle(of light: LightID, enable: Bool, durationS: UInt32, lightWasOn: Bool, atMs nowMs: Double) {
        hevStates.withLock { cycles in
            var state = cycles[light] ?? HEV()
            state.settle(atMs: nowMs)
            if enable {
                let length = durationS > 0 ? durationS : state.defaultDurationS
                state.cycle = HEV.Cycle(startMs: nowMs, durationS: length, lastPower: lightWasOn)
            } else {
                state.end(as: 4)
            }
            cycles[light] = state
        }
    }

    /// Sets whether a cycle shows on the light and the length of one started without a length.
    func setHEVConfiguration(of light: LightID, indication: Bool, durationS: UInt32) {
        hevStates.withLock { cycles in
            cycles[light, default: HEV()].indication = indication
            cycles[light, default: HEV()].defaultDurationS = durationS
        }
    }
}
