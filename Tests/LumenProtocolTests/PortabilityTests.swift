import Foundation
import Testing

/// Finds calls and constants that exist only on Linux, outside a branch that only Linux compiles.
///
/// `LumenProtocol` and `LumenClient` are meant to build wherever Swift and SwiftUI run; this is what keeps a
/// Linux-only spelling from creeping into them unnoticed, since only Linux builds them here.
enum LinuxOnlyScanner {
    /// Spellings that do not exist (or mean something else) on Darwin.
    static let linuxOnly = [
        "SOCK_CLOEXEC", "SOCK_NONBLOCK", "MSG_NOSIGNAL", "Glibc.", "import Glibc", "epoll", "eventfd", "accept4",
        "pipe2", "SO_PEERCRED", "inotify", "pidfd", "import CLinux", "import CSystemd", "O_PATH",
        "SOCK_STREAM.rawValue", "SOCK_DGRAM.rawValue", "malloc_trim", "prctl",
    ]

    /// One finding: where, and what.
    struct Finding: CustomStringConvertible, Equatable {
        var file: String
        var line: Int
        var spelling: String
        var description: String { "\(file):\(line): \(spelling) outside a Linux-only branch" }
    }

    /// The findings in one file's text.
    static func scan(_ text: String, file: String) -> [Finding] {
        var findings: [Finding] = []
        // One entry per open `#if`: whether the branch being read is compiled on Linux only.
        var guarded: [Bool] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if ") {
                guarded.append(isLinuxCondition(line))
                continue
            }
            if line.hasPrefix("#elseif ") {
                if !guarded.isEmpty { guarded[guarded.count - 1] = isLinuxCondition(line) }
                continue
            }
            if line.hasPrefix("#else") {
                if !guarded.isEmpty { guarded[guarded.count - 1] = false }
                continue
            }
            if line.hasPrefix("#endif") {
                _ = guarded.popLast()
                continue
            }
            if line.hasPrefix("//") || guarded.contains(true) { continue }
            let code = line.components(separatedBy: "//").first ?? line
            for spelling in linuxOnly where code.contains(spelling) {
                findings.append(Finding(file: file, line: index + 1, spelling: spelling))
            }
        }
        return findings
    }

    private static func isLinuxCondition(_ line: String) -> Bool {
        (line.contains("os(Linux)") || line.contains("canImport(Glibc)")) && !line.contains("!")
    }
}

@Suite("Portability of the client and protocol modules")
struct PortabilityTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test(arguments: ["LumenProtocol", "LumenClient"])
    func noLinuxOnlyCallOutsideAGuardedBranch(module: String) throws {
        let directory = Self.sources.appendingPathComponent(module)
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty, "no sources found under \(directory.path)")
        var findings: [LinuxOnlyScanner.Finding] = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            findings += LinuxOnlyScanner.scan(text, file: "\(module)/\(file)")
        }
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func theScannerFindsAnUnguardedCallAndSparesAGuardedOne() {
        let text = """
            #if os(Linux)
                let flags = MSG_NOSIGNAL
            #elseif canImport(Darwin)
                let flags = SO_NOSIGPIPE
            #else
                let other = SOCK_CLOEXEC
            #endif
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)  // SOCK_CLOEXEC in a comment is fine
            """
        let findings = LinuxOnlyScanner.scan(text, file: "Sample.swift")
        #expect(
            findings == [
                .init(file: "Sample.swift", line: 6, spelling: "SOCK_CLOEXEC"),
                .init(file: "Sample.swift", line: 8, spelling: "SOCK_STREAM.rawValue"),
            ])
    }
}
