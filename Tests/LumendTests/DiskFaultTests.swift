import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// A real full disk and a real read-only one: a small tmpfs the test mounts under the daemon's state
/// directory (as root; elsewhere the tests say SKIPPED). Writes that cannot be saved fail with -32040 and say
/// what to do; when space comes back, writes succeed again without a restart, needing only the space of the
/// change; and a restart brings back every acknowledged write.
@Suite("Real disk faults", .serialized, .timeLimit(.minutes(5)))
struct DiskFaultTests {
    /// A tmpfs mounted for one test, unmounted when it is released.
    final class SmallDisk: Sendable {
        let path: String
        let options: String

        init?(at path: String, megabytes: Int) {
            self.path = path
            options = "size=\(megabytes)m,mode=0700"
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard getuid() == 0, mount("tmpfs", path, "tmpfs", 0, options) == 0 else { return nil }
        }

        func remount(readOnly: Bool) -> Bool {
            mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0), options) == 0
        }

        /// Fills the disk to its last page; returns the filler's path.
        @discardableResult
        func fill() -> String {
            let filler = path + "/filler"
            let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            defer { close(fd) }
            for size in [1 << 20, 64 << 10, 4 << 10, 512, 1] {
                let chunk = [UInt8](repeating: 0xAA, count: size)
                while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size {}
            }
            return filler
        }

        /// Gives back `bytes` of the filler's space.
        func free(_ bytes: Int) {
            let filler = path + "/filler"
            let size = (try? FileManager.default.attributesOfItem(atPath: filler)[.size] as? Int) ?? 0
            _ = truncate(filler, off_t(max(0, size - bytes)))
        }

        deinit { umount2(path, Int32(MNT_DETACH)) }
    }

    /// How many times the daemon has logged that its state is saved again after a failure.
    static func recoveries(_ daemon: DaemonProcess) -> Int {
        daemon.stderr.components(separatedBy: "state is saved again").count - 1
    }

    static func skipped(_ why: String) {
        print("SKIPPED: real disk fault tests: \(why)")
    }

    /// A fixture of `lights` instant dimmable lights, a hundred to a room.
    static func fixture(lights: Int) -> String {
        let rooms = stride(from: 0, to: lights, by: 100).map { start in
            let members = (start..<min(lights, start + 100)).map {
                #"{"id":"r\#(start / 100).l\#($0)","name":"Light \#($0)","kind":"dimmable"}"#
            }
            return
                #"{"id":"r\#(start / 100)","name":"Room \#(start / 100)","lights":[\#(members.joined(separator: ","))]}"#
        }
        return #"{"schema":1,"id":"disk-test","name":"Disk test","seed":1,"defaults":{"latency":"instant"},"rooms":["#
            + rooms.joined(separator: ",") + "]}"
    }

    func setName(_ client: LineClient, _ name: String) async throws -> JSONValue {
        try await client.request("set", ["scope": 0, "connection": "name", "value": .string(name)])
    }

    func name(in daemon: DaemonProcess) async throws -> JSONValue? {
        try await daemon.connect().result("get", ["scope": 0, "connection": "name"])["value"]
    }

    func start(_ directory: TemporaryDirectory, fixture: String) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            arguments: [
                "--fixture", fixture, "--socket", directory.file("lumend.sock"), "--state-dir",
                directory.file("disk/state"),
            ],
            directory: directory, setPaths: false)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        return daemon
    }

    @Test(arguments: [8, 10_000])
    func aFullDiskFailsWritesClearlyAndTheyRecoverWhenSpaceComesBack(lights: Int) async throws {
        let directory = TemporaryDirectory()
        guard let disk = SmallDisk(at: directory.file("disk"), megabytes: lights > 100 ? 24 : 2) else {
            return Self.skipped("mounting a tmpfs needs root (CAP_SYS_ADMIN)")
        }
        let fixture = directory.file("home.json")
        try Self.fixture(lights: lights).write(toFile: fixture, atomically: true, encoding: .utf8)
        let first = try await start(directory, fixture: fixture)
        // The first snapshot (written right after READY=1) before the change, so the change is a journal commit.
        let state = directory.file("disk/state")
        #expect(await waitForCondition(in: state) { FileManager.default.fileExists(atPath: state + "/state.json") })
        let client = try first.connect()
        #expect(try await setName(client, "saved before")["result"] != nil)
        first.signal(SIGKILL)
        _ = await first.waitForExit()
        // The journal with only the one byte of filler that marks its end, so nothing is reserved; then a full
        // disk.
        let journal = directory.file("disk/state/state.journal")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        _ = truncate(journal, off_t((bytes.lastIndex(of: UInt8(ascii: "\n")) ?? 0) + 2))
        disk.fill()

        // Start-up cannot write its snapshot, and goes on appending to the journal.
        let daemon = try await start(directory, fixture: fixture)
        #expect(daemon.stderr.contains("appending to the existing journal"), "\(daemon.stderr)")
        let writer = try daemon.connect()
        // Commits go on while the journal's last page has room; the first that needs another fails.
        var refused: JSONValue = .null
        for index in 0..<200 {
            let response = try await setName(writer, "while full \(index)")
            if response["error"] != nil {
                refused = response
                break
            }
        }
        #expect(refused["error"]?["code"] == -32040, "\(refused)")
        let message = refused["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("full") && message.contains("free some space"), "\(message)")

        // Until a retry succeeds, further writes fail at once rather than wait for it.
        let meanwhile = try await setName(writer, "while still full")
        #expect(meanwhile["error"]?["code"] == -32040, "\(meanwhile)")

        // A little space comes back: far less than a snapshot or a preallocation needs. The next retry (within
        // a second) saves what was refused, and says so.
        let recoveries = Self.recoveries(daemon)
        disk.free(16 << 10)
        #expect(await waitForCondition(in: directory.path) { Self.recoveries(daemon) > recoveries }, "\(daemon.stderr)")
        // What STATUS= said last: a degraded state said before the recovery is followed by its end.
        var status: [String] = []
        while true {
            let degraded = status.last?.contains("DEGRADED") == true
            guard let (message, _) = await daemon.notify.next(timeout: degraded ? .seconds(10) : .milliseconds(1))
            else { break }
            if message.hasPrefix("STATUS=") { status.append(message) }
        }
        #expect(status.last?.contains("DEGRADED") != true, "\(status)")
        let accepted = try await setName(writer, "saved after")
        #expect(accepted["result"] != nil, "\(accepted)")

        // At stop a big home's snapshot still does not fit; the journal holds everything, and the log says so.
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        let stop = lights > 100 ? "every change is saved in the journal" : "stopped"
        #expect(daemon.stderr.contains(stop) && !daemon.stderr.contains("could not be saved"), "\(daemon.stderr)")
        disk.free(Int.max / 2)
        let again = try await start(directory, fixture: fixture)
        #expect(try await name(in: again) == "saved after")
        again.signal(SIGTERM)
        #expect(await again.waitForExit() == 0)
        withExtendedLifetime(disk) {}
    }

    @Test func aReadOnlyStateDirectoryAtStartFailsWritesUntilItIsWritable() async throws {
        let directory = TemporaryDirectory()
        guard let disk = SmallDisk(at: directory.file("disk"), megabytes: 4) else {
            return Self.skipped("mounting a tmpfs needs root (CAP_SYS_ADMIN)")
        }
        let fixture = directory.file("home.json")
        try Self.fixture(lights: 8).write(toFile: fixture, atomically: true, encoding: .utf8)
        let first = try await start(directory, fixture: fixture)
        #expect(try await setName(try first.connect(), "saved before")["result"] != nil)
        first.signal(SIGTERM)
        #expect(await first.waitForExit() == 0)
        #expect(disk.remount(readOnly: true))

        let daemon = try await start(directory, fixture: fixture)
        #expect(try await name(in: daemon) == "saved before")
        let writer = try daemon.connect()
        let refused = try await setName(writer, "not yet")
        #expect(refused["error"]?["code"] == -32040, "\(refused)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("read-only") == true, "\(refused)")

        let recoveries = Self.recoveries(daemon)
        #expect(disk.remount(readOnly: false))
        // The next retry, within a second, saves the change refused; until then writes fail at once.
        #expect(await waitForCondition(in: directory.path) { Self.recoveries(daemon) > recoveries }, "\(daemon.stderr)")
        let accepted = try await setName(writer, "saved once writable")
        #expect(accepted["result"] != nil, "\(accepted)")
        daemon.signal(SIGKILL)
        _ = await daemon.waitForExit()
        let again = try await start(directory, fixture: fixture)
        #expect(try await name(in: again) == "saved once writable")
        again.signal(SIGTERM)
        #expect(await again.waitForExit() == 0)
    }
}
