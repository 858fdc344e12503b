import Foundation
import LumenTestSupport
import Testing

@testable import LumenDaemon

@Suite("The HTTP token file")
struct HTTPTokenFileTests {
    /// Reads `text` as a token file's contents, as lumend does at start.
    func token(in text: String) throws -> String {
        let directory = TemporaryDirectory()
        let path = directory.file("token")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try Daemon.httpToken(try DaemonOptions.parse(["--http-token-file", path], environment: [:]))
    }

    @Test func theFirstLineIsTheTokenWithoutTheSpacesAroundIt() throws {
        #expect(try token(in: "  abcdefghijklmnop-_~!\t\nsecond line\n") == "abcdefghijklmnop-_~!")
        let shortest = String(repeating: "a", count: 16)
        let longest = String(repeating: "~", count: 256)
        #expect(try token(in: shortest) == shortest && token(in: longest) == longest)
    }

    /// 16 to 256 printable ASCII characters: a control character (an escape, a DEL) would reach a header as it is.
    @Test(arguments: [
        String(repeating: "a", count: 15), String(repeating: "x", count: 257), "abcdefgh ijklmnop",
        "abcdefgh\u{1B}ijklmnop", "abcdefgh\u{7F}ijklmnop", "abcdefghijklmnopé",
    ])
    func aTokenOfAnythingElseIsRefusedSayingWhatItMustBe(_ text: String) throws {
        do {
            _ = try token(in: text)
            Issue.record("taken: \(text.debugDescription)")
        } catch let error as Daemon.StartupError {
            #expect(error.description.contains("16 to 256 printable ASCII characters"), "\(error)")
        }
    }

    /// A token is the first line and at most 256 characters: no more than a token file can hold is read, so a
    /// device that never ends (`/dev/zero`) is refused, saying why, without filling the memory.
    @Test func aFirstLineLongerThanATokenFileHoldsIsRefusedWithoutReadingOn() throws {
        let options = try DaemonOptions.parse(["--http-token-file", "/dev/zero"], environment: [:])
        let error = try #require(throws: Daemon.StartupError.self) { try Daemon.httpToken(options) }
        #expect(error.description.contains("its first line is longer than 4096 bytes"), "\(error)")
    }

    /// A first line of exactly as many bytes as a token file may hold is not longer than that: with no newline
    /// after it, it is still the token (the spaces after it trimmed).
    @Test func aFirstLineOfExactlyTheLimitIsTaken() throws {
        let token = "abcdefghijklmnopqrstuvwxyz"
        let limit = Daemon.httpTokenFileLimit
        let padded = token + String(repeating: " ", count: limit - token.utf8.count)
        #expect(try self.token(in: padded) == token)
        // One byte more, and it is longer.
        let error = try #require(throws: Daemon.StartupError.self) { try self.token(in: padded + " ") }
        #expect(error.description.contains("its first line is longer than 4096 bytes"), "\(error)")
    }

    @Test func aTokenFollowedByMuchMoreIsStillTakenFromTheFirstLine() throws {
        let token = "abcdefghijklmnopqrstuvwxyz"
        #expect(try self.token(in: token + "\n" + String(repeating: "x", count: 1 << 20)) == token)
    }
}
