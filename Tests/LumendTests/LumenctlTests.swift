import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@Suite("lumenctl against a real lumend", .timeLimit(.minutes(2)))
struct LumenctlTests {
    /// A real-clock lumend on the instant test home: writes apply at once.
    func startDaemon(clock: String = "real", home: String = TestFixtures.instantHome) async throws -> DaemonProcess {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(home.utf8))
        let daemon = try DaemonProcess(
            arguments: ["--fixture", fixture, "--clock", clock], environment: ["NO_COLOR": "1"], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "stderr: \(daemon.stderr)")
        return daemon
    }

    func ctl(_ daemon: DaemonProcess, _ arguments: String...) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await runTool("lumenctl", ["--socket", daemon.socketPath] + arguments)
    }

    @Test func statusShowsTheHomeAtAGlance() async throws {
        let daemon = try await startDaemon()
        let result = try await ctl(daemon, "status")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == """
                Test Home: 2 rooms, 4 lights, 2 on, 0 unreachable

                Lab (lab)
                LIGHT      NAME    KIND      POWER  BRIGHTNESS  CT   REACHABLE
                lab.color  Color   color     on     100         366  yes
                lab.plug   Plug    onoff     off    -           -    yes
                lab.dim    Dimmer  dimmable  off    50          -    yes

                Attic (attic)
                LIGHT          NAME     KIND      POWER  BRIGHTNESS  CT   REACHABLE
                attic.tunable  Tunable  ambiance  on     100         366  yes

                """)
    }

    @Test func statusAsJSONIsOneDocument() async throws {
        let daemon = try await startDaemon()
        let result = try await ctl(daemon, "status", "--json")
        #expect(result.status == 0)
        let document = try JSONParser.parse(result.stdout.trimmingCharacters(in: .newlines))
        #expect(document["name"] == "Test Home")
        let lab = try #require(document["rooms"]?.arrayValue?.first)
        #expect(lab["lights"]?.arrayValue?.map { $0["id"] } == ["lab.color", "lab.plug", "lab.dim"])
        #expect(lab["lights"]?.arrayValue?[1]["brightness"] == nil)
        #expect(lab["lights"]?.arrayValue?[2]["brightness"] == 50)
    }

    @Test func listsWithoutLegend() async throws {
        let daemon = try await startDaemon()
        let result = try await ctl(daemon, "--no-legend", "lights", "lab")
        #expect(
            result.stdout == """
                lab.color  lab  Color   color     on   100  yes
                lab.plug   lab  Plug    onoff     off  -    yes
                lab.dim    lab  Dimmer  dimmable  off  50   yes

                """)
        let rooms = try await ctl(daemon, "rooms", "--json")
        #expect(try JSONParser.parse(rooms.stdout.trimmingCharacters(in: .newlines)).arrayValue?.count == 2)
    }

    @Test func setWaitsForTheDeviceAndGetReadsItBack() async throws {
        let daemon = try await startDaemon()
        let set = try await ctl(daemon, "set", "lab.dim", "on", "brightness=70", "--transition", "0")
        #expect(set.status == 0, "stderr: \(set.stderr)")
        #expect(set.stdout == "lab.dim: isOn=true brightness=70\n")
        #expect(try await ctl(daemon, "get", "lab.dim", "brightness").stdout == "70\n")
        let json = try await ctl(daemon, "get", "lab.dim", "--json")
        #expect(try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))["isOn"] == true)
        let renamed = try await ctl(daemon, "rename", "light", "lab.dim", "Desk")
        #expect(renamed.stdout == "renamed to Desk\n")
    }

    @Test func setOnARoomSendsOneGroupCommandAndListsWhatEachLightDid() async throws {
        let daemon = try await startDaemon()
        let set = try await ctl(daemon, "set", "lab", "on", "ct=250")
        #expect(set.status == 0, "stderr: \(set.stderr)")
        #expect(
            set.stdout == """
                LIGHT      OUTCOME  APPLIED                IGNORED
                lab.color  applied  isOn colorTemperature  -
                lab.plug   applied  isOn                   colorTemperature
                lab.dim    applied  isOn                   colorTemperature

                """)
        let status = try await ctl(daemon, "--no-legend", "lights", "lab")
        #expect(status.stdout.split(separator: "\n").allSatisfy { $0.contains(" on ") }, "\(status.stdout)")
        let json = try await ctl(daemon, "set", "lab", "off", "--json")
        #expect(try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))["lights"]?.arrayValue?.count == 3)
    }

    @Test func failuresExitOneAndSayWhatToDo() async throws {
        let daemon = try await startDaemon()
        let unknown = try await ctl(daemon, "get", "lab.nothing")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "lumenctl: no light 'lab.nothing'; list lights with 'lumenctl lights'\n")
        let unsupported = try await ctl(daemon, "set", "lab.plug", "brightness=20")
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.contains("light 'lab.plug' (kind onoff) has no brightness"))
        let directory = TemporaryDirectory()
        let nobody = try await runTool("lumenctl", ["--socket", directory.file("none.sock"), "status"])
        #expect(nobody.status == 1)
        #expect(nobody.stderr.contains("cannot connect to lumend"))
        #expect(nobody.stderr.contains("is lumend running?"))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["set", "lab.dim"], "wrong arguments for 'set'"),
        (["set", "lab.dim", "bright"], "'bright' is not a change"),
        (["--bogus", "status"], "unknown option '--bogus'"),
        ([], "no command given"),
        // A value out of range is a usage mistake whether lumenctl or lumend finds it.
        (["set", "lab.color", "xy=2,3"], "xy takes two numbers from 0 to 1"),
        (["set", "lab.dim", "brightness=140"], "brightness"),
    ])
    func usageMistakesExitTwo(arguments: [String], message: String) async throws {
        let daemon = try await startDaemon()
        let result = try await runTool("lumenctl", ["--socket", daemon.socketPath] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test func everyCommandHasHelp() async throws {
        for command in [
            "status", "rooms", "lights", "get", "set", "rename", "discover", "watch", "sim", "describe", "call",
            "completion",
        ] {
            #expect(try await runTool("lumenctl", ["--help"]).stdout.contains("\n  \(command) "), "\(command)")
            let result = try await runTool("lumenctl", [command, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Usage: lumenctl"), "\(command): \(result.stdout)")
        }
        #expect(
            try await runTool("lumenctl", ["completion", "bash"]).stdout.contains("complete -F _lumenctl lumenctl"))
    }

    /// `sim faults` takes what `setFaults` takes: every device setting, which its help names.
    @Test func simFaultsHelpNamesEveryDeviceSetting() async throws {
        let help = try await runTool("lumenctl", ["sim", "--help"]).stdout.split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        for key in DeviceSettings.keys { #expect(help.contains(key), "sim --help does not name \(key)") }
    }

    @Test func discoverShowsLightsAsTheyAreFoundAndASummary() async throws {
        let daemon = try await startDaemon(clock: "virtual")
        let discover = try DaemonProcess(
            arguments: ["--socket", daemon.socketPath, "discover", "attic"], directory: daemon.directory,
            executable: DaemonProcess.builtBinary("lumenctl"), setPaths: false)
        let harness = try daemon.connect()
        let room = try await harness.result("open", ["scope": 0, "connection": "room", "configuration": "attic"])
        // Wait (by round trips, not time) until lumenctl has started the scan.
        var scanning = false
        for _ in 0..<5_000 where !scanning {
            scanning =
                try await harness.result("get", ["scope": room["scope"]!, "connection": "isScanning"])["value"] == true
        }
        try #require(scanning, "lumenctl never started the scan: \(discover.stderr)")
        let simulation = try await harness.result("open", ["scope": 0, "connection": "simulation"])
        _ = try await harness.result(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 61_000]])
        #expect(await discover.waitForExit() == 0, "stderr: \(discover.stderr)")
        #expect(discover.stdout.contains("  found attic.new\n"))
        #expect(discover.stdout.hasSuffix("Scan of Attic finished: 1 new light: attic.new\n"), "\(discover.stdout)")
        // Run again, it reports the new scan, not the one that just ended.
        let again = try DaemonProcess(
            arguments: ["--socket", daemon.socketPath, "discover", "attic"], directory: daemon.directory,
            executable: DaemonProcess.builtBinary("lumenctl"), setPaths: false)
        scanning = false
        for _ in 0..<5_000 where !scanning {
            scanning =
                try await harness.result("get", ["scope": room["scope"]!, "connection": "isScanning"])["value"] == true
        }
        try #require(scanning, "the second lumenctl never started a scan: \(again.stderr)")
        _ = try await harness.result(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 61_000]])
        #expect(await again.waitForExit() == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.hasSuffix("Scan of Attic finished: no new lights\n"), "\(again.stdout)")
    }

    @Test func describeListsEachScopesConnections() async throws {
        let daemon = try await startDaemon()
        let result = try await ctl(daemon, "describe", "light", "--no-legend")
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["light", "isOn", "writable", "bool"]), "\(result.stdout)")
        #expect(rows.contains(["light", "isReachable", "value", "bool"]))
        let all = try await ctl(daemon, "describe", "--json")
        let scopes = try JSONParser.parse(all.stdout.trimmingCharacters(in: .newlines))
        #expect(scopes.objectValue?.keys.sorted() == ["home", "light", "room", "simulation"])
        #expect(try await ctl(daemon, "describe", "garage").stderr.contains("no scope type 'garage'"))
    }

    @Test func getTakesTheWordsSetTakes() async throws {
        let daemon = try await startDaemon()
        #expect(try await ctl(daemon, "get", "lab.color", "ct").stdout == "366\n")
        #expect(try await ctl(daemon, "get", "lab.color", "colorTemperature").stdout == "366\n")
    }

    @Test func aCommandThatOutlastsItsTimeoutExitsOneSayingSo() async throws {
        // On the virtual clock a set waits until the clock moves, which nobody does here.
        let daemon = try await startDaemon(clock: "virtual")
        let result = try await ctl(daemon, "--timeout", "0.3", "set", "lab.plug", "on")
        #expect(result.status == 1)
        #expect(result.stderr.contains("did not finish 'set' within 0.3 s (--timeout)"), "\(result.stderr)")
        #expect(result.stderr.contains("still pending in lumend"), "\(result.stderr)")
        #expect(try await ctl(daemon, "--timeout", "0", "status").status == 2)
    }

    /// A change that waits on a virtual clock nobody moves says, once, why it waits, and goes on waiting.
    @Test func aChangeWaitingOnAVirtualClockSaysWhy() async throws {
        let daemon = try await startDaemon(clock: "virtual")
        let result = try await ctl(daemon, "--timeout", "0.6", "set", "lab.plug", "on")
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        let why =
            "lumenctl: still waiting: lumend's clock is virtual, so a change is confirmed once the clock is "
            + "advanced ('lumenctl sim advance MS', from another shell)"
        #expect(lines.first.map(String.init) == why, "\(result.stderr)")
        #expect(lines.last?.contains("did not finish 'set'") == true, "\(result.stderr)")
        let real = try await ctl(try await startDaemon(), "set", "lab.plug", "on")
        #expect(real.status == 0 && real.stderr.isEmpty, "\(real.stderr)")
    }

    @Test func theShellKeepsOneSessionSoScopesOpenedOnOneLineServeTheNext() async throws {
        let daemon = try await startDaemon()
        let script = daemon.directory.file("script.txt")
        let lines = [
            #"call open '{"scope":0,"connection":"room","configuration":"lab"}' --json"#,
            #"call get {"scope":1, "connection":"name"} --json"#,
            "get lab.color ct", "nonsense", "exit", "status",
        ]
        _ = FileManager.default.createFile(atPath: script, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        let shell = try DaemonProcess(
            arguments: [
                "-c", "'\(DaemonProcess.builtBinary("lumenctl"))' --socket '\(daemon.socketPath)' shell < '\(script)'",
            ],
            directory: daemon.directory, executable: "/bin/sh", setPaths: false)
        // The session goes on past the mistake, and its exit status tells of it (a usage mistake: 2).
        #expect(await shell.waitForExit() == 2, "\(shell.stderr)")
        #expect(
            shell.stdout == #"{"scope":1,"type":"room"}"# + "\n" + #"{"value":"Lab"}"# + "\n366\n", "\(shell.stdout)")
        #expect(shell.stderr.contains("'nonsense' is not a command here"))
    }

    @Test func aShellWhoseEveryLineSucceededExitsZero() async throws {
        let daemon = try await startDaemon()
        let script = daemon.directory.file("fine.txt")
        _ = FileManager.default.createFile(atPath: script, contents: Data("get lab.color ct\nrooms\n".utf8))
        let shell = try DaemonProcess(
            arguments: [
                "-c", "'\(DaemonProcess.builtBinary("lumenctl"))' --socket '\(daemon.socketPath)' shell < '\(script)'",
            ],
            directory: daemon.directory, executable: "/bin/sh", setPaths: false)
        #expect(await shell.waitForExit() == 0, "\(shell.stderr)")
    }

    @Test func mistakesAreToldInTheWordsTheUserTyped() async throws {
        let daemon = try await startDaemon()
        // Out of range, found by lumend: a usage mistake like those lumenctl finds itself.
        let faults = try await ctl(daemon, "sim", "faults", "lab.dim", "timeoutMs=-3")
        #expect(faults.status == 2)
        #expect(faults.stderr.contains("timeoutMs: -3 is out of range"), "\(faults.stderr)")
        #expect(!faults.stderr.contains("params."), "\(faults.stderr)")
        let xy = try await ctl(daemon, "set", "lab.color", "xy=2,3")
        #expect(xy.status == 2)
        #expect(xy.stderr.contains("xy takes two numbers from 0 to 1"), "\(xy.stderr)")
        let cycle = try await ctl(daemon, "sim", "power-cycle", "lab.dim", "-5")
        #expect(cycle.status == 2)
        #expect(cycle.stderr.contains("power-cycle takes 0–3600000 milliseconds"), "\(cycle.stderr)")
        let twice = try await ctl(daemon, "set", "lab.dim", "on", "brightness=20", "off")
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("'off' changes isOn again; give each change once"), "\(twice.stderr)")
    }

    /// A light that refuses changes while off (as Hue bulbs do) takes a brightness that comes with `on`, in
    /// either order: lumenctl sends a light's changes as one command.
    @Test func severalChangesToALightAreOneCommand() async throws {
        let home = TestFixtures.instantHome.replacingOccurrences(
            of: #""defaults": {"latency": "instant", "timeoutMs": 1000}"#,
            with: #""defaults": {"latency": "instant", "timeoutMs": 1000, "whileOff": "refuse"}"#)
        let daemon = try await startDaemon(home: home)
        let result = try await ctl(daemon, "set", "lab.dim", "brightness=30", "on")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "lab.dim: brightness=30 isOn=true\n")
        // One command in the record, from lumenctl's session, applied.
        let log = try await ctl(daemon, "sim", "log", "lab.dim", "--json").stdout.split(separator: "\n")
        #expect(log.count == 1, "\(log)")
        let record = try JSONParser.parse(String(log[0]))
        #expect(record["change"] == ["isOn": true, "brightness": 30] && record["outcome"] == "applied", "\(record)")
        #expect(try await ctl(daemon, "get", "lab.dim", "brightness").stdout == "30\n")
        // Off, a brightness alone is still refused, with what to do.
        _ = try await ctl(daemon, "set", "lab.dim", "off")
        let refused = try await ctl(daemon, "set", "lab.dim", "brightness=60")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("turn it on first, or in the same set"), "\(refused.stderr)")
    }

    @Test func coloursAsPeopleWriteThem() async throws {
        let daemon = try await startDaemon()
        #expect(try await ctl(daemon, "set", "attic.tunable", "ct=2700K").status == 0)
        #expect(try await ctl(daemon, "get", "attic.tunable", "colorTemperature").stdout == "370\n")
        #expect(try await ctl(daemon, "set", "lab.color", "color=#ff8800").status == 0)
        let color = try await ctl(daemon, "get", "lab.color", "color", "--json").stdout
        let xy = try JSONParser.parse(color.trimmingCharacters(in: .newlines))
        #expect(abs((xy["value"]?["x"]?.doubleValue ?? 0) - 0.5975) < 0.001, "\(color)")
        #expect(try await ctl(daemon, "set", "lab.color", "rgb=255,136,0").status == 0)
        // A light of colour temperature only: the temperature nearest the colour.
        #expect(try await ctl(daemon, "set", "attic.tunable", "color=#ffffff").status == 0)
        #expect(
            try await ctl(daemon, "get", "attic.tunable", "colorTemperature").stdout
                == "\(CIEColor(red: 255, green: 255, blue: 255).mireds)\n")
        let bad = try await ctl(daemon, "set", "lab.color", "color=orange")
        #expect(bad.status == 2 && bad.stderr.contains("color takes #RRGGBB"), "\(bad.stderr)")
        // On a light of colour temperature only, a colour and a temperature would both set the temperature.
        let twice = try await ctl(daemon, "set", "attic.tunable", "ct=300", "color=#ff8800")
        #expect(twice.status == 2 && twice.stderr.contains("'ct=300'"), "\(twice.stderr)")
        #expect(
            try await ctl(daemon, "get", "attic.tunable", "colorTemperature").stdout
                == "\(CIEColor(red: 255, green: 255, blue: 255).mireds)\n")
    }

    /// A checkpoint restored and a reset are announced to open scopes and saved: a restart finds them.
    @Test func resetAndCheckpointsChangeTheHomeWhileItRunsAndLast() async throws {
        let daemon = try await startDaemon()
        let watcher = try daemon.connect()
        let room = try await watcher.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let dimmer = try await watcher.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.dim"])["scope"]!
        _ = try await watcher.result("subscribe", ["scope": dimmer, "connection": "brightness"])
        #expect(try await ctl(daemon, "sim", "checkpoint", "start").status == 0)
        _ = try await ctl(daemon, "set", "lab.dim", "on", "brightness=80")
        _ = try await ctl(daemon, "sim", "remove-light", "lab.plug")
        #expect(try await ctl(daemon, "sim", "restore", "start").status == 0)
        let brightness = try await watcher.waitForNotifications(2).compactMap { $0["params"]?["value"] }
        #expect(brightness == [80, 50], "\(brightness)")
        #expect(try await ctl(daemon, "get", "lab.plug", "isOn").stdout == "false\n")
        let missing = try await ctl(daemon, "sim", "restore", "later")
        #expect(missing.status == 1 && missing.stderr.contains("no checkpoint 'later'"), "\(missing.stderr)")
        #expect(try await ctl(daemon, "sim", "drop-checkpoint", "start").status == 0)
        let dropped = try await ctl(daemon, "sim", "restore", "start")
        #expect(dropped.status == 1 && dropped.stderr.contains("no checkpoint 'start'"), "\(dropped.stderr)")
        // A reset goes back to the fixture; a light added since goes, and its scope closes.
        _ = try await ctl(daemon, "sim", "add-light", "lab", "lab.new", "dimmable")
        let added = try await watcher.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.new"])["scope"]!
        _ = try await ctl(daemon, "set", "lab.dim", "brightness=20")
        #expect(try await ctl(daemon, "sim", "reset").status == 0)
        let closed = try await watcher.waitForNotifications(2).filter { $0["method"] == "closed" }
        #expect(closed.map { $0["params"]?["scope"] } == [added], "\(closed)")
        // Saved as any change is: after a restart the home is still the fixture's.
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        let again = try DaemonProcess(
            arguments: ["--fixture", daemon.directory.file("home.json"), "--clock", "real"],
            directory: daemon.directory)
        _ = try #require(await again.waitUntilReady(), "stderr: \(again.stderr)")
        #expect(try await ctl(again, "get", "lab.dim", "brightness").stdout == "50\n")
        #expect(try await ctl(again, "get", "lab.new", "isOn").status != 0)
    }

    @Test func simAddsALight() async throws {
        let daemon = try await startDaemon()
        #expect(try await ctl(daemon, "sim", "add-light", "lab", "lab.new", "dimmable", "New lamp").status == 0)
        let lights = try await ctl(daemon, "lights", "lab", "--no-legend").stdout
        #expect(lights.contains("lab.new    lab  New lamp  dimmable"), "\(lights)")
    }

    @Test func watchPrintsOneLinePerChange() async throws {
        let daemon = try await startDaemon()
        let watch = try DaemonProcess(
            arguments: ["--socket", daemon.socketPath, "watch", "light:lab.plug", "--json"],
            directory: daemon.directory,
            executable: DaemonProcess.builtBinary("lumenctl"), setPaths: false)
        // Wait (by round trips) until lumenctl has subscribed: the daemon logs no subscriptions, so change the
        // value until lumenctl reports it.
        var seen = ""
        for round in 0..<200 where !seen.contains(#""value":true"#) {
            _ = try await ctl(daemon, "set", "lab.plug", round % 2 == 0 ? "on" : "off")
            seen = watch.stdout
        }
        watch.signal(SIGTERM)
        _ = await watch.waitForExit()
        let lines = watch.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(
            lines.contains { $0?["scope"] == "light lab.plug" && $0?["connection"] == "isOn" && $0?["value"] == true })
    }

    @Test func watchOnTheVirtualClockStampsChangesWithItsTime() async throws {
        let daemon = try await startDaemon(clock: "virtual")
        #expect(try await ctl(daemon, "sim", "advance", "61250").status == 0)
        let watch = try DaemonProcess(
            arguments: ["--socket", daemon.socketPath, "watch", "light:lab.plug"], environment: ["NO_COLOR": "1"],
            directory: daemon.directory, executable: DaemonProcess.builtBinary("lumenctl"), setPaths: false)
        // Reachability changes at once, without waiting for the clock: changed until lumenctl reports it.
        var seen = ""
        for round in 0..<200 where !seen.contains("isReachable=false") {
            _ = try await ctl(daemon, "sim", "reachable", "lab.plug", round % 2 == 0 ? "no" : "yes")
            seen = watch.stdout
        }
        watch.signal(SIGTERM)
        _ = await watch.waitForExit()
        let line = try #require(watch.stdout.split(separator: "\n").first { $0.contains("isReachable=false") })
        // The simulated wall clock starts at midnight on the virtual clock unless told otherwise.
        #expect(line == "00:01:01.250 light lab.plug isReachable=false", "\(watch.stdout)")
    }

    @Test func simDrivesTheClockAndFaults() async throws {
        let daemon = try await startDaemon(clock: "virtual")
        #expect(try await ctl(daemon, "sim", "advance", "1500").stdout == "clock: virtual, 1500 ms\n")
        #expect(try await ctl(daemon, "sim", "settle").stdout == "clock: virtual, 1500 ms (+0 ms, idle)\n")
        #expect(try await ctl(daemon, "sim", "next").stdout == "clock: virtual, 1500 ms (+0 ms)\n")
        let log = try await ctl(daemon, "sim", "log", "lab", "--no-legend")
        #expect(log.status == 0 && log.stdout.isEmpty, "\(log.stdout)\(log.stderr)")
        let typo = try await ctl(daemon, "sim", "log", "lab.dimm")
        #expect(typo.status == 1 && typo.stderr.contains("no light or room 'lab.dimm'"), "\(typo.stderr)")
        #expect(try await ctl(daemon, "sim", "clear-log").stdout == "cleared 0 commands from the record\n")
        #expect(try await ctl(daemon, "sim", "reachable", "lab.dim", "no").status == 0)
        #expect(try await ctl(daemon, "get", "lab.dim", "isReachable").stdout == "false\n")
        let truth = try await ctl(daemon, "sim", "device", "lab.dim").stdout
        #expect(truth.hasPrefix("lab.dim (generic): unreachable; "), "\(truth)")
        #expect(try await ctl(daemon, "sim", "link-button").stdout == "ok\n")
        let call = try await ctl(daemon, "call", "get", #"{"scope":0,"connection":"name"}"#, "--json")
        #expect(call.stdout == #"{"value":"Test Home"}"# + "\n")
    }
}

@Suite("Shipped files", .timeLimit(.minutes(2)))
struct ShippedFileTests {
    @Test(arguments: ["bash", "zsh", "fish"])
    func theCompletionScriptsInTheRepositoryAreWhatTheProgramsPrint(shell: String) async throws {
        for (program, arguments) in [("lumenctl", ["completion", shell]), ("lumend", ["--completion", shell])] {
            let shipped = try String(
                contentsOfFile: TestFixtures.repositoryRoot + "/completions/\(program).\(shell)", encoding: .utf8)
            #expect(
                try await runTool(program, arguments).stdout == shipped,
                "completions/\(program).\(shell) is stale; run 'make completions'")
        }
    }
}
