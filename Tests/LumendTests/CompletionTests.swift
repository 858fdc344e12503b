import Foundation
import LumenTestSupport
import Testing

/// The completion scripts lumenctl prints, run in each shell against a real lumend: light IDs are offered
/// where a light is expected.
@Suite("Shell completion", .timeLimit(.minutes(2)))
struct CompletionTests {
    /// A lumend on the instant test home, and the environment a shell needs to find it and lumenctl.
    func start() async throws -> (daemon: DaemonProcess, environment: [String: String]) {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(TestFixtures.instantHome.utf8))
        let daemon = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "stderr: \(daemon.stderr)")
        let tools = (DaemonProcess.builtBinary("lumenctl") as NSString).deletingLastPathComponent
        let path = tools + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return (daemon, ["PATH": path, "LUMEN_SOCKET": daemon.socketPath, "HOME": directory.path])
    }

    /// Runs `script` in `shell`, or `nil` when the shell is not installed.
    func run(_ shell: String, _ arguments: [String], environment: [String: String]) async throws -> String? {
        guard let program = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: FileManager.default.isExecutableFile)
        else { return nil }
        let process = try DaemonProcess(
            arguments: arguments, environment: environment, executable: program, setPaths: false)
        let status = await process.waitForExit()
        #expect(status == 0, "\(shell) failed: \(process.stderr)")
        return process.stdout
    }

    func script(_ shell: String) async throws -> String {
        let result = try await runTool("lumenctl", ["completion", shell])
        #expect(result.status == 0)
        return result.stdout
    }

    @Test func bashOffersLightIDsCommandsAndChanges() async throws {
        let (daemon, environment) = try await start()

        let file = daemon.directory.file("lumenctl.bash")
        try await script("bash").write(toFile: file, atomically: true, encoding: .utf8)
        func complete(_ words: String) async throws -> [String]? {
            let count = words.split(separator: " ", omittingEmptySubsequences: false).count
            let shell = """
                source \(file)
                COMP_WORDS=(\(words.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")))
                COMP_CWORD=\(count - 1)
                _lumenctl
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            return try await run("bash", ["-c", shell], environment: environment)?.split(separator: "\n").map(
                String.init)
        }
        guard let lights = try await complete("lumenctl get ") else {
            print("SKIPPED: bash completion: bash is not installed")
            return
        }
        #expect(lights == ["lab.color", "lab.plug", "lab.dim", "attic.tunable"])
        #expect(try await complete("lumenctl get lab.dim b") == ["brightness"])
        #expect(try await complete("lumenctl --socket /x st") == ["status"])
        #expect(try await complete("lumenctl set lab.dim on b") == ["brightness="])
        #expect(try await complete("lumenctl set a")?.sorted() == ["attic", "attic.tunable"])
        #expect(try await complete("lumenctl --tr") == ["--transition"])
    }

    @Test func fishOffersLightIDsWhereALightIsExpected() async throws {
        let (daemon, environment) = try await start()

        let file = daemon.directory.file("lumenctl.fish")
        try await script("fish").write(toFile: file, atomically: true, encoding: .utf8)
        func complete(_ line: String) async throws -> [String]? {
            let command = "source \(file); complete -C '\(line)'"
            return try await run("fish", ["--no-config", "-c", command], environment: environment)?
                .split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        guard let lights = try await complete("lumenctl get ") else {
            print("SKIPPED: fish completion: fish is not installed (make deps installs it)")
            return
        }
        #expect(lights.sorted() == ["attic.tunable", "lab.color", "lab.dim", "lab.plug"])
        #expect(try await complete("lumenctl get lab.dim colorT") == ["colorTemperature"])
        #expect(try await complete("lumenctl sta") == ["status"])
        #expect(try await complete("lumenctl --no-l") == ["--no-legend"])
    }

    @Test func zshOffersLightIDsWhereALightIsExpected() async throws {
        let (daemon, environment) = try await start()

        let file = daemon.directory.file("_lumenctl")
        try await script("zsh").write(toFile: file, atomically: true, encoding: .utf8)
        // Without a terminal zsh's completion system cannot run, so its entry points are stood in for: what
        // `_arguments` decides (the state), and what `compadd` is given, which is what zsh would offer.
        func complete(state: String, words: [String]) async throws -> [String]? {
            let shell = """
                _arguments() { state=\(state); return 1 }
                _describe() { local -a list; list=("${(@P)2}"); print -l -- "${list[@]%%:*}" }
                compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
                _files() { print -- FILES }
                _message() { }
                words=(\(words.map { "'\($0)'" }.joined(separator: " ")))
                CURRENT=\(words.count)
                source \(file)
                """
            return try await run("zsh", ["-f", "-c", shell], environment: environment)?
                .split(separator: "\n").map(String.init)
        }
        guard let lights = try await complete(state: "argument", words: ["get", ""]) else {
            print("SKIPPED: zsh completion: zsh is not installed (make deps installs it)")
            return
        }
        #expect(lights == ["lab.color", "lab.plug", "lab.dim", "attic.tunable"])
        #expect(try await complete(state: "argument", words: ["get", "lab.dim", ""])?.contains("brightness") == true)
        #expect(try await complete(state: "command", words: [""])?.contains("status") == true)
        #expect(try await complete(state: "value---socket", words: [""]) == ["FILES"])
    }
}
