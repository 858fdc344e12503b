import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Synchronization

/// The bulbs on the LIFX LAN: each light whose network is `lifx-lan` answers the LIFX LAN protocol for itself,
/// over the same ``Home`` as the scope protocol and the Hue bridge.
///
/// A query (`Get…`) is answered from the light's state; a change goes to the light as one command and is
/// answered (acknowledged, or with its state when asked) once the light took it, after its latency, and on
/// disk under full durability. A query is answered at once, as firmware answers from memory, in one turn of the
/// home; every message counts against the bulb's rate limit. A bulb that cannot be reached, or drops the message
/// (its rate limit, a lost frame), answers nothing: the client times out, as it does on a real LAN.
/// `docs/lifx.md` lists every message.
public final class LIFXFront: Sendable {
    let scopeContext: ScopeContext
    /// The UDP port the bulbs say they serve (`StateService`).
    let port: UInt32
    /// The first bulb's address, in the home's order; the others take the next ones, unless their fixture gives
    /// them their own (`lifx.address`).
    public let firstAddress: IPv4Address
    /// Datagrams dropped as malformed, since the front started.
    public let malformed = Atomic<Int>(0)
    /// The bulb answers in progress across every bulb, and those dropped because they did not fit.
    public let budget: LIFXAnswerBudget
    /// What the bulbs keep as devices: boots, and the locations and groups clients gave them.
    let records: LIFXDeviceRecords
    /// The addresses given by count to bulbs with none of their own (``bulbs(_:)``), each kept while lumend runs,
    /// so that a bulb added or removed does not move the others, and the lights each serial names. Taken only in
    /// a turn of the home, which orders the bulbs it counts.
    let book = Locked(LIFXAddressBook())
    /// The digest of the home's ID that every bulb's serial is worked out from: made once, as every datagram
    /// checks the serials it names.
    let homeDigest: UInt64

    /// How long a bulb is dark when a client reboots it (`SetReboot`).
    static let rebootMs: Double = 2_000
    /// The Wi-Fi signal every bulb hears: -55 dBm, good but not next to the access point, as milliwatts.
    static let wifiSignal = Float(3.162_277_7e-6)
    /// The firmware every bulb runs: 3.90, built 2023-11-14 (nanoseconds since 1970), a third-generation
    /// bulb's.
    static let firmware = (build: UInt64(1_700_000_000_000_000_000), major: UInt16(3), minor: UInt16(90))

    /// What is wrong with an address a bulb is to answer at (it is not this machine's), if anything: checked for
    /// a bulb that comes while lumend runs, as lumend checks every bulb at start.
    let addressProblem: (@Sendable (IPv4Address) -> String?)?
    /// Where the front says what an operator should know of a bulb that came: an address it cannot answer at.
    let report: @Sendable (String) -> Void

    /// A front over the home of `scopeContext`, its bulbs serving on `port` from `firstAddress` on and answering
    /// within `budget`, up since `startedAtMs` of the home's simulation time.
    /// - Parameters:
    ///   - addressProblem: what is wrong with a bulb's address, if anything, asked of a bulb that comes while
    ///     lumend runs; what it says goes to `report`, with what a bulb that came moved.
    public init(
        scopeContext: ScopeContext, port: UInt16, firstAddress: IPv4Address = IPv4Address(value: 0x7F00_0001),
        startedAtMs: Double = 0, budget: LIFXAnswerBudget = LIFXAnswerBudget(),
        addressProblem: (@Sendable (IPv4Address) -> String?)? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.addressProblem = addressProblem
        self.report = report
        records = LIFXDeviceRecords(startedAtMs: startedAtMs, wallClock: scopeContext.home.wallClock)
        self.scopeContext = scopeContext
        self.port = UInt32(port)
        self.firstAddress = firstAddress
        self.budget = budget
        homeDigest = DeviceSerial.digest(home: scopeContext.home.fixtureID)
        scopeContext.home.addFrontListener { [weak self] home, news in self?.hear(news, in: home) }
    }

    /// Brings what the bulbs hold in memory to what the home now keeps, as `news` tells, in the home's turn that
    /// made the news: a reset or restore reads the bulbs' record again, a light removed is forgotten, a power cut
    /// reboots the bulb (what that ends is saved), a light that came is given its address, a light whose settings
    /// changed may be a bulb not yet given one.
    func hear(_ news: FrontNews, in home: isolated Home) {
        switch news {
        case .lightAdded(let light): place(light, in: home)
        case .restored:
            // A light may have come back, or another fixture's address be given: every bulb is looked at again.
            book.withLock { $0.isComplete = false }
            records.reload(from: home)
        case .settingsChanged:
            // A light may be on the LIFX LAN now, or have lost its fixture's address, with none counted yet.
            book.withLock { $0.isComplete = false }
        case .lightRemoved(let light): records.forget(light)
        case .timedEffectChanged: break
        case .powerCut(let light, let downMs):
            // Read first, so that a cycle kept in the record is the one the power cut ends; saved at once, as
            // no client's message may come to save it.
            records.loadOnce(from: home)
            records.reboot(light, atMs: home.nowMilliseconds, downMs: downMs)
            records.save(to: home)
        }
    }

    var home: Home { scopeContext.home }

    /// Sends a bulb's replies, from the bulb's address.
    public typealias Send = @Sendable (_ datagrams: [[UInt8]], _ from: IPv4Address?) -> Void

    /// The work that answers one datagram sent to `address` (one of the host's; `nil` for a broadcast) from
    /// `sender` (its address, `127.0.0.1:51234`, which the command record names as the commands' sender), sending
    /// each bulb's replies through `send` from that bulb's address as that bulb is done; `nil` for a malformed
    /// datagram (counted), a reply sent to a bulb (which bulbs do not answer), or a broadcast to every bulb while
    /// ``LIFXAnswerBudget/maxBroadcasts`` are in progress (counted).
    ///
    /// A broadcast to every bulb takes its place in ``budget`` here, as the datagram is read, and gives it back
    /// when its work is done: the work must be run. One beyond those in progress is dropped before any work is
    /// made for it and before its sender is read, so that a flood of broadcasts costs little more than reading it.
    /// - Parameter reaching: for a broadcast, which bulbs it reaches, by address (`nil`: every bulb); made once
    ///   the broadcast is taken, and asked of each bulb as it is answered, so that a bulb added meanwhile is asked
    ///   about as one found at start.
    public func respond(
        to datagram: [UInt8], at address: IPv4Address? = nil, from sender: @escaping @Sendable () -> String,
        reaching: (@Sendable () -> @Sendable (IPv4Address) -> Bool)? = nil
    ) -> (@Sendable (_ send: @escaping Send) async -> Void)? {
        home.noteRequest()
        guard let packet = try? LIFXPacket(bytes: datagram) else {
            malformed.add(1, ordering: .relaxed)
            return nil
        }
        guard !LIFXReply.types.contains(packet.type) else { return nil }
        let everyBulb = addressee(of: packet, at: address) == .every
        if everyBulb {
            guard budget.beginBroadcast() else { return nil }
        }
        return { [self] send in
            defer { if everyBulb { budget.endBroadcast() } }
            await answer(packet, at: address, from: { "lifx \(sender())" }, reaching: reaching?(), send)
        }
    }

    /// The bulbs a datagram reaches: sent to one bulb's address, that bulb alone (if it names no other, as a
    /// client that knows only the address sends it); broadcast, the bulb it names, or every bulb when it names
    /// none (tagged, or a target of zeros).
    func addressee(of packet: LIFXPacket, at address: IPv4Address?) -> LIFXAddressee {
        let target = Array(packet.target.prefix(6))
        let namesNone = packet.tagged || target.allSatisfy { $0 == 0 }
        switch (address, namesNone) {
        case (let address?, true): return .address(address)
        case (let address?, false): return .both(address, serial: target)
        case (nil, true): return .every
        case (nil, false): return .serial(target)
        }
    }

    /// Every addressed bulb's replies to `packet`, each bulb's sent through `send` as it is done: a slow bulb
    /// does not hold up the others. Every addressed bulb is found and the message started on each in one turn of
    /// the home (``start(_:of:on:from:in:)``), so that each bulb takes its messages in the order their datagrams
    /// were read: a query read after a change, a wave or zones is answered once the bulb has them. A query is
    /// answered from memory in that turn, as firmware answers; a change once the bulb took it. Each bulb's answer
    /// is worked on only if it fits in ``budget``; the bulbs that do not fit stay silent and are asked nothing. A
    /// broadcast's place among those in progress is ``respond(to:at:from:reaching:)``'s to take.
    func answer(
        _ packet: LIFXPacket, at address: IPv4Address?, from sender: @escaping @Sendable () -> String,
        reaching reaches: (@Sendable (IPv4Address) -> Bool)? = nil, _ send: @escaping Send
    ) async {
        let request = LIFXRequest(type: packet.type, payload: packet.payload)
        let addressee = addressee(of: packet, at: address)
        let everyBulb = addressee == .every
        let bytes =
            (packet.wantsAcknowledgement ? LIFXPacket.headerSize : 0)
            + (request.isQuery || packet.wantsReply ? request.stateReplySize : 0)
        // Read here rather than in a function of its own: an `async` call may take a hop of its own before it
        // reaches the home, and a datagram read after this one would then reach the bulbs first.
        let started = await home.reading { home in
            self.bulbs(addressee, in: home).compactMap { bulb -> (LIFXLight, Started)? in
                guard bulb.isReachable, address != nil || reaches?(bulb.address) ?? true,
                    self.budget.reserve(bytes: bytes, broadcast: everyBulb)
                else { return nil }
                return (bulb, self.start(request, of: packet, on: bulb, from: sender, in: home))
            }
        }
        // The answers ready now go out one bulb's after another; each that waits for its bulb to take a message
        // is finished side by side with the others, so that one slow bulb holds up no other. Most datagrams have
        // at most one to wait for, and make no group.
        var waiting: [(LIFXLight, Started)] = []
        for (bulb, started) in started {
            guard let datagrams = answeredAtOnce(packet, started, as: bulb) else {
                waiting.append((bulb, started))
                continue
            }
            if !datagrams.isEmpty { send(datagrams, bulb.address) }
            budget.release(bytes: bytes)
        }
        switch waiting.count {
        case 0:
            return
        case 1:
            let (bulb, started) = waiting[0]
            defer { budget.release(bytes: bytes) }
            let datagrams = await finish(packet, request, started, as: bulb)
            if !datagrams.isEmpty { send(datagrams, bulb.address) }
        default:
            await withTaskGroup(of: Void.self) { group in
                for (bulb, started) in waiting {
                    group.addTask {
                        defer { self.budget.release(bytes: bytes) }
                        let datagrams = await self.finish(packet, request, started, as: bulb)
                        if !datagrams.isEmpty { send(datagrams, bulb.address) }
                    }
                }
            }
        }
    }

    /// What a message to one bulb started in the turn of the home that found it (``start(_:of:on:from:in:)``):
    /// what the bulb's answer waits for, and what is left to do once the bulb took the message, or never will.
    struct Started: Sendable {
        /// What the bulb's answer waits for.
        enum Awaiting: Sendable {
            /// Nothing: the bulb's state now, from memory.
            case now(LightState)
            /// The message on its way: the bulb's state once it took it.
            case delivery(CommandTicket)
            /// A change on its way: the light's state once it took it and the change is durable.
            case change(CommandReceipt)
            /// The bulb never answers: it could not be reached, dropped the message, or the home refused the change.
            case never

            /// Calls `body` with the bulb's state as it takes the message, in that turn of the home (before any
            /// question sent after it is answered): now, for one answered from memory; never, for one it never
            /// takes.
            func whenTaken(_ body: @escaping @Sendable (LightState) -> Void) {
                let ticket: CommandTicket
                switch self {
                case .now(let state): return body(state)
                case .delivery(let delivery): ticket = delivery
                case .change(let receipt): ticket = receipt.ticket
                case .never: return
                }
                ticket.whenSettled { result in if case .success(let state) = result { body(state) } }
            }
        }

        var awaiting: Awaiting
        /// Whether the message changed what the home keeps (a label): made durable before the bulb answers, as a
        /// change to the light is.
        var changesHome = false
        /// Done when the bulb never takes the message: what it placed as it arrived is taken back, unless another
        /// was placed since.
        var takeBack: (@Sendable () -> Void)? = nil
        /// The count of the records' changes before the message started: what it notes as the bulb takes it is a
        /// change of the records.
        var changesBefore = 0
        /// The bulb's state messages, when asked for, made as it takes the message (``replies(to:of:once:)``).
        var replies: Locked<[LIFXReply]>? = nil
    }

    /// Starts `request` (as `packet` carries it) on `bulb` in a turn of `home`, under `sender`'s name for the
    /// commands it sends (``ScopeContext/sending(as:_:)``, set inside the turn: set around an `await`, it could
    /// suspend the task there, and a query read after this datagram reach the bulb first).
    func start(
        _ request: LIFXRequest, of packet: LIFXPacket, on bulb: LIFXLight, from sender: () -> String,
        in home: isolated Home
    ) -> Started {
        let changesBefore = records.changes.load(ordering: .acquiring)
        let request = Self.handled(request, of: packet, by: bulb)
        var started = carryOut(request, on: bulb, from: sender, in: home)
        started.changesBefore = changesBefore
        // After what the message itself does as the bulb takes it (registered in `carryOut`), so that its replies
        // tell of it.
        if request.isQuery || packet.wantsReply {
            // Made through the light read again as the bulb takes the message, from memory too: asking the bulb may
            // have carried out a message due to it (a label).
            started.replies = replies(to: request, of: bulb, once: started.awaiting)
        }
        return started
    }

    /// `bulb`'s state messages answering `request`, made as the bulb takes the message `awaiting` waits for, in that
    /// turn of the home: what the bulb has then (a label given before it), and not what a message sent after it
    /// keeps once taken in the same turn. Read once the ticket is settled.
    func replies(to request: LIFXRequest, of bulb: LIFXLight, once awaiting: Started.Awaiting) -> Locked<[LIFXReply]> {
        let replies = Locked<[LIFXReply]>([])
        awaiting.whenTaken { [home] state in
            let made = home.assumeIsolated { home in
                var bulb = bulb
                if let light = try? home.light(bulb.light.id) { bulb.light = light }
                return self.states(answering: request, of: bulb, after: state, in: home)
            }
            replies.withLock { $0 = made }
        }
        return replies
    }

    /// One bulb's replies to a message `started` on it, once the bulb took it: an acknowledgement when asked, and
    /// its state when asked; none when the bulb never takes it.
    func finish(_ packet: LIFXPacket, _ request: LIFXRequest, _ started: Started, as bulb: LIFXLight) async
        -> [[UInt8]]
    {
        let request = Self.handled(request, of: packet, by: bulb)
        // Whether the bulb took the message: its replies were made then (``replies(to:of:once:)``).
        let taken: Bool
        switch started.awaiting {
        case .now: taken = true
        case .delivery(let ticket): taken = (try? await ticket.value) != nil
        case .change(let receipt): taken = (try? await scopeContext.settle(receipt)) != nil
        case .never: taken = false
        }
        guard taken else {
            started.takeBack?()
            return []
        }
        if started.changesHome { try? await scopeContext.commit() }
        // What the message left in the bulb's records is on disk before the bulb answers, as a change to the
        // light is. A colour is counted only when it changed (``LIFXDeviceRecords/note(_:gave:to:)``).
        if request.changesRecords, !request.givesColor { records.changed(bulb.light.id) }
        // Only a message that changes the records waits for them to be saved: a query answers at once, whatever
        // another bulb's message changed meanwhile.
        if request.changesRecords, records.changes.load(ordering: .acquiring) != started.changesBefore {
            guard await saveRecords() else { return [] }
        }
        let replies = Self.acknowledgement(of: packet) + (started.replies?.withLock { $0 } ?? [])
        return Self.datagrams(replies, answering: packet, from: bulb.serial)
    }

    /// One bulb's replies to a message `started` on it when they wait for nothing: a query answered from memory, or
    /// a message the bulb never takes (none); `nil` while the bulb has yet to take it (``finish(_:_:_:as:)``).
    func answeredAtOnce(_ packet: LIFXPacket, _ started: Started, as bulb: LIFXLight)
        -> [[UInt8]]?
    {
        switch started.awaiting {
        case .now:
            // Only a query (or a change the product lacks, answered as one) is answered from memory: nothing it did
            // is to be made durable first.
            let replies = Self.acknowledgement(of: packet) + (started.replies?.withLock { $0 } ?? [])
            return Self.datagrams(replies, answering: packet, from: bulb.serial)
        case .never:
            started.takeBack?()
            return []
        case .delivery, .change:
            return nil
        }
    }

    /// `request` as `bulb` takes it: a message for a capability the product lacks (a strip's zones on a bulb,
    /// infrared, HEV) is one it does not handle, as firmware answers it; a kelvin outside the product's range is
    /// the nearer end.
    static func handled(_ request: LIFXRequest, of packet: LIFXPacket, by bulb: LIFXLight) -> LIFXRequest {
        let model = bulb.light.model
        return request.isSupported(by: model) ? request.keepingKelvin(to: model) : .unhandled(type: packet.type)
    }

    /// The acknowledgement a bulb sends first when `packet` asks for one.
    static func acknowledgement(of packet: LIFXPacket) -> [LIFXReply] {
        packet.wantsAcknowledgement ? [.acknowledgement] : []
    }

    /// `replies` as the datagrams the bulb whose serial is `serial` sends in answer to `packet`.
    static func datagrams(_ replies: [LIFXReply], answering packet: LIFXPacket, from serial: [UInt8]) -> [[UInt8]] {
        replies.map { packet.datagram(replying: $0, from: serial) }
    }

    /// Carries out `request` on the bulb as far as the turn of `home` that starts it can: what it sends the light
    /// is sent, and what it places (zones, pixels, a wave) is placed, as it arrives; what it keeps for the bulb is
    /// kept once the bulb took it. A bulb counts every message: each counts against its rate limit and may be
    /// lost, whether or not it changes the light; all but a query wait the bulb's latency.
    func carryOut(_ request: LIFXRequest, on bulb: LIFXLight, from sender: () -> String, in home: isolated Home)
        -> Started
    {
        let id = bulb.light.id
        switch request {
        case .setPower, .setLightPower:
            guard let plain = Self.plainChange(request, kind: bulb.light.model.kind) else {
                return Started(awaiting: delivery(to: bulb, in: home))
            }
            return Started(awaiting: sendingPower(plain, to: bulb, from: sender, in: home))
        case .setColor:
            guard let plain = Self.plainChange(request, kind: bulb.light.model.kind) else {
                return Started(awaiting: delivery(to: bulb, in: home))
            }
            let awaiting = sendingColor(plain, to: bulb, from: sender, in: home)
            // A colour for the whole light: the zones and pixels follow it again once it is taken.
            followLight(bulb, once: awaiting)
            return Started(awaiting: awaiting)
        case .setWaveform(let wave):
            return draw(wave, fields: .all, on: bulb, from: sender, in: home)
        case .setWaveformOptional(let wave, let fields):
            // As a waveform, on any bulb (clients dim a white bulb with it), for the parts of the colour asked.
            return draw(wave, fields: fields, on: bulb, from: sender, in: home)
        case .setLabel(let label):
            // Taken when the bulb gets the message, after its latency; made durable before the bulb answers. A label
            // Lumen refuses as a name (empty, say) leaves the name as it was; the bulb still answers.
            return Started(
                awaiting: keeping(on: bulb, in: home) { home, _ in try? home.setName(label, of: .light(id)) },
                changesHome: true)
        case .setLocation(let group, let label, let updatedAt), .setGroup(let group, let label, let updatedAt):
            // Kept for the bulb as it is: Lumen's rooms do not move.
            let membership = LIFXDeviceRecords.Membership(id: group, label: label, updatedAt: updatedAt)
            let kept = if case .setGroup = request { records.groups } else { records.locations }
            return Started(awaiting: keeping(on: bulb, in: home) { _, _ in kept.withLock { $0[id] = membership } })
        case .setReboot:
            // The bulb takes the message, then goes dark as after a power cut and comes back as its powerOn
            // setting says; its uptime starts again when it is back. The power cut tells the front
            // (``hear(_:in:)``), which notes the boot and empties the frame buffers.
            return Started(
                awaiting: keeping(on: bulb, in: home) { home, _ in
                    try? home.powerCycle(light: id, durationMs: Self.rebootMs)
                })
        case .setInfrared(let level):
            // Lumen has no infrared to show: the level is kept for the bulb.
            return Started(
                awaiting: keeping(on: bulb, in: home) { _, _ in self.records.infraredLevels.withLock { $0[id] = level }
                })
        case .setHevCycle(let enable, let durationS):
            return Started(
                awaiting: keeping(on: bulb, in: home) { home, state in
                    self.records.setHEVCycle(
                        of: id, enable: enable, durationS: durationS, lightWasOn: state.isOn,
                        atMs: home.nowMilliseconds)
                })
        case .setHevCycleConfiguration(let indication, let durationS):
            return Started(
                awaiting: keeping(on: bulb, in: home) { _, _ in
                    self.records.setHEVConfiguration(of: id, indication: indication, durationS: durationS)
                })
        case .setColorZones(let start, let end, let color, let duration, let apply):
            let first = Int(start)
            let last = min(Int(end), LIFXZones.count - 1)
            let colors = first <= last ? Array(repeating: color, count: last - first + 1) : []
            return setZones(colors, from: first, durationMs: duration, apply: apply, on: bulb, from: sender, in: home)
        case .setExtendedColorZones(let duration, let apply, let index, let colors):
            return setZones(
                colors, from: Int(index), durationMs: duration, apply: apply, on: bulb, from: sender, in: home)
        case .set64(let rect, let duration, let colors):
            return setPixels(colors, in: rect, durationMs: duration, on: bulb, from: sender, in: home)
        case .copyFrameBuffer(let copy):
            return copyFrame(copy, on: bulb, from: sender, in: home)
        case .setUserPosition(let tile, let x, let y):
            return Started(
                awaiting: keeping(on: bulb, in: home) { _, _ in
                    // Kept for the tile, unless the chain lacks it or the place is not a finite number.
                    if Int(tile) < self.matrixGeometry(of: bulb).tiles, x.isFinite, y.isFinite {
                        self.records.tilePositions.withLock { $0[id, default: [:]][Int(tile)] = SIMD2(x, y) }
                    }
                })
        case .setTileEffect(let given), .setMultiZoneEffect(let given):
            // Kept and reported until its duration ends, not drawn: Lumen's light has one colour.
            let kind: LIFXDeviceRecords.EffectKind = if case .setTileEffect = request { .tile } else { .multiZone }
            let effect = given.isOne(of: kind) ? given : .none
            return Started(
                awaiting: keeping(on: bulb, in: home) { home, _ in
                    self.records.setEffect(effect, kind, of: id, atMs: home.nowMilliseconds)
                })
        case .getService, .getHostInfo, .getHostFirmware, .getWifiInfo, .getWifiFirmware, .getPower, .getLabel,
            .getVersion, .getInfo, .getLocation, .getGroup, .echo, .getColor, .getLightPower, .getInfrared,
            .getHevCycle, .getHevCycleConfiguration, .getLastHevCycleResult, .getColorZones, .getExtendedColorZones,
            .getMultiZoneEffect, .getDeviceChain, .get64, .getTileEffect, .unhandled:
            // A query: answered from the bulb's memory at once, as firmware does; the latency models carrying out
            // a change. Listed, not `default`, so that a message added later is placed here on purpose; a change the
            // product lacks the capability for comes here too, answered as `unhandled`.
            switch try? home.queryAtOnce(id) {
            case .now(let state)?: return Started(awaiting: .now(state))
            case .afterEarlierChanges(let ticket)?: return Started(awaiting: .delivery(ticket))
            case nil: return Started(awaiting: .never)
            }
        }
    }

    /// What the bulb's answer to a message that changes none of its light waits for: the message reaching the
    /// bulb, after its latency, taken as a question in a turn of `home`; never, when the bulb cannot be reached or
    /// drops it.
    /// - Parameter holdingLater: whether a message sent after it waits until the bulb took it (a wave, which the
    ///   bulb starts drawing then).
    func delivery(to bulb: LIFXLight, holdingLater: Bool = false, in home: isolated Home) -> Started.Awaiting {
        guard let ticket = try? home.query(bulb.light.id, holdingLater: holdingLater) else { return .never }
        return .delivery(ticket)
    }

    /// What the answer to a message that keeps something for `bulb` (its label, its location, a HEV cycle) waits
    /// for: the message reaching the bulb, after its latency, holding whatever is sent to the bulb after it until
    /// then, as a bulb takes its messages in order. `keep` runs in the turn of `home` that the bulb takes it in,
    /// with the light's state then, so that a query sent after it (and answered once it is taken) reads what it
    /// kept.
    func keeping(
        on bulb: LIFXLight, in home: isolated Home,
        _ keep: @escaping @Sendable (_ home: isolated Home, _ state: LightState) -> Void
    ) -> Started.Awaiting {
        let awaiting = delivery(to: bulb, holdingLater: true, in: home)
        // The ticket settles in a turn of the home (``CommandTicket/whenSettled(_:)``): this one, or the later one
        // the message arrives in.
        awaiting.whenTaken { [home] state in home.assumeIsolated { home in keep(home, state) } }
        return awaiting
    }

    /// Sends `plain` to `bulb`'s light in a turn of `home` as `sender`'s command (``ScopeContext/sending(as:_:)``),
    /// no longer than Lumen simulates; what the bulb's answer waits for. The colour it gives is noted as the light
    /// takes it: a question the bulb answers right after it (one sent while the change was on its way) reports the
    /// colour as given.
    func sending(
        _ plain: (change: LightChange, given: HSBK?, transitionMs: Double), to bulb: LIFXLight,
        from sender: () -> String, in home: isolated Home
    ) -> Started.Awaiting {
        let transitionMs = min(plain.transitionMs, SimulatedDurations.longestTransitionMs)
        let sent = scopeContext.sending(as: sender()) {
            Result { () throws(LumenError) in try home.send(plain.change, to: bulb.light.id, transitionMs: transitionMs)
            }
        }
        guard case .success(let receipt) = sent else { return .never }
        if let color = plain.given { note(color, for: bulb, once: .change(receipt)) }
        return .change(receipt)
    }

    /// The change of the light alone that `request` asks of a light of `kind` (power, colour), with the colour it
    /// gives and its transition; `nil` for any other message, or one that changes nothing of such a light.
    static func plainChange(_ request: LIFXRequest, kind: LightKind)
        -> (change: LightChange, given: HSBK?, transitionMs: Double)?
    {
        var change = LightChange()
        var (given, transitionMs): (HSBK?, Double) = (nil, 0)
        switch request {
        case .setPower(let level):
            change.isOn = level > 0
        case .setLightPower(let level, let duration):
            change.isOn = level > 0
            transitionMs = Double(duration)
        case .setColor(let color, let duration):
            change = color.change(for: kind)
            given = color
            transitionMs = Double(duration)
        default:
            return nil
        }
        return change.properties.isEmpty ? nil : (change, given, transitionMs)
    }

    /// Notes `color` as what the message `awaiting` waits for left `bulb`'s light in, as the bulb takes it
    /// (``LIFXDeviceRecords/note(_:gave:to:)``).
    func note(_ color: HSBK, for bulb: LIFXLight, once awaiting: Started.Awaiting) {
        let id = bulb.light.id
        awaiting.whenTaken { [records] state in records.note(color, gave: state, to: id) }
    }

    /// Makes `bulb`'s zones and pixels, as they are now, follow its light again as the bulb takes the message
    /// `awaiting` waits for, one colour for the whole light (``followLight(_:unlessChangedFrom:pixels:)``).
    func followLight(_ bulb: LIFXLight, once awaiting: Started.Awaiting) {
        let id = bulb.light.id
        let arrived = (zones: records.zoneStates.withLock { $0[id] }, pixels: records.matrixStates.withLock { $0[id] })
        awaiting.whenTaken { _ in self.followLight(bulb, unlessChangedFrom: arrived.zones, pixels: arrived.pixels) }
    }

    /// Saves the bulbs' record with the home and waits until it is durable, when writes must be before they are
    /// answered.
    /// - Returns: whether it was saved; a bulb whose change could not be made durable answers nothing.
    func saveRecords() async -> Bool {
        await home.reading { home in self.records.save(to: home) }
        do {
            try await scopeContext.commit()
            return true
        } catch {
            return false
        }
    }
}
