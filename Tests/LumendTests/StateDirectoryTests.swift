import Foundation
import LumenModel
import LumenTestSupport
import Testing

@Suite("lumend and its state directory", .timeLimit(.minutes(2)))
struct StateDirectoryTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryExitsNamingTheFirst() async throws {
        let first = try DaemonProcess()
        _ = try #require(await first.waitUntilReady(), "no READY=1; stderr: \(first.stderr)")
        // Another socket, the same state directory.
        let second = try DaemonProcess(
            arguments: ["--socket", first.directory.file("second.sock"), "--state-dir", first.stateDirectory],
            directory: first.directory, setPaths: false)
        #expect(await second.waitForExit() == 1)
        #expect(second.stderr.contains("in use by lumend (PID \(first.pid))"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: first.directory.file("second.sock")))
        // The first goes on serving, and its writes survive its restart.
        let client = try first.connect()
        _ = try await client.result("hello")
        first.signal(SIGTERM)
        #expect(await first.waitForExit() == 0)
    }

    @Test func theSecondNamesTheHolderTheKernelKnowsNotAStaleRecord() async throws {
        let first = try DaemonProcess()
        _ = try #require(await first.waitUntilReady(), "no READY=1; stderr: \(first.stderr)")
        // As a lumend that died left it, before the first wrote its own PID: a PID no process has.
        try "\(Int32.max - 1)\n".write(
            toFile: first.stateDirectory + "/lumend.lock", atomically: false, encoding: .utf8)
        let second = try DaemonProcess(
            arguments: ["--socket", first.directory.file("second.sock"), "--state-dir", first.stateDirectory],
            directory: first.directory, setPaths: false)
        #expect(await second.waitForExit() == 1)
        #expect(second.stderr.contains("in use by lumend (PID \(first.pid))"), "\(second.stderr)")
        first.signal(SIGTERM)
        #expect(await first.waitForExit() == 0)
    }

    @Test func aStateItCannotReadStopsStartUpAndIsLeftAlone() async throws {
        // Root reads any file whatever its mode, so the unreadable file here is a directory in its place.
        let directory = TemporaryDirectory()
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state + "/state.json", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(directory: directory)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("state.json is not a regular file (a directory)"), "\(daemon.stderr)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: state + "/state.json", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }

    /// A FIFO planted as a state file once held start-up in `open` for ever, deaf to SIGTERM.
    @Test(arguments: ["state.json", "state.journal", "state.previous.json"])
    func aFIFOInPlaceOfAStateFileStopsStartUpAtOnce(name: String) async throws {
        let directory = TemporaryDirectory()
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        chmod(state, 0o700)
        try #require(mkfifo(state + "/" + name, 0o600) == 0)
        let daemon = try DaemonProcess(directory: directory)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("\(name) is not a regular file (a FIFO)"), "\(daemon.stderr)")
    }
}

@Suite("lumend and directories other users could plant", .timeLimit(.minutes(2)))
struct PlantedDirectoryTests {
    /// Makes `planted` in `directory`, writable by every user (and, as root, owned by `nobody` when asked).
    static func plant(in directory: TemporaryDirectory, ownedByNobody: Bool = false) throws -> String {
        let planted = directory.file("planted")
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: false)
        chmod(planted, 0o777)
        if ownedByNobody, geteuid() == 0 { chown(planted, 65_534, 65_534) }
        return planted
    }

    @Test func aSocketDirectoryAnotherUserCouldWriteIsRefused() async throws {
        let directory = TemporaryDirectory()
        let planted = try Self.plant(in: directory, ownedByNobody: true)
        let daemon = try DaemonProcess(
            arguments: ["--socket", planted + "/lumend.sock", "--state-dir", directory.file("state")],
            directory: directory, setPaths: false)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("will not listen on \(planted)/lumend.sock"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: planted + "/lumend.sock"))
    }

    @Test func aStateDirectoryInsideAPlantedOneIsRefused() async throws {
        let directory = TemporaryDirectory()
        let planted = try Self.plant(in: directory)
        let daemon = try DaemonProcess(
            arguments: ["--socket", directory.file("lumend.sock"), "--state-dir", planted + "/state"],
            directory: directory, setPaths: false)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("will not keep state in \(planted)/state"), "\(daemon.stderr)")
    }
}

extension PlantedDirectoryTests {
    @Test func lumenctlDoesNotTalkToASocketInAPlantedDefaultDirectory() async throws {
        let directory = TemporaryDirectory()
        let planted = try Self.plant(in: directory)
        let result = try await runTool("lumenctl", ["status"], environment: ["XDG_RUNTIME_DIR": planted])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not trusting it") && result.stderr.contains("writable by other users"))
    }
}

@Suite("lumend and a journal emptied or lost after a crash", .timeLimit(.minutes(2)))
struct LostJournalTests {
    @Test(arguments: ["emptied", "deleted"])
    func aStateMissingAcknowledgedWritesIsNotServedUntilTheLossIsAccepted(how: String) async throws {
        let first = try DaemonProcess()
        _ = try #require(await first.waitUntilReady(), "no READY=1: \(first.stderr)")
        let journal = first.stateDirectory + "/state.journal"
        #expect(await waitForCondition(in: first.stateDirectory) { FileManager.default.fileExists(atPath: journal) })
        let client = try first.connect()
        _ = try await client.result("set", ["scope": 0, "connection": "name", "value": "Renamed"])
        first.signal(SIGKILL)
        _ = await first.waitForExit()
        if how == "emptied" { _ = truncate(journal, 0) } else { unlink(journal) }
        let before = try FileManager.default.contentsOfDirectory(atPath: first.stateDirectory).sorted()

        let refused = try DaemonProcess(directory: first.directory)
        #expect(await refused.waitForExit() == 1)
        #expect(refused.stderr.contains("missing changes that were acknowledged"), "\(refused.stderr)")
        #expect(refused.stderr.contains(journal) && refused.stderr.contains("--accept-loss"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.stateDirectory).sorted() == before)

        let accepted = try DaemonProcess(arguments: ["--accept-loss"], directory: first.directory)
        _ = try #require(await accepted.waitUntilReady(), "no READY=1: \(accepted.stderr)")
        #expect(accepted.stderr.contains("--accept-loss: went on although"), "\(accepted.stderr)")
        let name = try await accepted.connect().result("get", ["scope": 0, "connection": "name"])["value"]
        #expect(name != "Renamed")
        accepted.signal(SIGTERM)
        #expect(await accepted.waitForExit() == 0)
    }
}
