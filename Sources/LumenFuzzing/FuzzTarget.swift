import Dispatch
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenSimulation
import LumenStore

/// What `make fuzz` feeds random bytes to: each of the parsers that read what lumend did not write itself
/// this run (state files after a crash or damage, fixtures from users, what clients and the network send). Each
/// must answer with a value or an error for any input, never crash, hang or read out of bounds.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A snapshot file: verified and decoded as start-up does.
    case snapshot
    /// A journal file: read, and its commits applied to a small home as start-up does.
    case journal
    /// A fixture file.
    case fixture
    /// Bytes from a client: line framing, JSON-RPC decoding and dispatch against a small home in this
    /// process, on the virtual clock. The first half of the input is sent, then the rest.
    case rpc
    /// Bytes to the HTTP listener: framing as lumend reads it, and each request answered as lumend routes it (the
    /// scope protocol over HTTP, the dashboard, the Hue bridge's API v1 and v2) over a small home, on the virtual
    /// clock (``runHTTP(_:)``).
    case http
    /// Datagrams to the LIFX socket, each answered by the bulbs it reaches (``runLIFX(_:)``).
    case lifx
    /// A multicast DNS query to the Hue bridge's responder (``runMDNS(_:)``).
    case mdns

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) async {
        switch self {
        case .snapshot:
            if case .state(let fixture, _) = StateSnapshot.decode(bytes) {
                _ = StateSnapshot.encode(fixture)
            }
        case .journal:
            let contents = StateJournal.read(bytes)
            var batches = contents.batches.map(\.records)
            if let carry = contents.carry { batches.insert(carry.records, at: 0) }
            _ = try? Self.home.applying(batches: batches)
        case .fixture:
            let fixture = try? Fixture(json: bytes)
            if let fixture { _ = fixture.jsonValue }
            // Loading may read plain lights straight from their bytes; the check reads every light as a tree.
            // The two must agree on whether the document is usable.
            let problems = Fixture.problems(json: Array(bytes))
            precondition((fixture == nil) == !problems.isEmpty, "loading and checking disagree: \(problems)")
        case .rpc:
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
                // A batch parsed element by element is the batch the parser reads whole, or an error either way.
                if let ranges = JSONArraySplitter.elements(in: Array(line)) {
                    let whole = try? JSONParser.parse(line)
                    let pieces = try? ranges.map { range throws(JSONParseError) in
                        try JSONParser.parse(Array(line)[range], maxDepth: JSONParser.defaultMaxDepth - 1)
                    }
                    precondition(whole == pieces.map(JSONValue.array), "a batch split differently")
                }
            }
            let home = Home(fixture: Self.clientHome, clock: .virtual, seed: 1)
            let session = InProcessSession(scopeContext: ScopeContext(home: home))
            // The clock moved while a line waits on the simulation (the simulation scope's `sleep` is awaited in
            // line), as on lumend's real clock.
            _ = await Self.driving(home) { await session.feed(Array(bytes.prefix(bytes.count / 2))) }
            _ = await Self.driving(home) { await session.feed(Array(bytes.dropFirst(bytes.count / 2))) }
            await session.close()
            await home.shutDown()
        case .http: await Self.runHTTP(bytes)
        case .lifx: await Self.runLIFX(bytes)
        case .mdns: Self.runMDNS(bytes)
        }
    }

    /// Runs the target on one input from a plain thread (libFuzzer's), waiting for it. Never call it from
    /// Swift concurrency's threads: it blocks one until the work is done.
    public func runBlocking(_ bytes: [UInt8]) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await run(bytes)
            done.signal()
        }
        done.wait()
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

    /// The home what clients send is answered for (the `rpc`, `http` and `lifx` targets): lights of every kind,
    /// LIFX bulbs of every kind the LIFX front answers for, some lights with latency, and a room with a light yet
    /// to be discovered.
    static let clientHome: Fixture = try! Fixture(
        json: Array(
            """
            {"schema":1,"id":"fuzz","name":"Fuzz","seed":1,"defaults":{"latency":"instant","timeoutMs":1000},
             "rooms":[{"id":"lab","name":"Lab","lights":[
               {"id":"lab.color","name":"Color","kind":"color"},
               {"id":"lab.dim","name":"Dim","kind":"dimmable","latency":{"kind":"fixed","ms":50}},
               {"id":"lab.plug","name":"Plug","kind":"onoff"},
               {"id":"lab.strip","name":"Strip","kind":"color","manufacturer":"LIFX","product":"LIFX Z Strip",
                "latency":{"kind":"fixed","ms":10}},
               {"id":"lab.tile","name":"Tile","kind":"color","manufacturer":"LIFX","product":"LIFX Tile"},
               {"id":"lab.candle","name":"Candle","kind":"color","manufacturer":"LIFX","product":"LIFX Candle Colour"},
               {"id":"lab.ceiling","name":"Ceiling","kind":"color","manufacturer":"LIFX","product":"LIFX Ceiling"},
               {"id":"lab.nv","name":"NV","kind":"color","manufacturer":"LIFX","product":"LIFX A19 Night Vision"},
               {"id":"lab.clean","name":"Clean","kind":"color","manufacturer":"LIFX","product":"LIFX Clean",
                "latency":{"kind":"fixed","ms":20}},
               {"id":"lab.white","name":"White","kind":"ambiance","manufacturer":"LIFX",
                "product":"LIFX Mini White to Warm"},
               {"id":"lab.mini","name":"Mini","kind":"dimmable","manufacturer":"LIFX"}]},
              {"id":"attic","name":"Attic","lights":[{"id":"attic.amb","name":"Amb","kind":"ambiance"}],
               "undiscovered":[{"delayMs":100,"light":{"id":"attic.new","name":"New","kind":"color"}}]}]}
            """.utf8))

    /// The home journal commits are applied to: the embedded demo home.
    static let home: Fixture = try! Fixture(json: Fixture.embeddedDemoHomeJSON)
}
