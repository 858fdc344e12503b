import LumenModel
import LumenProtocol
import Synchronization

/// What the bulbs keep as devices rather than as lights: when each last rebooted and for how long it was down,
/// the location and group a client put it in (`SetLocation`, `SetGroup`), its infrared level, its HEV cycles, its
/// zones or pixels, where its tiles are, the effect it was asked to run and the colour a client gave it. All but
/// the boots are saved with the home as the bulbs' record (`LIFXDeviceRecords+Saving.swift`).
///
/// One entry a bulb at most, made only when a client sends one such a message: bounded by the lights on the LAN.
final class LIFXDeviceRecords: Sendable {
    /// A location or group a client gave a bulb.
    struct Membership: Sendable, Hashable {
        var id: [UInt8]
        var label: String
        /// When it was set, in nanoseconds since 1970, as the client wrote it.
        var updatedAt: UInt64
    }

    /// A bulb's boot: when it came up, in simulation milliseconds, and how long it was down before.
    struct Boot: Sendable, Hashable {
        var upSinceMs: Double
        var downtimeMs: Double
    }

    /// The simulated wall clock's start, in nanoseconds since 1970: the simulation's time 0 on the wall, so that
    /// a bulb's time moves with the simulation clock, virtual or real.
    let startedAtNanoseconds: UInt64
    /// The simulation time the front started at: every bulb has been up since then, unless rebooted.
    let startedAtMs: Double
    private let boots = Locked<[LightID: Boot]>([:])
    /// The location a client put each bulb in.
    let locations = Locked<[LightID: Membership]>([:])
    /// The group a client put each bulb in.
    let groups = Locked<[LightID: Membership]>([:])
    /// The infrared level clients set, for bulbs with infrared.
    let infraredLevels = Locked<[LightID: UInt16]>([:])
    /// The HEV cycles and settings, for bulbs with HEV.
    let hevStates = Locked<[LightID: HEV]>([:])
    /// The zones clients gave different colours, for strips.
    let zoneStates = Locked<[LightID: LIFXZones]>([:])
    /// The pixels clients gave different colours, for matrix products.
    let matrixStates = Locked<[LightID: LIFXMatrix]>([:])
    /// The frame buffers other than the one shown that clients drew into, for matrix products, by index (1–7):
    /// at most seven chains' pixels a bulb. Not saved, and emptied when the bulb reboots or loses power: a tile's
    /// frame buffers do not outlive its power.
    let frameBuffers = Locked<[LightID: [UInt8: [HSBK]]]>([:])
    /// Where clients placed each tile of a matrix, by tile: at most the chain's tiles a bulb.
    let tilePositions = Locked<[LightID: [Int: SIMD2<Float>]]>([:])
    /// The firmware effects clients started on strips, and on matrices, to run for ever (``setEffect(_:_:of:atMs:)``).
    let multiZoneEffects = Locked<[LightID: LIFXEffect]>([:])
    let tileEffects = Locked<[LightID: LIFXEffect]>([:])
    /// The firmware effects clients started for a time, until they end: not saved. At most one of each kind a bulb.
    let timedEffects = Locked<[LightID: [EffectKind: TimedEffect]]>([:])
    /// The wave each bulb draws, with where its message left the light bound (its landing state; `nil` until the
    /// bulb took it): drawn while it stays so.
    /// Not saved: a wave lasts a moment. One a bulb at most.
    let waveforms = Locked<[LightID: (waveform: LIFXWaveform, landing: LightState?)]>([:])
    /// The power fade each bulb took (``LIFXPowerFade``), reported while the light fades so.
    /// Not saved: a fade lasts a moment, and a restart lands it. One a bulb at most.
    let powerFades = Locked<[LightID: LIFXPowerFade]>([:])
    /// When each bulb takes the last power message (`SetPower`, `SetLightPower`) sent to it, in simulation
    /// milliseconds: a colour sent before then finds the power as that message leaves it, not as a fade under way
    /// takes it. Not saved.
    let powerMessagesTakenMs = Locked<[LightID: Double]>([:])
    /// The colour clients last gave each bulb, with the state it left the light in.
    let givenColors = Locked<[LightID: (color: HSBK, state: LightState)]>([:])
    /// Whether what the home keeps for the bulbs was read yet (``loadOnce(from:)``).
    let isLoaded = Locked(false)

    /// How many times what is saved changed, for any bulb: counted after each change, so that a message can tell
    /// whether it changed anything to save.
    let changes = Atomic<Int>(0)
    /// The bulbs whose entries changed since they were last saved (``save(to:)``).
    let unsaved = Locked<Set<LightID>>([])

    /// Counts a change to what `light` keeps, to be saved.
    func changed(_ light: LightID) {
        unsaved.withLock { _ = $0.insert(light) }
        changes.add(1, ordering: .releasing)
    }

    /// Notes that `color` left `light` in `state`; counted as a change only when it is one, so that a client
    /// sending the same colour again and again costs no save.
    func note(_ color: HSBK, gave state: LightState, to light: LightID) {
        let isNew = givenColors.withLock { given in
            defer { given[light] = (color, state) }
            return given[light].map { $0.color != color || $0.state != state } ?? true
        }
        if isNew { changed(light) }
    }

    /// The colour `light` of `model`, in `state`, reports: as a client last gave it while the light still shows
    /// what that left it in, since a bulb keeps its HSBK as given (a hue under no saturation, the kelvin to the
    /// degree, a brightness below 1 %), which Lumen's state holds only as near as its own units; its level alone
    /// moved since (a fade, a level set another way), at that level; else worked out from the state.
    func color(of light: LightID, in state: LightState, model: DeviceModel) -> HSBK {
        let worked = HSBK(state, model: model)
        guard let given = givenColors.withLock({ $0[light] }),
            given.state.colorTemperature == state.colorTemperature, given.state.color == state.color
        else { return worked }
        if given.state.brightness == state.brightness { return given.color }
        var color = given.color
        color.brightness = worked.brightness
        return color
    }

    /// Records for bulbs that came up at `startedAtMs` of simulation time, on a home whose simulated wall clock
    /// is `wallClock`.
    init(startedAtMs: Double, wallClock: WallClock) {
        startedAtNanoseconds = UInt64(max(0, wallClock.startMicroseconds)) * 1_000
        self.startedAtMs = startedAtMs
    }

    /// The wall-clock time at `nowMs` of simulation time, in nanoseconds since 1970.
    func time(atMs nowMs: Double) -> UInt64 { startedAtNanoseconds + Self.nanoseconds(nowMs) }

    /// The bulb's uptime and last downtime at `nowMs`, in nanoseconds.
    func uptime(of light: LightID, atMs nowMs: Double) -> (uptime: UInt64, downtime: UInt64) {
        let boot = boots.withLock { $0[light] } ?? Boot(upSinceMs: startedAtMs, downtimeMs: 0)
        return (Self.nanoseconds(nowMs - boot.upSinceMs), Self.nanoseconds(boot.downtimeMs))
    }

    /// Notes that the bulb goes down at `nowMs` for `downMs`: what it holds only while powered is lost with its
    /// power (its frame buffers out of sight, a timed effect, a wave, a power fade), and a HEV cycle under way ends
    /// interrupted, as a LIFX Clean's does, which is a change to save.
    func reboot(_ light: LightID, atMs nowMs: Double, downMs: Double) {
        boots.withLock { $0[light] = Boot(upSinceMs: nowMs + downMs, downtimeMs: downMs) }
        frameBuffers.withLock { $0[light] = nil }
        timedEffects.withLock { $0[light] = nil }
        waveforms.withLock { $0[light] = nil }
        powerFades.withLock { $0[light] = nil }
        let interrupted = hevStates.withLock { $0[light]?.interrupt(atMs: nowMs) ?? false }
        if interrupted { changed(light) }
    }

    /// Forgets everything kept for a light removed.
    func forget(_ light: LightID) {
        boots.withLock { $0[light] = nil }
        clear(light)
        unsaved.withLock { _ = $0.remove(light) }
    }

    /// Empties what is saved for `light`, or for every bulb when `nil`, and what it holds only in memory (frame
    /// buffers, timed effects, waves, power fades): the one list of what a bulb keeps here.
    func clear(_ light: LightID? = nil) {
        func empty<Kept>(_ table: Locked<[LightID: Kept]>) {
            table.withLock { kept in
                if let light { kept[light] = nil } else { kept = [:] }
            }
        }
        empty(locations)
        empty(groups)
        empty(infraredLevels)
        empty(hevStates)
        empty(zoneStates)
        empty(matrixStates)
        empty(frameBuffers)
        empty(tilePositions)
        empty(multiZoneEffects)
        empty(tileEffects)
        empty(timedEffects)
        empty(waveforms)
        empty(powerFades)
        empty(powerMessagesTakenMs)
        empty(givenColors)
    }

    static func nanoseconds(_ ms: Double) -> UInt64 { ms > 0 ? UInt64(ms * 1_000_000) : 0 }
}
