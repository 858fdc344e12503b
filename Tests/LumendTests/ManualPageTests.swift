import Foundation
import LumenTestSupport
import Testing

/// The manual pages say what the programs do: every option `--help` lists is in the page and the other way
/// round, and every page builds.
@Suite("Manual pages", .timeLimit(.minutes(1)))
struct ManualPageTests {
    static let manual = TestFixtures.repositoryRoot + "/man"

    /// The lines of `text` between `start` (a line that begins with it) and the next line that is not
    /// indented and not blank.
    static func section(_ text: String, from start: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
        return Array(
            lines[(first + 1)...].prefix { $0.isEmpty || $0.first == " " || $0.first == "\t" || $0.first == "*" })
    }

    /// The option names (`--socket`, `-h`) that begin the entries among `lines`: lines that start with
    /// `indent` and then an option (`  -h, --help  …` in help, `*-h*, *--help*` in a page).
    static func optionNames(_ lines: [Substring], indent: String) -> Set<String> {
        var names = Set<String>()
        for line in lines where line.hasPrefix(indent) {
            let entry = line.dropFirst(indent.count)
            guard entry.hasPrefix("-") || entry.hasPrefix("*-") else { continue }
            for word in entry.split(separator: " ") {
                let name = word.trimmingCharacters(in: CharacterSet(charactersIn: "*,"))
                guard name.hasPrefix("-") else { break }
                names.insert(name)
            }
        }
        return names
    }

    func page(_ name: String) throws -> String {
        try String(contentsOfFile: "\(Self.manual)/\(name).scd", encoding: .utf8)
    }

    @Test(arguments: [("lumend", "lumend.8"), ("lumenctl", "lumenctl.1")])
    func everyOptionInTheHelpIsInThePageAndTheOtherWayRound(program: String, page name: String) async throws {
        let help = try await runTool(program, ["--help"]).stdout
        let helped = Self.optionNames(Self.section(help, from: "Options:"), indent: "  ")
        let paged = Self.optionNames(Self.section(try page(name), from: "# OPTIONS"), indent: "")
        #expect(!helped.isEmpty && !paged.isEmpty)
        #expect(
            helped.subtracting(paged).isEmpty, "in --help but not in \(name): \(helped.subtracting(paged).sorted())")
        #expect(
            paged.subtracting(helped).isEmpty, "in \(name) but not in --help: \(paged.subtracting(helped).sorted())")
    }

    @Test func everyLumenctlCommandIsInItsPage() async throws {
        let help = try await runTool("lumenctl", ["--help"]).stdout
        let commands = Set(
            Self.section(help, from: "Commands:").compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            })
        let paged = Set(
            Self.section(try page("lumenctl.1"), from: "# COMMANDS").compactMap { line -> String? in
                guard line.hasPrefix("*") else { return nil }
                return line.split(separator: "*").first.map(String.init)
            })
        #expect(commands.count >= 10)
        #expect(commands == paged, "help: \(commands.sorted()), page: \(paged.sorted())")
    }

    @Test(arguments: ["lumend.8", "lumenctl.1", "lumen-fixture.5", "lumen-protocol.7"])
    func thePageBuilds(name: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/scdoc") else {
            print("SKIPPED: building \(name): scdoc is not installed (make deps installs it)")
            return
        }
        let output = TemporaryDirectory()
        let build = try DaemonProcess(
            arguments: ["-c", "scdoc < '\(Self.manual)/\(name).scd' > '\(output.file(name))'"],
            executable: "/bin/sh", setPaths: false)
        #expect(await build.waitForExit() == 0, "\(build.stderr)")
        let built = try String(contentsOfFile: output.file(name), encoding: .utf8)
        #expect(built.contains(".SH NAME") || built.contains(".SH \"NAME\""))
    }
}
