import Foundation
import LumenTestSupport
import Synchronization
import Testing

/// Two clients, each pipelining a scripted session on the virtual clock, are each sent the same bytes in every
/// run, under either durability.
///
/// Each client has a busy room (latencies that reorder confirmations, drops, timeouts, fades) and a quiet one
/// (instant lights). The session runs in rounds, both clients writing each round's requests at once without
/// waiting for a reply and reading until their round's last reply. In a round one client drives: writes and
/// fades in its busy room, group commands, faults, the ground truth of its lights, reads, and advances of the
/// clock. The other meanwhile writes one light of its quiet room and reads the other: its writes wait for the
/// driver's next advance (on the virtual clock an instant device answers at the next step), so whenever that
/// falls its transcript must come out the same, each reply in its request's place and each notice before the
/// reply of the write that made it. Once the driver has its last reply, a third session moves the clock by
/// nothing until the other has its own, for its writes lumend took after the driver's last advance. Together
/// some 700 requests a run.
///
/// What the two clients do together is left out where it is told in an order the home alone decides: the
/// command record (its numbers count both clients' commands), the values the other client's writes wait to
/// change, and `toNextEvent`, whose next event may be the other client's write.
///
/// Each durability replays the session 20 times (`LUMEN_TRANSCRIPT_RUNS` sets another number), some ten seconds
/// in all on two cores.
@Suite("Two pipelining clients' transcripts", .serialized, .timeLimit(.minutes(10)))
struct TwoClientTranscriptTests {
    static let fixture = """
        {
          "schema": 1, "id": "two-clients", "name": "Two clients", "seed": 23,
          "defaults": {"latency": {"kind": "uniform", "minMs": 10, "maxMs": 400}, "timeoutMs": 1500,
                       "dropProbability": 0.05},
          "rooms": [
            {"id": "hall", "name": "Hall", "lights": [
              {"id": "hall.a", "name": "A", "kind": "color"},
              {"id": "hall.b", "name": "B", "kind": "dimmable", "latency": {"kind": "fixed", "ms": 120}},
              {"id": "hall.c", "name": "C", "kind": "ambiance",
               "latency": {"kind": "logNormal", "medianMs": 80, "sigma": 0.8, "maxMs": 900}}
            ]},
            {"id": "nook", "name": "Nook", "latency": "instant", "dropProbability": 0, "lights": [
              {"id": "nook.a", "name": "A", "kind": "dimmable"},
              {"id": "nook.b", "name": "B", "kind": "onoff", "state": {"isOn": false}}
            ]},
            {"id": "yard", "name": "Yard", "lights": [
              {"id": "yard.a", "name": "A", "kind": "color", "latency": {"kind": "fixed", "ms": 90}},
              {"id": "yard.b", "name": "B", "kind": "dimmable"},
              {"id": "yard.c", "name": "C", "kind": "ambiance", "latency": "instant"}
            ]},
            {"id": "loft", "name": "Loft", "latency": "instant", "dropProbability": 0, "lights": [
              {"id": "loft.a", "name": "A", "kind": "color"},
              {"id": "loft.b", "name": "B", "kind": "dimmable", "state": {"isOn": false}}
            ]}
          ]
        }
        """

    /// One client's part: its rooms and the seed its requests are drawn from.
    struct Part {
        let busyRoom: String
        let busyLights: [String]
        let quietRoom: String
        let quietLights: [String]
        let seed: UInt64

        static let first = Part(
            busyRoom: "hall", busyLights: ["hall.a", "hall.b", "hall.c"], quietRoom: "nook",
            quietLights: ["nook.a", "nook.b"], seed: 20_261_206)
        static let second = Part(
            busyRoom: "yard", busyLights: ["yard.a", "yard.b", "yard.c"], quietRoom: "loft",
            quietLights: ["loft.a", "loft.b"], seed: 77_031)

        // Scopes as the set-up opens them: a session numbers its scopes in order.
        static let simulation = 1
        static let busy = 2
        static let quiet = 3
        /// The busy room's lights' scopes, then the quiet room's.
        static let busyLightScopes = [4, 5, 6]
        static let quietLightScopes = [7, 8]
        /// Each busy light's kind, in order: color, dimmable, ambiance.
        static let dimmable = [4, 5]
    }

    /// A client's requests, numbered in order, each round ending with a `hello` whose `id` names the round.
    struct Script {
        var random: ScriptRandom
        var id = 0
        var lines: [String] = []

        init(seed: UInt64) { random = ScriptRandom(seed: seed) }

        mutating func request(_ method: String, _ params: String) {
            id += 1
            lines.append(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
        }

        /// Takes the lines written so far, ending them with a `hello` whose `id` is `marker`.
        mutating func end(_ marker: String) -> [String] {
            lines.append(#"{"jsonrpc":"2.0","id":"\#(marker)","method":"hello"}"#)
            defer { lines = [] }
            return lines
        }
    }

    /// The set-up: scopes and subscriptions. Run one client after the other, since subscription numbers are
    /// the daemon's, not the session's.
    static func setUp(_ part: Part, _ script: inout Script) {
        script.request("hello", #"{"client":"transcript"}"#)
        script.request("open", #"{"scope":0,"connection":"simulation"}"#)
        script.request("open", #"{"scope":0,"connection":"room","configuration":"\#(part.busyRoom)"}"#)
        script.request("open", #"{"scope":0,"connection":"room","configuration":"\#(part.quietRoom)"}"#)
        for light in part.busyLights {
            script.request("open", #"{"scope":2,"connection":"light","configuration":"\#(light)"}"#)
        }
        for light in part.quietLights {
            script.request("open", #"{"scope":3,"connection":"light","configuration":"\#(light)"}"#)
        }
        let watched = [
            (4, "brightness"), (4, "color"), (4, "isOn"), (5, "brightness"), (6, "colorTemperature"),
            (6, "isOn"), (2, "anyOn"), (2, "allOn"), (3, "anyOn"), (7, "brightness"), (7, "isOn"), (8, "isOn"),
            // A value watched twice: its notices come in the order of the subscriptions.
            (5, "brightness"),
        ]
        for (scope, connection) in watched {
            script.request("subscribe", #"{"scope":\#(scope),"connection":"\#(connection)"}"#)
        }
    }

    /// A round in which `part`'s client drives: writes, fades, group commands and faults in its busy room,
    /// reads, and advances of the clock; it ends with the clock advanced until nothing is pending.
    static func drive(_ part: Part, _ script: inout Script, requests: Int) {
        for _ in 0..<requests {
            let roll = script.random.below(100)
            let transition =
                script.random.below(2) == 0 ? "" : #","transitionMs":\#(script.random.below(9) * 100)"#
            let light = script.random.below(3)
            switch roll {
            case 0..<24:
                let scope = Part.dimmable[script.random.below(2)]
                let value = 1 + script.random.below(100)
                script.request("set", #"{"scope":\#(scope),"connection":"brightness","value":\#(value)\#(transition)}"#)
            case 24..<32:
                let on = script.random.below(2) == 0
                script.request("set", #"{"scope":\#(Part.busyLightScopes[light]),"connection":"isOn","value":\#(on)}"#)
            case 32..<36:
                let (x, y) = (Double(script.random.below(60) + 10) / 100, Double(script.random.below(60) + 10) / 100)
                script.request("set", #"{"scope":4,"connection":"color","value":{"x":\#(x),"y":\#(y)}\#(transition)}"#)
            case 36..<40:
                let mireds = 153 + script.random.below(340)
                script.request("set", #"{"scope":6,"connection":"colorTemperature","value":\#(mireds)\#(transition)}"#)
            case 40..<52:
                let (scope, connection) = [
                    (4, "brightness"), (4, "color"), (5, "brightness"), (6, "isOn"), (2, "anyOn"), (7, "brightness"),
                ][script.random.below(6)]
                script.request("get", #"{"scope":\#(scope),"connection":"\#(connection)"}"#)
            case 52..<57:
                let on = script.random.below(3) != 0
                let brightness = script.random.below(2) == 0 ? "" : #","brightness":\#(1 + script.random.below(100))"#
                script.request(
                    "call",
                    #"{"scope":2,"connection":"setAll","arguments":{"isOn":\#(on)\#(brightness)\#(transition)}}"#)
            case 57..<60:
                let reachable = script.random.below(3) != 0
                script.request(
                    "call",
                    #"{"scope":1,"connection":"setReachable","arguments":{"light":"\#(part.busyLights[light])","reachable":\#(reachable)}}"#
                )
            case 60..<62:
                let drop = Double(script.random.below(4)) / 10
                script.request(
                    "call",
                    #"{"scope":1,"connection":"setFaults","arguments":{"light":"\#(part.busyLights[light])","dropProbability":\#(drop)}}"#
                )
            case 62..<64:
                let duration = 100 * (1 + script.random.below(5))
                script.request(
                    "call",
                    #"{"scope":1,"connection":"powerCycle","arguments":{"light":"\#(part.busyLights[light])","durationMs":\#(duration)}}"#
                )
            case 64..<68:
                script.request(
                    "call", #"{"scope":1,"connection":"device","arguments":{"light":"\#(part.busyLights[light])"}}"#)
            case 68..<70:
                script.request("get", #"{"scope":1,"connection":"clock"}"#)
            case 70..<74:
                quiet(part, &script, requests: 1)
            default:
                let arguments =
                    switch script.random.below(4) {
                    case 0: #"{"untilIdle":true}"#
                    default: #"{"ms":\#(script.random.below(500))}"#
                    }
                script.request("call", #"{"scope":1,"connection":"advance","arguments":\#(arguments)}"#)
            }
        }
        // Every light reachable again and nothing left pending: the other client's round is its own.
        for light in part.busyLights {
            script.request(
                "call", #"{"scope":1,"connection":"setReachable","arguments":{"light":"\#(light)","reachable":true}}"#)
        }
        script.request("call", #"{"scope":1,"connection":"advance","arguments":{"untilIdle":true}}"#)
    }

    /// Requests on `part`'s quiet room alone: writes without fades to its first light, reads of its second
    /// (which nothing writes) and of that light's ground truth.
    static func quiet(_ part: Part, _ script: inout Script, requests: Int) {
        for _ in 0..<requests {
            switch script.random.below(10) {
            case 0..<3:
                script.request(
                    "set", #"{"scope":7,"connection":"brightness","value":\#(1 + script.random.below(100))}"#)
            case 3..<6:
                script.request("set", #"{"scope":7,"connection":"isOn","value":\#(script.random.below(2) == 0)}"#)
            case 6..<8:
                script.request("get", #"{"scope":8,"connection":"isOn"}"#)
            default:
                script.request(
                    "call", #"{"scope":1,"connection":"device","arguments":{"light":"\#(part.quietLights[1])"}}"#)
            }
        }
    }

    /// One round: which client drives, and what each writes.
    struct Round {
        let driver: Int
        let lines: [[String]]
    }

    /// The whole session: each client's set-up, then the rounds.
    static func session() -> (setUp: [[String]], rounds: [Round]) {
        let parts = [Part.first, Part.second]
        var scripts = parts.map { Script(seed: $0.seed) }
        var setUps: [[String]] = []
        for index in parts.indices {
            setUp(parts[index], &scripts[index])
            setUps.append(scripts[index].end("set up"))
        }
        var rounds: [Round] = []
        for round in 1...8 {
            let driver = round % 2
            var lines: [[String]] = []
            for index in parts.indices {
                if index == driver {
                    drive(parts[index], &scripts[index], requests: 60)
                } else {
                    quiet(parts[index], &scripts[index], requests: 20)
                }
                lines.append(scripts[index].end("round \(round)"))
            }
            rounds.append(Round(driver: driver, lines: lines))
        }
        return (setUps, rounds)
    }

    /// Writes `lines` (in one write, or a write each) while reading every line up to the reply to the `hello`
    /// whose `id` is `marker`; returns what was read.
    static func exchange(_ client: LineClient, _ lines: [String], marker: String, oneWrite: Bool) async throws
        -> String
    {
        let written = Task {
            await offload {
                if oneWrite {
                    client.sendRaw(Array(lines.map { $0 + "\n" }.joined().utf8))
                } else {
                    for line in lines { client.send(line) }
                }
            }
        }
        let marker = #""id":"\#(marker)""#
        let read: Result<String, LineClient.Failure> = await offload {
            var transcript = ""
            while true {
                do throws(LineClient.Failure) {
                    let line = try client.readLineBlocking(timeout: .seconds(30))
                    transcript += line + "\n"
                    if line.contains(marker) { return .success(transcript) }
                } catch {
                    return .failure(error)
                }
            }
        }
        await written.value
        return try read.get()
    }

    /// A flag one task raises for another.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// What each client was sent in one run of the session, up to and with its last reply.
    static func transcripts(fixture: String, durability: String) async throws -> [String] {
        let daemon = try DaemonProcess(arguments: [
            "--fixture", fixture, "--clock", "virtual", "--seed", "5", "--durability", durability,
        ])
        defer { daemon.signal(SIGKILL) }
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        let session = session()
        var clients: [LineClient] = []
        var transcripts: [String] = []
        do {
            // A third session, whose bytes are not compared, moves the clock by nothing for the quiet client's
            // writes that lumend took after the driver's last advance.
            let harness = try daemon.connect()
            let clock = try await harness.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
            // One after the other, so that the sessions are numbered in order and so are the subscriptions.
            for lines in session.setUp {
                let client = try daemon.connect()
                clients.append(client)
                transcripts.append(try await exchange(client, lines, marker: "set up", oneWrite: true))
            }
            for (number, round) in session.rounds.enumerated() {
                let clients = clients
                let marker = "round \(number + 1)"
                let quietDone = Flag()
                let read = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for index in clients.indices {
                        group.addTask {
                            let text = try await exchange(
                                clients[index], round.lines[index], marker: marker, oneWrite: number % 4 < 2)
                            if index == round.driver {
                                // Nothing of the driver's is pending now: its round ended with the clock idle.
                                for _ in 0..<100_000 where !quietDone.value.load(ordering: .acquiring) {
                                    _ = try await harness.result(
                                        "call", ["scope": clock, "connection": "advance", "arguments": ["ms": 0]])
                                }
                            } else {
                                quietDone.value.store(true, ordering: .releasing)
                            }
                            return (index, text)
                        }
                    }
                    var read = ["", ""]
                    for try await (index, text) in group { read[index] = text }
                    return read
                }
                for index in transcripts.indices { transcripts[index] += read[index] }
            }
        } catch {
            daemon.signal(SIGKILL)
            throw error
        }
        return transcripts
    }

    /// How many runs each durability replays: `LUMEN_TRANSCRIPT_RUNS`, else 20.
    static var runs: Int {
        ProcessInfo.processInfo.environment["LUMEN_TRANSCRIPT_RUNS"].flatMap(Int.init).map { max(2, $0) } ?? 20
    }

    @Test(arguments: ["full", "relaxed"])
    func twoPipeliningClientsAreEachSentTheSameBytesInEveryRun(durability: String) async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("two-clients.json")
        try Self.fixture.write(toFile: fixture, atomically: true, encoding: .utf8)
        let session = Self.session()
        let requests =
            session.setUp.joined().count
            + session.rounds.map { $0.lines.joined().count }.reduce(0, +)
        #expect(requests > 600, "\(requests) requests")
        var runs: [[String]] = []
        for _ in 0..<Self.runs {
            runs.append(try await Self.transcripts(fixture: fixture, durability: durability))
        }
        for client in 0..<2 {
            let first = runs[0][client]
            let lines = first.split(separator: "\n")
            #expect(lines.count > 300, "client \(client): \(lines.count) lines")
            #expect(first.contains(#""method":"changed""#) && first.contains(#""code":-320"#))
            let differing = runs.indices.filter { runs[$0][client] != first }
            guard let run = differing.first else { continue }
            let other = runs[run][client].split(separator: "\n")
            let at =
                (0..<min(lines.count, other.count)).first { lines[$0] != other[$0] } ?? min(lines.count, other.count)
            Issue.record(
                """
                client \(client): \(differing.count) of \(runs.count) runs differ from run 0; run \(run) first at \
                line \(at + 1) of \(lines.count):
                run 0: \(at < lines.count ? String(lines[at]) : "(end)")
                run \(run): \(at < other.count ? String(other[at]) : "(end)")
                """)
        }
    }
}
