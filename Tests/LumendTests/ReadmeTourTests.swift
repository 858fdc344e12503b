import Foundation
import LumenProtocol
import LumenTestSupport
import Testing

/// The README's tour, run as a reader would run it, line by line, on a fresh state directory and then again on
/// the state the first run left.
@Suite("The README's tour", .timeLimit(.minutes(2)))
struct ReadmeTourTests {
    /// The tour's part of README.md: from its heading to the next.
    static func tour() throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "\n## A tour\n"))
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The code blocks of `text` in the given language, each as its lines without comments or blanks.
    static func blocks(_ language: String, in text: String) -> [[String]] {
        text.components(separatedBy: "```\(language)\n").dropFirst().map { block in
            block.components(separatedBy: "\n```")[0].split(separator: "\n").map { line in
                withoutComment(line).trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
        }
    }

    /// A shell line without its comment: a `#` that starts a word (at the start, or after a space) and what
    /// follows it; a `#` inside a word, as in `color=#ff8800`, is the word's.
    static func withoutComment(_ line: Substring) -> String {
        var previous: Character = " "
        for index in line.indices {
            if line[index] == "#", previous.isWhitespace { return String(line[..<index]) }
            previous = line[index]
        }
        return String(line)
    }

    /// The options in a `make run ARGS="…"` line (none for a bare `make run`).
    static func arguments(ofMakeRun line: String) -> [String] {
        guard let quoted = line.split(separator: "\"").dropFirst().first else { return [] }
        return quoted.split(separator: " ").map(String.init)
    }

    /// Runs a lumenctl line from the tour while advancing the virtual clock, as time would pass on the
    /// real one (the discovery scan alone would take a minute), until the command ends.
    func run(_ line: String, against daemon: DaemonProcess) async throws -> String {
        let words = line.split(separator: " ").map(String.init)
        #expect(words.first == ".build/debug/lumenctl", "a tour line that is not lumenctl: \(line)")
        let finished = Finished()
        let command = Task {
            defer { finished.done.withLock { $0 = true } }
            return try await runTool(
                "lumenctl", Array(words.dropFirst()), environment: ["LUMEN_SOCKET": daemon.socketPath])
        }
        let clock = try daemon.connect()
        let simulation = try #require(
            try await clock.result("open", ["scope": 0, "connection": "simulation"])["scope"])
        let advance: JSONValue = ["scope": simulation, "connection": "advance", "arguments": ["ms": 250]]
        // Each advance is answered once what it made due has happened; 1,000 of them are over four minutes of the
        // simulation. They go on for at least a minute of real time too: a command built for a sanitizer takes
        // seconds only to start, while 1,000 advances may take less.
        let patience = ContinuousClock.now + .seconds(60)
        var advances = 0
        while !finished.done.withLock({ $0 }), advances < 1_000 || ContinuousClock.now < patience {
            _ = try await clock.result("call", advance)
            advances += 1
        }
        // A command still running after all that never ends: say so now rather than at the time limit.
        guard finished.done.withLock({ $0 }) else {
            Issue.record("\(line): still running after \(advances) advances of 250 ms")
            return ""
        }
        let result = try await command.value
        #expect(result.status == 0, "\(line): \(result.stderr)")
        return result.stdout
    }

    /// Whether a command has ended.
    final class Finished: Sendable {
        let done = Locked(false)
    }

    /// A lumend started as the tour's `make run` line starts it, on the virtual clock.
    func start(_ makeRun: String, in directory: TemporaryDirectory) async throws -> DaemonProcess {
        var arguments = Self.arguments(ofMakeRun: makeRun)
        if !arguments.contains("--clock") { arguments += ["--clock", "virtual"] }
        let daemon = try DaemonProcess(arguments: arguments, environment: ["NO_COLOR": "1"], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "stderr: \(daemon.stderr)")
        return daemon
    }

    @Test func aCommentIsWhatFollowsAHashAfterSpaceNotAColourWrittenWithOne() {
        let text = "```sh\nlumenctl set lab.color color=#ff8800   # orange\n# a line of its own\nlumenctl rooms\n```\n"
        #expect(Self.blocks("sh", in: text) == [["lumenctl set lab.color color=#ff8800", "lumenctl rooms"]])
    }

    @Test func lumenctlLinesRunOnAFreshStateAndAgain() async throws {
        let text = try Self.tour()
        let makeRun = try #require(text.split(separator: "\n").first { $0.contains("make run") }.map(String.init))
        let lines = try #require(Self.blocks("sh", in: text).first)
        let directory = TemporaryDirectory()
        for round in 1...2 {
            let daemon = try await start(makeRun, in: directory)
            var output = ""
            for line in lines { output += try await run(line, against: daemon) }
            #expect(output.contains("Scan of Hallway finished"), "round \(round): \(output)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0, "round \(round): \(daemon.stderr)")
        }
    }

    @Test func jsonRPCByHandShowsTheChangeOnAFreshStateAndAgain() async throws {
        let text = try Self.tour()
        let blocks = Self.blocks("sh", in: text)
        let makeRun = try #require(blocks.dropFirst().first?.first { $0.hasPrefix("make run") })
        #expect(blocks.dropFirst().first?.contains { $0.hasPrefix("socat - UNIX-CONNECT:") } == true)
        let requests = try #require(Self.blocks("json", in: text).first)
        let directory = TemporaryDirectory()
        for round in 1...2 {
            let daemon = try await start(makeRun, in: directory)
            let client = try daemon.connect()
            for request in requests { client.send(request) }
            for request in requests {
                let id = try #require(try JSONParser.parse(request)["id"])
                let response = try await client.response(to: id)
                #expect(response["error"] == nil, "round \(round): \(response.serialized())")
            }
            let changes = client.takeNotifications().filter { $0["method"] == "changed" }
            #expect(changes.map { $0["params"]?["value"] } == [false], "round \(round): \(changes)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0, "round \(round): \(daemon.stderr)")
        }
    }
}
