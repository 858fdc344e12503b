import LumenDashboard
import LumenHue
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation

/// The `http` target: what anyone on the network may send lumend's HTTP listener.
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
    /// v2, each watching the home as in lumend), on the listener's loop, awaiting every answer; an input may name
    /// the IDs drawn at random by their ``HTTPStandIns``. Unlike lumend's listener, it reads on after a request
    /// that ends the connection (HTTP/1.0, `Connection: close`, an event stream), and takes every request as
    /// come over TLS, so that API v2 answers too. Every JSON answer must be JSON.
    static func runHTTP(_ bytes: [UInt8]) async {
        let fronts = await answerHTTP(bytes)
        // What the fronts started and left running (the look an event stream asks the bridge to take) ends soon
        // after: a home or front still held ten seconds on is held far beyond any such work. Waited for also
        // because the leak checker, run as each input ends, does not see the weak-reference table of an object
        // still alive (the event hub's), and reports it.
        let deadline = ContinuousClock.now + .seconds(10)
        while fronts.home != nil || fronts.rpc != nil || fronts.bridge != nil {
            precondition(
                ContinuousClock.now < deadline,
                "outlived its input by ten seconds: the home \(fronts.home != nil), the scope protocol's front "
                    + "\(fronts.rpc != nil), the bridge \(fronts.bridge != nil)")
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The HTTP target's home and fronts, held weakly: `nil` once nothing else holds them.
    struct HTTPFronts {
        weak var home: Home?
        weak var rpc: RPCOverHTTP?
        weak var bridge: HueBridge?
    }

    /// ``runHTTP(_:)``'s requests answered by a home and fronts of its own, closed once all are answered. A
    /// function of its own so that its hold on them ends as it returns, and the caller can see them go.
    static func answerHTTP(_ bytes: [UInt8]) async -> HTTPFronts {
        let home = Home(fixture: clientHome, clock: .virtual, seed: 1)
        let scopeContext = ScopeContext(home: home)
        // The fronts log what they refuse; at this level nothing is written, or made.
        let logger = Logger(level: .critical, handler: StderrLogHandler())
        let rpc = RPCOverHTTP(
            scopeContext: scopeContext, loop: httpLoop, settings: RPCOverHTTP.Settings(token: httpToken), logger: logger
        )
        let bridge = HueBridge(scopeContext: scopeContext, logger: logger)
        // Weakly, unlike lumend's watcher: the front holds the home, so a watcher holding the front would keep both
        // for ever (lumend's live as long as it does).
        await home.addWatcher { [weak rpc] in rpc?.publish($0) }
        await bridge.watchHome()
        do { try await bridge.pairUser(hueUser, deviceType: "fuzz#lumen") } catch {
            preconditionFailure("the HTTP target's user cannot pair: \(error)")
        }
        func answer(_ request: HTTPRequest) async -> HTTPResponse? {
            let reply = await httpLoop.executeAndWait { _ in
                rpc.respond(to: request) ?? Dashboard.respond(to: request).map(HTTPReply.now)
                    ?? bridge.respond(to: request)
            }
            switch reply {
            case .now(let response): return response
            case .later(let work):
                return await driving(home) { await Task(executorPreference: httpLoop) { await work() }.value }
            case .stream(let head, let body):
                await httpLoop.executeAndWait { _ in body.finish() }
                return head
            case nil: return nil
            }
        }
        var standIns = await HTTPStandIns(resources: answer(HTTPStandIns.listing))
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
                    let request = standIns.applied(to: head.request(body: body, isSecure: true))
                    guard let response = await answer(request) else { continue }
                    checkJSON(response)
                    standIns.learn(from: response, to: request)
                }
            }
        }
        await httpLoop.executeAndWait { _ in rpc.closeAll() }
        await home.shutDown()
        return HTTPFronts(home: home, rpc: rpc, bridge: bridge)
    }

    /// Holds a JSON answer to being JSON, however deep: a client reads nothing from one that is not.
    static func checkJSON(_ response: HTTPResponse) {
        guard response.headers.contains(where: { $0.name == "Content-Type" && $0.value.hasPrefix("application/json") })
        else { return }
        precondition(
            (try? JSONParser.parse(response.body, maxDepth: 10_000)) != nil,
            "an answer that is not JSON: \(response.body)")
    }
}
