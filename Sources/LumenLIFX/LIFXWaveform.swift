#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A waveform as a client asks for one (`SetWaveform`, `SetWaveformOptional`): the colour it moves towards, and
/// the shape, period and number of cycles it moves in.
struct LIFXWave: Sendable, Hashable {
    /// How the colour moves within each cycle (the message's `waveform`).
    enum Shape: UInt8, Sendable, Hashable {
        /// From the colour it started at straight to the wave's colour, then back at once.
        case saw = 0
        /// From the colour it started at to the wave's colour and back, smoothly.
        case sine = 1
        /// From the colour it started at to the wave's colour smoothly, then back at once.
        case halfSine = 2
        /// From the colour it started at straight to the wave's colour and straight back.
        case triangle = 3
        /// The wave's colour for the first part of the cycle (1 − `skew_ratio`), the colour it started at for
        /// the rest.
        case pulse = 4
    }

    /// Whether the bulb comes back to the colour it started at when the wave ends.
    var transient: Bool
    var color: HSBK
    /// How long a cycle takes.
    var periodMs: UInt32
    /// How many cycles it runs (a fraction runs part of the last).
    var cycles: Float
    /// The message's `skew_ratio`: −32768 to 32767 for 0 to 1.
    var skewRatio: Int16 = 0
    /// The shape; one Lumen does not know is drawn as a saw.
    var shape: Shape = .saw

    /// The whole wave's length, `period` × `cycles`; cycles that are not a number, or negative, make none.
    var lengthMs: Double { Double(periodMs) * Double(cycles.isFinite ? max(0, cycles) : 0) }

    /// Whether the bulb stays on the wave's colour when the wave ends: not for a transient wave, nor for a sine or
    /// a triangle, which come back to where they began, as LIFX documents its waveforms.
    var endsOnColor: Bool { !transient && shape != .sine && shape != .triangle }

    /// How far from the colour it started at towards the wave's colour the bulb is, 0 to 1, `elapsedMs` into the
    /// wave: in each cycle, as the shape draws it.
    func share(atElapsedMs elapsedMs: Double) -> Double {
        let length = lengthMs
        guard elapsedMs < length, periodMs > 0 else { return endsOnColor ? 1 : 0 }
        let phase = max(0, elapsedMs).truncatingRemainder(dividingBy: Double(periodMs)) / Double(periodMs)
        switch shape {
        case .saw: return phase
        case .sine: return (1 - cos(2 * Double.pi * phase)) / 2
        case .halfSine: return (1 - cos(Double.pi * phase)) / 2
        case .triangle: return phase < 0.5 ? 2 * phase : 2 * (1 - phase)
        case .pulse:
            let skew = (Double(skewRatio) + 32_768) / 65_535
            return phase < 1 - skew ? 1 : 0
        }
    }
}

extension LIFXWave {
    /// Reads the fields both waveform messages share, from the reserved byte to the waveform.
    init(_ reader: inout LIFXReader) {
        reader.skip(1)
        let transient = reader.uint8() != 0
        let color = HSBK(&reader)
        let period = reader.uint32()
        let cycles = Float(bitPattern: reader.uint32())
        let skew = Int16(bitPattern: reader.uint16())
        let shape = Shape(rawValue: reader.uint8()) ?? .saw
        self.init(
            transient: transient, color: color, periodMs: period, cycles: cycles, skewRatio: skew, shape: shape)
    }
}

/// A wave a bulb is drawing, on the simulation clock: from the colour it showed when the wave began towards the
/// wave's colour (only the parts a `SetWaveformOptional` names move), ending where ``LIFXWave/endsOnColor`` says.
struct LIFXWaveform: Sendable, Hashable {
    var wave: LIFXWave
    /// The colour the bulb showed when the wave began.
    var from: HSBK
    /// The colour the wave moves towards: the wave's own, with the parts it does not set left as `from`.
    var to: HSBK
    /// When it began, in simulation milliseconds.
    var startMs: Double

    /// When it ends, in simulation milliseconds.
    var endMs: Double { startMs + wave.lengthMs }

    /// The colour the bulb shows at `nowMs`: part of the way from `from` to `to` as the wave draws it, and once it
    /// ends the colour it ends on.
    func color(atMs nowMs: Double) -> HSBK {
        let share = wave.share(atElapsedMs: nowMs - startMs)
        if share <= 0 { return from }
        if share >= 1 { return to }
        return from.interpolated(to: to, by: share)
    }
}
