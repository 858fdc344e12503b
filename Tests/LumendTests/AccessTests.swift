import Foundation
import LumenTestSupport
import Testing

/// Another local user against a daemon run by root: kept out by the socket's mode; let in when the socket's
/// group admits them, but never to the `simulation` scope.
@Suite("Access from another user", .serialized, .timeLimit(.minutes(2)))
struct AccessTests {
    static let nobody: UInt32 = 65_534

    /// Runs lumenctl as `nobody` (through `setpriv`, which drops every group too).
    func lumenctlAsNobody(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try DaemonProcess(
            arguments: [
                "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                DaemonProcess.builtBinary("lumenctl"),
            ] + arguments,
            executable: "/usr/bin/setpriv", setPaths: false)
        let status = await run.waitForExit() ?? -1
        return (status, run.stdout, run.stderr)
    }

    /// A daemon whose socket sits in a directory everyone may enter (so only the socket's mode decides).
    func daemon() async throws -> DaemonProcess? {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("SKIPPED: access from another user: needs root and setpriv to run a client as nobody")
            return nil
        }
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let daemon = try DaemonProcess(arguments: ["--clock", "virtual"], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        return daemon
    }

    @Test func anotherUserIsKeptOutByTheSocketsMode() async throws {
        guard let daemon = try await daemon() else { return }
        let result = try await lumenctlAsNobody(["--socket", daemon.socketPath, "status"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Permission denied"), "\(result.stderr)")
        // Which group the socket admits, and how to join it; never a developer's 'make run'.
        #expect(result.stderr.contains("admits its owner and members of group 'root'"), "\(result.stderr)")
        #expect(result.stderr.contains("sudo usermod -aG root"), "\(result.stderr)")
        #expect(!result.stderr.contains("make run"), "\(result.stderr)")
    }

    @Test func theSocketsGroupLetsAUserInButNeverToTheSimulation() async throws {
        guard let daemon = try await daemon() else { return }
        #expect(chown(daemon.socketPath, 0, Self.nobody) == 0)
        let status = try await lumenctlAsNobody(["--socket", daemon.socketPath, "status"])
        #expect(status.status == 0, "\(status.stderr)")
        let advance = try await lumenctlAsNobody(["--socket", daemon.socketPath, "sim", "advance", "100"])
        #expect(advance.status != 0)
        #expect(advance.stderr.contains("the simulation scope is for root and lumend's own user"), "\(advance.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
