import Foundation
import LumenModel
import LumenProtocol

extension Benchmarks {
    /// Start-up and memory of lumend itself, as a user runs it: the time from `exec` to `READY=1`, and the
    /// resident size right after it, for a large home from its fixture and from saved state, against the
    /// demo home's.
    static func benchmarkStartup(_ baseline: Baseline) async {
        let count = baseline.quick ? 10_000 : 100_000
        guard let lumend = siblingExecutable("lumend") else {
            print("  SKIPPED: start-up: no lumend next to lumen-bench (make bench builds both)")
            return
        }
        let directory = "\(baseline.directory)/startup"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fixture = "\(directory)/big.json"
        var home = instantHome(lights: 0)
        home.rooms = (0..<10).map { room in
            RoomFixture(
                id: RoomID("room-\(room)"), name: "Room \(room)",
                lights: (0..<count / 10).map {
                    LightFixture(
                        id: LightID("room-\(room).light-\($0)"), name: "Light \($0)",
                        model: DeviceModel(kind: .color, manufacturer: "Lumen", product: "Bench bulb"))
                })
        }
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(home.jsonValue.serialized().utf8))
        func start(_ name: String, _ arguments: [String]) -> (seconds: Double, residentKiB: Int)? {
            guard
                let result = timeToReady(
                    lumend,
                    arguments + [
                        "--socket", "\(directory)/s.sock", "--state-dir", "\(directory)/\(name)", "--exit-with-parent",
                    ],
                    directory: directory)
            else {
                print("  " + pad("lumend \(name)") + "did not report READY=1")
                return nil
            }
            return result
        }
        guard let demo = start("demo", []) else { return }
        let runs = [
            ("from its fixture", ["--fixture", fixture, "--reset"]),
            ("from saved state", ["--fixture", fixture]),
            ("from saved state, again", ["--fixture", fixture]),
        ]
        for (label, arguments) in runs {
            guard let run = start("big", arguments) else { continue }
            let perLight = Double(run.residentKiB - demo.residentKiB) * 1_024 / Double(count)
            print(
                "  " + pad("READY=1 with \(count.formatted()) lights \(label) (target ≤ 1 s)")
                    + String(format: "%9.2f s", run.seconds))
            print(
                "  " + pad("  resident memory beyond the demo home's, per light (target ≤ 1024)")
                    + String(format: "%9.0f B   (%d KiB against %d)", perLight, run.residentKiB, demo.residentKiB))
        }
    }

    /// An executable built beside this one.
    static func siblingExecutable(_ name: String) -> String? {
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let path = here.appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Starts `program` with a notification socket of its own, waits for `READY=1`, reads its resident size,
    /// and stops it with SIGTERM; `nil` when it never says it is ready.
    static func timeToReady(_ program: String, _ arguments: [String], directory: String) -> (Double, Int)? {
        let notifyPath = "\(directory)/notify.sock"
        unlink(notifyPath)
        let listener = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer {
            close(listener)
            unlink(notifyPath)
        }
        guard (UnixSocketAddress.with(notifyPath) { bind(listener, $0, $1) }) == 0 else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let started = ContinuousClock.now
        guard (try? process.run()) != nil else { return nil }
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 60_000) > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(listener, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            if String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").contains("READY=1") { break }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        return (elapsed, processStatus(process.processIdentifier).residentKiB)
    }
}
