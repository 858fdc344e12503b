import Foundation
import LumenTestSupport
import Testing

/// A scripted session on the virtual clock replays byte for byte, however its requests are written.
@Suite("A pipelined session's transcript", .serialized, .timeLimit(.minutes(5)))
struct PipelinedTranscriptTests {
    /// Lights of every kind, with latencies that reorder their confirmations, drops and one instant light.
    static let fixture = """
        {
          "schema": 1, "id": "replay", "name": "Replay", "seed": 11,
          "defaults": {"latency": {"kind": "uniform", "minMs": 10, "maxMs": 400}, "timeoutMs": 1500,
                       "dropProbability": 0.05},
          "rooms": [
            {"id": "hall", "name": "Hall", "lights": [
              {"id": "hall.a", "name": "A", "kind": "color"},
              {"id": "hall.b", "name": "B", "kind": "dimmable", "latency": {"kind": "fixed", "ms": 120}},
              {"id": "hall.c", "name": "C", "kind": "ambiance", "latency": "instant"}
            ]},
            {"id": "den", "name": "Den", "lights": [
              {"id": "den.a", "name": "A", "kind": "dimmable",
               "latency": {"kind": "logNormal", "medianMs": 80, "sigma": 0.8, "maxMs": 900}},
              {"id": "den.plug", "name": "Plug", "kind": "onoff", "state": {"isOn": false}}
            ]}
          ]
        }
        """

    /// The session: scopes and subscriptions first, then ~600 requests drawn from a fixed seed, then a settling
    /// advance and a last `hello` whose reply ends the transcript.
    static func script() -> [String] {
        var lines: [String] = []
        var id = 0
        func request(_ method: String, _ params: String) {
            id += 1
            lines.append(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
        }
        // Scopes 1 (simulation), 2 and 3 (rooms), 4–8 (lights): a session numbers its scopes in order.
        request("open", #"{"scope":0,"connection":"simulation"}"#)
        request("open", #"{"scope":0,"connection":"room","configuration":"hall"}"#)
        request("open", #"{"scope":0,"connection":"room","configuration":"den"}"#)
        for (room, light) in [(2, "hall.a"), (2, "hall.b"), (2, "hall.c"), (3, "den.a"), (3, "den.plug")] {
            request("open", #"{"scope":\#(room),"connection":"light","configuration":"\#(light)"}"#)
        }
        let watched = [
            (4, "brightness"), (4, "color"), (5, "brightness"), (6, "isOn"), (6, "colorTemperature"),
            (7, "brightness"), (8, "isOn"), (2, "anyOn"), (3, "allOn"), (1, "lastCommand"),
        ]
        for (scope, connection) in watched {
            request("subscribe", #"{"scope":\#(scope),"connection":"\#(connection)"}"#)
        }
        // A value watched twice: its notices come in the order of the subscriptions.
        request("subscribe", #"{"scope":7,"connection":"brightness"}"#)
        var random = ScriptRandom(seed: 20_261_204)
        let dimmable = [4, 5, 7]
        for _ in 0..<600 {
            let roll = random.below(100)
            let transition = random.below(2) == 0 ? "" : #","transitionMs":\#(random.below(9) * 100)"#
            switch roll {
            case 0..<30:
                let scope = dimmable[random.below(dimmable.count)]
                request(
                    "set",
                    #"{"scope":\#(scope),"connection":"brightness","value":\#(1 + random.below(100))\#(transition)}"#)
            case 30..<40:
                request(
                    "set", #"{"scope":\#(4 + random.below(5)),"connection":"isOn","value":\#(random.below(2) == 0)}"#)
            case 40..<44:
                let (x, y) = (Double(random.below(60) + 10) / 100, Double(random.below(60) + 10) / 100)
                request("set", #"{"scope":4,"connection":"color","value":{"x":\#(x),"y":\#(y)}\#(transition)}"#)
            case 44..<48:
                request(
                    "set",
                    #"{"scope":6,"connection":"colorTemperature","value":\#(153 + random.below(340))\#(transition)}"#)
            case 48..<63:
                let (scope, connection) = watched[random.below(watched.count - 1)]
                request("get", #"{"scope":\#(scope),"connection":"\#(connection)"}"#)
            case 63..<68:
                let brightness = random.below(2) == 0 ? "" : #","brightness":\#(1 + random.below(100))"#
                request(
                    "call",
                    #"{"scope":\#(2 + random.below(2)),"connection":"setAll","arguments":{"isOn":\#(random.below(3) != 0)\#(brightness)\#(transition)}}"#
                )
            case 68..<70:
                request("get", #"{"scope":1,"connection":"clock"}"#)
            default:
                let arguments =
                    switch random.below(5) {
                    case 0: #"{"untilIdle":true}"#
                    case 1: #"{"toNextEvent":true}"#
                    default: #"{"ms":\#(random.below(500))}"#
                    }
                request("call", #"{"scope":1,"connection":"advance","arguments":\#(arguments)}"#)
            }
        }
        request("call", #"{"scope":1,"connection":"advance","arguments":{"untilIdle":true}}"#)
        lines.append(#"{"jsonrpc":"2.0","id":"end","method":"hello"}"#)
        return lines
    }

    /// How the script is written to the socket: all of it in one write, or each request in a write of its own,
    /// never waiting for a reply.
    enum Writing: CaseIterable {
        case oneWrite, requestPerWrite
    }

    /// Everything lumend wrote to the session, up to and with the last reply, as raw bytes.
    static func transcript(fixture: String, writing: Writing, durability: String) async throws -> String {
        let daemon = try DaemonProcess(arguments: [
            "--fixture", fixture, "--clock", "virtual", "--seed", "5", "--durability", durability,
        ])
        defer { daemon.signal(SIGKILL) }
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        let client = try daemon.connect()
        let lines = script()
        // Written and read on threads of their own, as a client that pipelines does; a daemon that stops
        // answering is killed once the read gives up, which ends the write too.
        let written = Task {
            await offload {
                switch writing {
                case .oneWrite: client.sendRaw(Array(lines.map { $0 + "\n" }.joined().utf8))
                case .requestPerWrite: for line in lines { client.send(line) }
                }
            }
        }
        let read: Result<String, LineClient.Failure> = await offload {
            var transcript = ""
            while true {
                do throws(LineClient.Failure) {
                    let line = try client.readLineBlocking(timeout: .seconds(30))
                    transcript += line + "\n"
                    if line.contains(#""id":"end""#) { return .success(transcript) }
                } catch {
                    return .failure(error)
                }
            }
        }
        if case .failure = read { daemon.signal(SIGKILL) }
        await written.value
        return try read.get()
    }

    @Test(arguments: ["full", "relaxed"])
    func aScriptedSessionReplaysByteForByteWhetherPipelinedOrNot(durability: String) async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("replay.json")
        try Self.fixture.write(toFile: fixture, atomically: true, encoding: .utf8)
        var transcripts: [(Writing, String)] = []
        for writing in Writing.allCases {
            for _ in 0..<10 {
                transcripts.append(
                    (writing, try await Self.transcript(fixture: fixture, writing: writing, durability: durability)))
            }
        }
        let first = transcripts[0].1
        let lines = first.split(separator: "\n")
        #expect(lines.count > 700, "\(lines.count) lines")
        #expect(first.contains(#""method":"changed""#) && first.contains(#""seq":2"#))
        let distinct = Set(transcripts.map(\.1)).count
        for (run, (writing, transcript)) in transcripts.enumerated() where transcript != first {
            let other = transcript.split(separator: "\n")
            let at =
                (0..<min(lines.count, other.count)).first { lines[$0] != other[$0] } ?? min(lines.count, other.count)
            let swapped = zip(lines, other).filter { $0 != $1 }.count
            Issue.record(
                """
                run \(run) (\(writing)) differs from run 0 at line \(at + 1) of \(lines.count) (\(swapped) lines \
                differ; \(distinct) distinct transcripts):
                run 0: \(at < lines.count ? String(lines[at]) : "(end)")
                run \(run): \(at < other.count ? String(other[at]) : "(end)")
                """)
            break
        }
    }
}

/// A small generator for the script, fixed by its seed (splitmix64).
struct ScriptRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
