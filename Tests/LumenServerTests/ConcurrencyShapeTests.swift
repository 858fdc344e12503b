import Foundation
import Testing

/// Keeps the concurrency shape `docs/architecture.md` draws: nothing spins or hands work to Dispatch's shared
/// threads, no cast strips an actor's isolation, and what a loop owns is checked, not locked.
enum ConcurrencyShapeScanner {
    /// Spellings that have no place in the sources.
    static let forbidden = ["unsafeBitCast", "sched_yield", "DispatchQueue.global"]
    /// Spellings that have no place beside loop-owned state (a file with a `LoopBound`).
    static let locks = ["Locked<", "Locked(", "Mutex", "Atomic<", "NSLock", "pthread_mutex"]

    /// The problems in one file's text, as `file:line: what`.
    static func scan(_ text: String, file: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let loopOwned = text.contains("LoopBound<") && !file.hasSuffix("LoopBound.swift")
        var findings: [String] = []
        for (index, raw) in lines.enumerated() {
            let code = raw.components(separatedBy: "//").first ?? ""
            for spelling in forbidden where code.contains(spelling) {
                findings.append("\(file):\(index + 1): \(spelling)")
            }
            if loopOwned {
                for spelling in locks where code.contains(spelling) {
                    findings.append("\(file):\(index + 1): \(spelling) beside loop-owned state")
                }
            }
        }
        return findings
    }
}

@Suite("The concurrency shape of the sources")
struct ConcurrencyShapeTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test func noSpinningNoIsolationCastsNoSharedDispatchThreadsAndNoLocksOnLoopOwnedState() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.sources.path)
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "no sources found under \(Self.sources.path)")
        var findings: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            findings += ConcurrencyShapeScanner.scan(text, file: file)
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    @Test func theScannerFindsWhatItLooksFor() {
        let text = """
            let state: LoopBound<State>
            let count = Atomic<Int>(0)  // a Mutex in a comment is fine
            DispatchQueue.global().async {}
            """
        #expect(
            ConcurrencyShapeScanner.scan(text, file: "Sample.swift") == [
                "Sample.swift:2: Atomic< beside loop-owned state", "Sample.swift:3: DispatchQueue.global",
            ])
    }
}
