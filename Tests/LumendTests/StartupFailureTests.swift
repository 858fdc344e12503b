import Foundation
import LumenTestSupport
import Testing

/// A start-up that fails after lumend bound its socket leaves no socket file behind, as a clean stop does;
/// a socket systemd passed is systemd's, and stays.
@Suite("Start-up failures after the bind", .timeLimit(.minutes(2)))
struct StartupFailureTests {
    /// What each failure needs lumend to be given, in `directory`.
    enum Failure: String, CaseIterable, CustomTestStringConvertible {
        case missingTokenFile, unusableTLSFiles

        func arguments(_ directory: TemporaryDirectory) throws -> [String] {
            switch self {
            case .missingTokenFile:
                return ["--http", "127.0.0.1:0", "--http-token-file", directory.file("missing-token")]
            case .unusableTLSFiles:
                let certificate = directory.file("certificate.pem")
                let key = directory.file("key.pem")
                try "not a certificate\n".write(toFile: certificate, atomically: true, encoding: .utf8)
                try "not a key\n".write(toFile: key, atomically: true, encoding: .utf8)
                return ["--https", "127.0.0.1:0", "--tls-certificate", certificate, "--tls-key", key]
            }
        }

        /// What lumend says of it.
        var complaint: String { self == .missingTokenFile ? "does not exist" : "cannot use the certificate" }

        var testDescription: String { rawValue }
    }

    @Test(arguments: Failure.allCases)
    func theSocketLumendBoundIsRemoved(_ failure: Failure) async throws {
        let directory = TemporaryDirectory()
        let daemon = try DaemonProcess(arguments: try failure.arguments(directory), directory: directory)
        #expect(await daemon.waitForExit(timeout: .seconds(20)) == 1, "\(daemon.stderr)")
        #expect(daemon.stderr.contains(failure.complaint), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("ready on"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "\(daemon.stderr)")
    }

    @Test(arguments: Failure.allCases)
    func aSocketSystemdPassedIsLeftInPlace(_ failure: Failure) async throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("activated.sock")
        // Named with --socket too, as a unit may: the socket systemd passed is still not lumend's to remove.
        let daemon = try DaemonProcess(
            arguments: ["--state-dir", directory.file("state"), "--socket", socket]
                + (try failure.arguments(directory)),
            directory: directory,
            // systemd-socket-activate passes on only the variables named with -E.
            prefix: [
                "-l", socket, "-E", "NOTIFY_SOCKET", "-E", "SWIFT_BACKTRACE", "-E", "TSAN_OPTIONS", "-E",
                "ASAN_OPTIONS", DaemonProcess.builtBinary("lumend"),
            ],
            executable: "/usr/bin/systemd-socket-activate", setPaths: false)
        // It starts lumend on the first connection, once it listens (it says so).
        try #require(
            await daemon.waitForStderr(containing: "Listening on \(socket) as "),
            "systemd-socket-activate never listened; stderr: \(daemon.stderr)")
        let connected = try LineClient(path: socket)
        #expect(await daemon.waitForExit(timeout: .seconds(20)) == 1, "\(daemon.stderr)")
        withExtendedLifetime(connected) {}
        #expect(daemon.stderr.contains(failure.complaint), "\(daemon.stderr)")
        #expect(FileManager.default.fileExists(atPath: socket))
    }
}
