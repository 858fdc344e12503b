import Foundation
import LumenFuzzing
import LumenTestSupport
import Testing

/// Every input in the fuzz corpus, and every crash `make fuzz` ever found (kept in `Tests/Fuzz/crashes` as
/// `<target>-…`), run through its target: a crash found once stays fixed.
@Suite("Fuzz corpus and crash cases")
struct FuzzCorpusTests {
    static let root = TestFixtures.repositoryRoot + "/Tests/Fuzz"

    static func files(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().map { "\(directory)/\($0)" }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCorpusInputRuns(_ target: FuzzTarget) async throws {
        let inputs = Self.files(in: "\(Self.root)/corpus/\(target.rawValue)")
        #expect(!inputs.isEmpty, "no seed corpus for \(target)")
        for path in inputs { await target.run(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) }
    }

    @Test func everyCrashFoundIsReplayed() async throws {
        for path in Self.files(in: "\(Self.root)/crashes") {
            let name = (path as NSString).lastPathComponent
            let target = try #require(
                FuzzTarget(rawValue: String(name.prefix { $0 != "-" })), "\(name) names no target")
            await target.run(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }
}
