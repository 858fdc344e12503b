import Foundation
import LumenTestSupport
import Testing

/// The harness that starts lumend for the tests: what the daemon it starts inherits.
@Suite("Starting lumend for a test", .timeLimit(.minutes(1)))
struct DaemonProcessTests {
    @Test func aDaemonInheritsNoDescriptorOfTheTestProcessBeyondItsOwn() async throws {
        let directory = TemporaryDirectory()
        let stray = directory.file("stray")
        _ = FileManager.default.createFile(atPath: stray, contents: Data())
        // Open without close-on-exec, as another test's file or socket may be while a daemon starts.
        let fd = open(stray, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let daemon = try DaemonProcess(arguments: ["--clock", "virtual"], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        let descriptors = "/proc/\(daemon.pid)/fd"
        let targets = try FileManager.default.contentsOfDirectory(atPath: descriptors).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)")
        }
        #expect(!targets.contains(stray), "\(targets)")
    }
}
