import LumenDashboard
import LumenHue
import LumenLIFX
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation

/// The fronts' targets: what anyone on the network may send lumend's HTTP listener, its LIFX socket and its
/// mDNS responder.
extension FuzzTarget {
    /// The user every HTTP input may name: paired before the input is read, so that the bridge's paths past
    /// the user check are reached (`/api/fuzzuser0123456789/lights`, `hue-application-key: fuzzuser0123456789`).
    static let hueUser = "fuzzuser0123456789"

    /// The token that opens the simulation scope over HTTP (`Authorization: Bearer fuzztoken0123456789`).
    static let httpToken = "fuzztoken0123456789"
    /// The loop the HTTP target's requests are answered on, as lumend's HTTP listener's.
    static let httpLoop = EventLoop(name: "fuzz.http")

    /// Reads `bytes` as HTTP requests on one connection, the first half then the rest, and answers each as
    /// lumend's HTTP listener routes it (the scope protocol over HTTP, the dashboard, the Hue bridge's API v1 and
    /// v2), on the listener's loop, awaiting every answer. Every request is taken as come over TLS, as lumend's
    /// HTTPS listener takes them, so that API v2 answers too. Every JSON answer must be JSON.
    static func runHTTP(_ bytes: [UInt8]) async {
        let home = Home(fixture: clientHome, clock: .virtual, seed: 1)
        let fronts = await answerHTTP(bytes, home: home)
        await home.shutDown()
        // What the fronts started and left running (the look an event stream asks the bridge to take) ends on its
        // own: a front still held ten seconds on is held for ever. Waited for also because the leak checker, run
        // as each input ends, does not see the weak-reference table of an object still alive, and reports it.
        let deadline = ContinuousClock.now + .seconds(10)
        while fronts.rpc != nil || fronts.bridge != nil {
            precondition(
                ContinuousClock.now < deadline, "a front outlived its input by ten seconds: something holds it")
            await Task.yield()
        }
    }

    /// The HTTP target's fronts, held weakly: `nil` once nothing else holds them.
    struct HTTPFronts {
        weak var rpc: RPCOverHTTP?
        weak var bridge: HueBridge?
    }

    /// ``runHTTP(_:)``'s requests answered by fronts of its own over `home`, closed once all are answered.
    static func answerHTTP(_ bytes: [UInt8], home: Home) async -> HTTPFronts {
        let scopeContext = ScopeContext(home: home)
        let logger = Logger(handler: Discarding())
        let rpc = RPCOverHTTP(
            scopeContext: scopeContext, loop: httpLoop, settings: RPCOverHTTP.Settings(token: httpToken), logger: logger
        )
        let bridge = HueBridge(scopeContext: scopeContext, logger: logger)
        try? await bridge.pairUser(hueUser, deviceType: "fuzz#lumen")
        var parser = HTTPRequestParser(
            headBytes: HTTPLimits().headBytes,
            bodyBytes: { RPCOverHTTP.paths.contains($0) ? rpc.maxBodyBytes : HTTPLimits().bodyBytes })
        read: for half in [bytes.prefix(bytes.count / 2), bytes.dropFirst(bytes.count / 2)] {
            parser.append(half)
            while true {
                let step: HTTPRequestParser.Step
                do { step = try parser.next() } catch { break read }
                switch step {
                case .needMore: continue read
                case .head: continue
                case .request(let head, let body):
                    let request = head.request(body: body, isSecure: true)
                    let reply = await httpLoop.executeAndWait { _ in
                        rpc.respond(to: request) ?? Dashboard.respond(to: request).map(HTTPReply.now)
                            ?? bridge.respond(to: request)
                    }
                    switch reply {
                    case .now(let response): checkJSON(response)
                    case .later(let work):
                        checkJSON(
                            await driving(home) { await Task(executorPreference: httpLoop) { await work() }.value })
                    case .stream(_, let body): await httpLoop.executeAndWait { _ in body.finish() }
                    case nil: continue
                    }
                }
            }
        }
        await httpLoop.executeAndWait { _ in rpc.closeAll() }
        return HTTPFronts(rpc: rpc, bridge: bridge)
    }

    /// Holds a JSON answer to being JSON: a client reads nothing from one that is not.
    static func checkJSON(_ response: HTTPResponse) {
        guard response.headers.contains(where: { $0.name == "Content-Type" && $0.value.hasPrefix("application/json") })
        else { return }
        precondition((try? JSONParser.parse(response.body)) != nil, "an answer that is not JSON: \(response.body)")
    }

    /// Reads `bytes` as LIFX datagrams, each a byte saying where it is sent (0: broadcast; n: the n-th bulb's
    /// address, counting round) and then the datagram, as long as its header's first two bytes say (what is
    /// left, when fewer). Each is answered as lumend's socket answers it, in the order read, the home's clock
    /// moved until every answer is sent; every reply must be a LIFX packet naming the message it answers, from a
    /// bulb the message reached.
    static func runLIFX(_ bytes: [UInt8]) async {
        let home = Home(fixture: clientHome, clock: .virtual, seed: 1)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let bulbs = await front.bulbs()
        var works: [(@Sendable (_ send: @escaping LIFXFront.Send) async -> Void, LIFXPacket, Set<[UInt8]>)] = []
        var rest = bytes[...]
        while let destination = rest.popFirst() {
            let size = rest.count >= 2 ? Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8 : rest.count
            let datagram = Array(rest.prefix(max(size, 1)))
            rest = rest.dropFirst(datagram.count)
            let bulb = destination == 0 || bulbs.isEmpty ? nil : bulbs[Int(destination - 1) % bulbs.count]
            let work = front.respond(to: datagram, at: bulb?.address, from: { "127.0.0.1:56700" })
            if let work, let packet = try? LIFXPacket(bytes: datagram) {
                works.append((work, packet, answering(packet, sentTo: bulb, among: bulbs)))
            }
        }
        // Started one after the other on the home's loop, as the UDP server starts them.
        let tasks = works.map { work, packet, serials in
            Task(executorPreference: Home.sharedLoop) {
                await work { datagrams, _ in
                    for datagram in datagrams {
                        // A client matches a reply to its message by these two, and drops any other.
                        let reply = try? LIFXPacket(bytes: datagram)
                        precondition(reply != nil, "a reply that is no packet: \(datagram)")
                        precondition(
                            reply?.source == packet.source && reply?.sequence == packet.sequence,
                            "a reply that names another message: \(datagram) to \(packet.bytes)")
                        precondition(
                            serials.contains(Array(reply!.target.prefix(6))),
                            "a reply from a bulb the message did not reach: \(datagram) to \(packet.bytes)")
                    }
                }
            }
        }
        await driving(home) { for task in tasks { await task.value } }
        await home.shutDown()
    }

    /// The serials of the bulbs that may answer `packet` sent to `bulb`'s address (`nil`: broadcast) among
    /// `bulbs`: a bulb answers a message sent to its address unless it names another bulb, and a broadcast is
    /// answered by the bulb it names, or by every bulb when it names none (tagged, or a target of zeros).
    static func answering(_ packet: LIFXPacket, sentTo bulb: LIFXLight?, among bulbs: [LIFXLight]) -> Set<[UInt8]> {
        let named = Array(packet.target.prefix(6))
        let namesNone = packet.tagged || named.allSatisfy { $0 == 0 }
        if let bulb { return namesNone || named == bulb.serial ? [bulb.serial] : [] }
        return namesNone ? Set(bulbs.map(\.serial)) : [named]
    }

    /// What `work` returns, the home's virtual clock moved while it waits on the simulation (a light's latency,
    /// a transition): a front's answer waits for its lights as on lumend's real clock. An answer that has not come
    /// after a million looks is a hang, which the fuzzer reports.
    static func driving<T: Sendable>(_ home: Home, _ work: @escaping @Sendable () async -> T) async -> T {
        let answer = Locked<T?>(nil)
        Task {
            let value = await work()
            answer.withLock { $0 = value }
        }
        for _ in 0..<1_000_000 {
            if let value = answer.withLock({ $0 }) { return value }
            if await home.waitingOnSimulation > 0 {
                _ = try? await home.advanceToNextEvent()
            } else {
                await Task.yield()
            }
        }
        preconditionFailure("a front's answer never came")
    }

    /// Reads `bytes` as a multicast DNS query to the Hue bridge's service, as from a querier on port 5353 and
    /// from a one-shot resolver.
    static func runMDNS(_ bytes: [UInt8]) {
        _ = mdnsService.answer(to: bytes)
        _ = mdnsService.answer(to: bytes, legacy: true)
    }

    /// The service the mDNS target answers for: a Hue bridge's, as lumend announces it.
    static let mdnsService = MDNSService(
        instance: "Hue Bridge - E7BBC2", type: "_hue._tcp", host: "001788fffee7bbc2",
        address: IPv4Address(value: 0x7F00_0001), port: 443, properties: [("bridgeid", "001788FFFEE7BBC2")])
}

/// Drops every message: the fuzzer's inputs make the fronts log what they refuse, thousands of times a second.
struct Discarding: LogHandler {
    func log(level: LogLevel, message: String, metadata: [(String, String)]) {}
}
