import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// The shape of `bulb`'s chain: its product's. A bulb of no matrix product is never asked (its matrix messages
    /// are unhandled, ``LIFXRequest/isSupported(by:)``); it would read as a Tile.
    func matrixGeometry(of bulb: LIFXLight) -> LIFXMatrixGeometry {
        LIFXProduct.matrixGeometry(of: bulb.light.model.lifxProductID) ?? .tile
    }

    /// The pixels `bulb` keeps now that its light shows `light` (``LIFXMatrix/current(_:light:geometry:)``).
    func keptPixels(of bulb: LIFXLight, light: HSBK) -> LIFXMatrix {
        LIFXMatrix.current(
            records.matrixStates.withLock { $0[bulb.light.id] }, light: light, geometry: matrixGeometry(of: bulb))
    }

    /// The pixels of `bulb` (a matrix) whose light is in `state`, as shown at `nowMs` of simulation time, in a turn
    /// of `home`: a pixel fading is read part of the way there.
    func matrix(of bulb: LIFXLight, from state: LightState, atMs nowMs: Double, in home: isolated Home) -> LIFXMatrix {
        let light = records.color(of: bulb.light.id, in: state, model: bulb.light.model)
        let pixels = keptPixels(of: bulb, light: light)
        // A chain draws a wave as one colour.
        if let waving = waveColor(of: bulb, atMs: nowMs, in: home) {
            return LIFXMatrix(
                geometry: pixels.geometry, base: pixels.base,
                colors: Array(repeating: waving, count: pixels.colors.count))
        }
        return LIFXMatrix(geometry: pixels.geometry, base: pixels.base, colors: pixels.shown(atMs: nowMs))
    }

    /// Sets the pixels of `rect` on `bulb` to `colors`, in a turn of `home`. One colour over every pixel of the
    /// chain is a change to the light, made over `durationMs` as `SetColor`'s; pixels of different colours are kept
    /// beside the light as the message arrives. Into a frame buffer other than the one shown, the colours are drawn
    /// out of sight as the message arrives (``drawingOutOfSight(into:of:in:_:)``).
    ///
    /// Each message is placed over the pixels as the one before left them, as it arrives, under the records'
    /// lock: lifxlan paints a chain a tile a thread, all at once, and the last tile painted makes the chain one
    /// colour. A message the bulb then loses is taken back, unless another was placed since.
    func setPixels(
        _ colors: [HSBK], in rect: LIFXTileRect, durationMs: UInt32, on bulb: LIFXLight, from sender: () -> String,
        in home: isolated Home
    ) -> Started {
        guard rect.frameBuffer == 0 else {
            return drawingOutOfSight(into: rect.frameBuffer, of: bulb, in: home) { _ = $0.draw(colors, in: rect) }
        }
        return showPixels(on: bulb, durationMs: durationMs, from: sender, in: home) { $0.set(colors, in: rect) }
    }

    /// Starts `CopyFrameBuffer` on `bulb`, in a turn of `home`. Copied to the frame buffer shown, the pixels show
    /// as `Set64`'s do; to another, out of sight as the message arrives. A frame buffer no client drew into
    /// holds what the chain showed when it was first read.
    func copyFrame(_ copy: LIFXFrameCopy, on bulb: LIFXLight, from sender: () -> String, in home: isolated Home)
        -> Started
    {
        let buffers = LIFXFrameCopy.frameBuffers
        guard buffers.contains(copy.source), buffers.contains(copy.destination) else {
            return Started(awaiting: delivery(to: bulb, in: home))
        }
        let id = bulb.light.id
        let geometry = matrixGeometry(of: bulb)
        let light = records.color(of: id, in: reportedState(of: bulb, in: home), model: bulb.light.model)
        let source: @Sendable ([HSBK]) -> [HSBK] = { [records] shown in
            guard copy.source != 0, let drawn = records.frameBuffers.withLock({ $0[id]?[copy.source] }),
                drawn.count == shown.count
            else { return shown }
            return drawn
        }
        guard copy.destination == 0 else {
            let shown = keptPixels(of: bulb, light: light)
            let copied = source(shown.colors)
            return drawingOutOfSight(into: copy.destination, of: bulb, in: home) { pixels in
                pixels.colors = copy.copy(copied, over: pixels.colors, in: geometry)
            }
        }
        return showPixels(on: bulb, durationMs: copy.durationMs, from: sender, in: home) { pixels in
            let copied = copy.copy(source(pixels.colors), over: pixels.colors, in: geometry)
            defer { pixels.colors = copied }
            return copied != pixels.colors
        }
    }

    /// Draws with `draw` into frame buffer `index` (not the one shown) of `bulb` as the message arrives, in a turn
    /// of `home`, as pixels shown are placed: a copy read after it copies what it drew (an animation sends both
    /// without waiting). One the bulb lacks is left alone. Taken back if the bulb never takes the message, unless
    /// another was drawn since.
    func drawingOutOfSight(
        into index: UInt8, of bulb: LIFXLight, in home: isolated Home, _ draw: (inout LIFXMatrix) -> Void
    ) -> Started {
        let awaiting = delivery(to: bulb, in: home)
        if case .never = awaiting { return Started(awaiting: .never) }
        guard index != 0, LIFXFrameCopy.frameBuffers.contains(index) else { return Started(awaiting: awaiting) }
        let id = bulb.light.id
        let light = records.color(of: id, in: reportedState(of: bulb, in: home), model: bulb.light.model)
        let shown = keptPixels(of: bulb, light: light)
        let (before, after) = records.frameBuffers.withLock { buffers in
            let before = buffers[id]?[index]
            // A buffer drawn for another shape is drawn over afresh. Defensive: a light's product does not change
            // while lumend runs, and frame buffers are not saved.
            let drawn = before.flatMap { $0.count == shown.colors.count ? $0 : nil }
            var pixels = LIFXMatrix(geometry: shown.geometry, base: light, colors: drawn ?? shown.colors)
            draw(&pixels)
            buffers[id, default: [:]][index] = pixels.colors
            return (before, pixels.colors)
        }
        return Started(
            awaiting: awaiting,
            takeBack: { [records] in
                records.frameBuffers.withLock { buffers in
                    if buffers[id]?[index] == after { buffers[id, default: [:]][index] = before }
                }
            })
    }

    /// Changes the pixels `bulb` shows with `change` (which says whether it placed any) as the message arrives, in
    /// a turn of `home`; taken back if the bulb never takes the message, unless another was placed since.
    func showPixels(
        on bulb: LIFXLight, durationMs: UInt32, from sender: () -> String, in home: isolated Home,
        _ change: (inout LIFXMatrix) -> Bool
    ) -> Started {
        let id = bulb.light.id
        let geometry = matrixGeometry(of: bulb)
        let light = records.color(of: id, in: reportedState(of: bulb, in: home), model: bulb.light.model)
        let now = home.nowMilliseconds
        let placed = records.matrixStates.withLock { kept -> (before: LIFXMatrix?, after: LIFXMatrix)? in
            var pixels = LIFXMatrix.current(kept[id], light: light, geometry: geometry)
            // Pixels of different colours fade from the message's arrival, as the bulb starts on it.
            guard pixels.change(atMs: now, durationMs: Double(durationMs), change) else { return nil }
            let before = kept[id]
            // One colour over every pixel shows when the light takes it, as the light's own colour does.
            if !pixels.isOneColour { kept[id] = pixels }
            return (before, pixels)
        }
        let oneColour = placed.flatMap { $0.after.isOneColour ? $0.after.colors.first : nil }
        let started = placing(oneColour, over: light, durationMs: durationMs, on: bulb, from: sender, in: home) {
            [records] in
            guard let placed, !placed.after.isOneColour else { return }
            records.matrixStates.withLock { kept in
                if kept[id] == placed.after { kept[id] = placed.before }
            }
        }
        if oneColour != nil {
            started.awaiting.whenTaken { _ in self.followLight(bulb, unlessChangedFrom: nil, pixels: placed?.before) }
        }
        return started
    }

    /// A `State64` for each tile of `rect` the chain has, read in a turn of `home`.
    func pixelStates(_ rect: LIFXTileRect, of bulb: LIFXLight, after state: LightState, in home: isolated Home)
        -> [LIFXReply]
    {
        matrix(of: bulb, from: state, atMs: home.nowMilliseconds, in: home).read(rect).map { tile, colors in
            .state64(tile: UInt8(tile), x: rect.x, y: rect.y, width: rect.width, colors)
        }
    }

    /// The tiles of `bulb`'s chain, as many as its product has: each where a client placed it, else in a row
    /// from the first (a Candle's one at the origin).
    func chain(of bulb: LIFXLight) -> [LIFXTileDevice] {
        let placed = records.tilePositions.withLock { $0[bulb.light.id] } ?? [:]
        let product = bulb.light.model.lifxProductID
        let geometry = matrixGeometry(of: bulb)
        return (0..<geometry.tiles).map { tile in
            let position = placed[tile] ?? SIMD2(Float(tile), 0)
            return LIFXTileDevice(
                userX: position.x, userY: position.y, width: UInt8(geometry.width), height: UInt8(geometry.height),
                product: product)
        }
    }
}
