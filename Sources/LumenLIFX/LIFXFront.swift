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
/// disk under full durability. Every message waits the bulb's latency and counts against its rate limit. A bulb
/// that cannot be reached, or drops the message (its rate limit, a lost frame), answers nothing: the client
/// times out, as it does on a real LAN. `docs/lifx.md` lists every message.
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

    /// A front over the home of `scopeContext`, its bulbs serving on `port` from `firstAddress` on and answering
    /// within `budget`.
    public init(
        scopeContext: ScopeContext, port: UInt16, firstAddress: IPv4Address = IPv4Address(value: 0x7F00_0001),
        budget: LIFXAnswerBudget = LIFXAnswerBudget()
    ) {
        self.scopeContext = scopeContext
        self.port = UInt32(port)
        self.firstAddress = firstAddress
        self.budget = budget
    }

    var home: Home { scopeContext.home }

    /// Sends a bulb's replies, from the bulb's address.
    public typealias Send = @Sendable (_ datagrams: [[UInt8]], _ from: IPv4Address?) -> Void

    /// The work that answers one datagram sent to `address` (one of the host's; `nil` for a broadcast) from
    /// `sender` (its address, `127.0.0.1:51234`, which the command record names as the commands' sender), sending
    /// each bulb's replies through `send` from that bulb's address as that bulb is done; `nil` for a malformed
    /// datagram (counted) or a reply sent to a bulb (which bulbs do not answer).
    public func respond(
        to datagram: [UInt8], at address: IPv4Address? = nil, from sender: @escaping @Sendable () -> String
    ) -> (@Sendable (_ send: @escaping Send) async -> Void)? {
        guard let packet = try? LIFXPacket(bytes: datagram) else {
            malformed.add(1, ordering: .relaxed)
            return nil
        }
        guard !LIFXReply.types.contains(packet.type) else { return nil }
        return { [self] send in await answer(packet, at: address, from: { "lifx \(sender())" }, send) }
    }

    /// The bulbs a datagram reaches: sent to one bulb's address, that bulb alone (if it names no other, as a
    /// client that knows only the address sends it); broadcast, the bulb it names, or every bulb when it names
    /// none (tagged, or a target of zeros).
    func addressee(of packet: LIFXPacket, at address: IPv4Address?) -> Home.LIFXAddressee {
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
    /// does not hold up the others. Each bulb's answer is worked on only if it fits in ``budget``; the bulbs
    /// that do not fit stay silent.
    func answer(
        _ packet: LIFXPacket, at address: IPv4Address?, from sender: @escaping @Sendable () -> String,
        _ send: @escaping Send
    ) async {
        let request = LIFXRequest(type: packet.type, payload: packet.payload)
        let addressee = addressee(of: packet, at: address)
        let everyBulb = addressee == .every
        if everyBulb {
            guard budget.beginBroadcast() else { return }
        }
        defer { if everyBulb { budget.endBroadcast() } }
        let addressed = await home.lifxLights(first: firstAddress, addressee).filter(\.isReachable)
        let bytes =
            (packet.wantsAcknowledgement ? LIFXPacket.headerSize : 0)
            + (request.isQuery || packet.wantsReply ? request.stateReplySize : 0)
        // A message to one bulb is answered on this task; only several bulbs answer side by side.
        if addressed.count == 1, let bulb = addressed.first {
            guard budget.reserve(bytes: bytes, broadcast: everyBulb) else { return }
            defer { budget.release(bytes: bytes) }
            let replies = await answer(packet, request, as: bulb, from: sender)
            if !replies.isEmpty { send(replies, bulb.address) }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for bulb in addressed {
                // Reserved before the task is made: a bulb answer that does not fit costs nothing more.
                guard budget.reserve(bytes: bytes, broadcast: everyBulb) else { continue }
                group.addTask {
                    defer { self.budget.release(bytes: bytes) }
                    let replies = await self.answer(packet, request, as: bulb, from: sender)
                    if !replies.isEmpty { send(replies, bulb.address) }
                }
            }
        }
    }

    /// Every addressed bulb's replies to `packet`, gathered: for tests.
    func answer(_ packet: LIFXPacket, at address: IPv4Address? = nil, from sender: String = "lifx test") async
        -> [[UInt8]]
    {
        let gathered = Mutex<[[UInt8]]>([])
        await answer(packet, at: address, from: { sender }) { replies, _ in gathered.withLock { $0 += replies } }
        return gathered.withLock { $0 }
    }

    /// One bulb's replies: an acknowledgement when asked, and its state when asked or when queried.
    func answer(
        _ packet: LIFXPacket, _ request: LIFXRequest, as bulb: LIFXLight, from sender: @escaping @Sendable () -> String
    ) async
        -> [[UInt8]]
    {
        var replies: [LIFXReply] = []
        if let state = await carryOut(request, on: bulb, from: sender) {
            if packet.wantsAcknowledgement { replies.append(.acknowledgement) }
            if request.isQuery || packet.wantsReply {
                replies.append(await self.state(answering: request, of: bulb, after: state))
            }
        }
        return replies.map { packet.reply(type: $0.type, payload: $0.payload, from: bulb.serial).bytes }
    }

    /// Carries out `request` on the bulb and returns its state after; `nil` when the bulb never answers (it
    /// could not be reached, or dropped the message). A bulb counts every message: each waits the bulb's
    /// latency, counts against its rate limit and may be lost, whether or not it changes the light.
    func carryOut(_ request: LIFXRequest, on bulb: LIFXLight, from sender: @escaping @Sendable () -> String) async
        -> LightState?
    {
        let kind = bulb.light.model.kind
        var change = LightChange()
        var transitionMs: Double = 0
        switch request {
        case .setPower(let level):
            change.isOn = level > 0
        case .setLightPower(let level, let duration):
            change.isOn = level > 0
            transitionMs = Double(duration)
        case .setColor(let color, let duration):
            change = color.change(for: kind)
            transitionMs = Double(duration)
        case .setWaveform(let transient, let color, let period, let cycles):
            // Lumen does not draw the wave: a transient one leaves the light as it was, the others end on
            // the colour, reached over the wave's whole length.
            if kind.supports(.color), !transient {
                change = color.change(for: kind)
                transitionMs = Double(period) * Double(cycles.isFinite ? max(0, cycles) : 0)
            }
        case .setLabel(let label):
            // Taken when the bulb gets the message, after its latency. A label Lumen refuses as a name (empty,
            // say) leaves the name as it was; the bulb still answers.
            guard let state = await delivered(to: bulb) else { return nil }
            try? await scopeContext.rename(.light(bulb.light.id), to: label)
            return state
        case .getService, .getHostFirmware, .getPower, .getLabel, .getVersion, .getLocation, .getGroup, .echo,
            .getColor, .getLightPower, .unhandled:
            // A query: nothing to change. Listed, not `default`, so that a message added later is placed here
            // on purpose.
            break
        }
        guard !change.properties.isEmpty else { return await delivered(to: bulb) }
        do {
            return try await scopeContext.perform(
                change, to: bulb.light.id, transitionMs: min(transitionMs, SimulatedDurations.longestMs),
                from: sender())
        } catch {
            // A bulb answers nothing it did not take: the client times out.
            return nil
        }
    }

    /// The bulb's state once a message that changes nothing reaches it, after its latency; `nil` when it never
    /// does (the bulb could not be reached, or dropped the message).
    func delivered(to bulb: LIFXLight) async -> LightState? {
        guard let ticket = try? await home.query(bulb.light.id) else { return nil }
        return try? await ticket.value
    }

    /// The state message that answers `request`.
    func state(answering request: LIFXRequest, of bulb: LIFXLight, after state: LightState) async -> LIFXReply {
        let kind = bulb.light.model.kind
        let power: UInt16 = state.isOn ? 65_535 : 0
        switch request {
        case .getService: return .stateService(port: port)
        case .getHostFirmware: return .stateHostFirmware(build: 1_700_000_000_000_000_000, major: 3, minor: 90)
        case .getPower, .setPower: return .statePower(level: power)
        case .getLabel: return .stateLabel(bulb.light.name)
        case .setLabel: return .stateLabel((try? await home.light(bulb.light.id).name) ?? bulb.light.name)
        case .getVersion: return .stateVersion(vendor: 1, product: LIFXProduct.id(of: bulb.light.model))
        case .getLocation:
            let name = await home.name
            return .stateLocation(id: LIFXProduct.groupID(home.fixtureID), label: name, updatedAt: 0)
        case .getGroup:
            return .stateGroup(
                id: LIFXProduct.groupID(home.fixtureID + "/" + bulb.room.id.rawValue), label: bulb.room.name,
                updatedAt: 0)
        case .echo(let bytes): return .echo(bytes)
        case .getColor, .setColor, .setWaveform:
            return .lightState(HSBK(state, kind: kind), power: power, label: bulb.light.name)
        case .getLightPower, .setLightPower: return .stateLightPower(level: power)
        case .unhandled(let type): return .stateUnhandled(type: type)
        }
    }
}

/// LIFX's product IDs and group IDs for Lumen's lights (LIFX's public products list).
enum LIFXProduct {
    /// The product ID for a light: the LIFX product its fixture names, where known, else a generic bulb of its
    /// kind.
    ///
    /// Only single-zone bulbs: a LIFX Z or Beam (multizone) is reported as a colour bulb, since Lumen does not
    /// model zones and a client told of zones would ask for them; an on/off light is a white bulb, not a LIFX
    /// Switch (a relay, which clients drive with relay messages).
    static func id(of model: DeviceModel) -> UInt32 {
        let product = model.product.lowercased()
        if product.contains("mini") {
            if model.kind.supports(.color) { return 49 }  // LIFX Mini Color
            return model.kind.supports(.colorTemperature) ? 50 : 51  // LIFX Mini White to Warm, Mini White
        }
        switch model.kind {
        case .color: return 27  // LIFX A19
        case .ambiance: return 50  // LIFX Mini White to Warm
        case .dimmable, .onoff: return 51  // LIFX Mini White
        }
    }

    /// A 16-byte ID for a location or group, derived from `name`.
    static func groupID(_ name: String) -> [UInt8] {
        var hash = FNV1a.offsetBasis
        var bytes: [UInt8] = []
        for round in 0..<2 {
            hash = FNV1a.hash("\(round):\(name)".utf8, continuing: hash)
            bytes += (0..<8).map { UInt8(hash >> (8 * UInt64($0)) & 0xFF) }
        }
        return bytes
    }
}
