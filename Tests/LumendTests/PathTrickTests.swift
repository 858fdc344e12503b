import Foundation
import LumenTestSupport
import Testing

/// What another local user (`nobody`) could do to the paths lumend is given, each met at start: a relative
/// path into a directory they may write, a symbolic link they own at any level, a link to a directory they
/// may write, and a sticky directory open to all.
@Suite("lumend and the paths another user could bend", .serialized, .timeLimit(.minutes(2)))
struct PathTrickTests {
    static let nobody: UInt32 = 65_534
    static let asRoot = geteuid() == 0

    /// Whether `stderr` refuses `path` for what another user could do to it (as root the test makes nobody
    /// its owner too, which is said first).
    func refuses(_ stderr: String, _ path: String) -> Bool {
        stderr.contains("\(path) is writable by other users") || stderr.contains("\(path) belongs to uid 65534")
    }

    /// lumend started in `directory` as its working directory, with `arguments` (paths not set for it).
    func lumend(in directory: TemporaryDirectory, _ arguments: [String]) throws -> DaemonProcess {
        try DaemonProcess(
            arguments: arguments, directory: directory,
            prefix: [
                "-c", "cd \"$1\" && shift && exec \"$0\" \"$@\"", DaemonProcess.builtBinary("lumend"), directory.path,
            ],
            executable: "/bin/sh", setPaths: false)
    }

    /// A directory `name` in `directory` with `mode`, owned by nobody when root can make it so.
    func directory(_ name: String, in directory: TemporaryDirectory, mode: mode_t, ownedByNobody: Bool = true) throws
        -> String
    {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
        if ownedByNobody, Self.asRoot { chown(path, Self.nobody, Self.nobody) }
        return path
    }

    @Test func aRelativeSocketPathIsCheckedWhereItLeads() async throws {
        let directory = TemporaryDirectory()
        _ = try self.directory("run777", in: directory, mode: 0o777)
        let daemon = try lumend(in: directory, ["--socket", "run777/l.sock", "--state-dir", "state"])
        #expect(await daemon.waitForExit() == 1)
        #expect(
            daemon.stderr.contains("will not listen on \(directory.path)/run777/l.sock")
                && refuses(daemon.stderr, directory.file("run777")),
            "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("run777/l.sock")))
    }

    @Test func aRelativeStateDirectoryIsCheckedWhereItLeads() async throws {
        let directory = TemporaryDirectory()
        _ = try self.directory("open", in: directory, mode: 0o777)
        let daemon = try lumend(in: directory, ["--socket", "l.sock", "--state-dir", "open/state"])
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("will not keep state in \(directory.path)/open/state"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("open/state")))
    }

    @Test func aStickyStateDirectoryOpenToAllIsRefused() async throws {
        let directory = TemporaryDirectory()
        let sticky = try self.directory("sticky", in: directory, mode: 0o1777, ownedByNobody: false)
        let daemon = try lumend(in: directory, ["--socket", "l.sock", "--state-dir", sticky])
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("even sticky they could place files of their own in it"), "\(daemon.stderr)")
    }

    @Test(.enabled(if: asRoot, "making a link another user owns needs root"), arguments: ["state", "parent", "socket"])
    func aSymbolicLinkAnotherUserOwnsIsRefusedAtAnyLevel(level: String) async throws {
        let directory = TemporaryDirectory()
        let real = try self.directory("real", in: directory, mode: 0o700, ownedByNobody: false)
        let link = directory.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(lchown(link, Self.nobody, Self.nobody) == 0)
        let arguments =
            switch level {
            case "state": ["--socket", "l.sock", "--state-dir", "link"]
            case "parent": ["--socket", "l.sock", "--state-dir", "link/state"]
            default: ["--socket", "link/l.sock", "--state-dir", "state"]
            }
        let daemon = try lumend(in: directory, arguments)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("\(link) is a symbolic link that uid 65534 owns"), "\(daemon.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test func aLinkIsFollowedAndWhereItLeadsIsCheckedToo() async throws {
        let directory = TemporaryDirectory()
        let open = try self.directory("open", in: directory, mode: 0o777)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: open)
        let refused = try lumend(in: directory, ["--socket", "l.sock", "--state-dir", "link/state"])
        #expect(await refused.waitForExit() == 1)
        #expect(refuses(refused.stderr, open), "\(refused.stderr)")
        // A link of the user's own to a directory of theirs is fine: the state lands where it leads.
        let real = try self.directory("real", in: directory, mode: 0o700, ownedByNobody: false)
        try FileManager.default.createSymbolicLink(atPath: directory.file("mine"), withDestinationPath: "real")
        let daemon = try lumend(
            in: directory, ["--socket", "l.sock", "--state-dir", "mine/state", "--clock", "virtual"])
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        #expect(FileManager.default.fileExists(atPath: real + "/state/lumend.lock"))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test(.enabled(if: asRoot, "making a link another user owns needs root"))
    func lumenctlDoesNotFollowALinkAnotherUserOwnsToADefaultSocket() async throws {
        let directory = TemporaryDirectory()
        let real = try self.directory("runtime", in: directory, mode: 0o700, ownedByNobody: false)
        let link = directory.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(lchown(link, Self.nobody, Self.nobody) == 0)
        let result = try await runTool("lumenctl", ["status"], environment: ["XDG_RUNTIME_DIR": link])
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("not trusting it") && result.stderr.contains("symbolic link that uid 65534 owns"),
            "\(result.stderr)")
    }
}
