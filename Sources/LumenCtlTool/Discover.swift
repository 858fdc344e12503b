import FoundationEssentials
import LumenClient
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lumenctl discover ROOM`: starts a scan and shows it live — time left and lights as they are found.
enum Discover {
    static func run(_ reader: HomeReader, room: String, _ options: CommonOptions) async throws {
        guard try await reader.roomIDs().contains(room) else {
            throw Failure("no room '\(room)'; list rooms with 'lumenctl rooms'")
        }
        let client = reader.client
        let scope = try await reader.openRoom(room)
        let roomName = try await client.get("name", in: scope).stringValue ?? room
        let updates = try await client.subscribe("scan", in: scope)
        let scan = try await client.call("detectLights", in: scope)
        // The daemon's clock says how much is left; without the simulation scope, count locally.
        let simulation = try? await client.open("simulation", in: .root)
        let started = ContinuousClock.now
        let startedMs = scan["startedMs"]?.doubleValue ?? 0
        let endsMs = scan["endsMs"]?.doubleValue ?? 0
        let live = !options.json && isatty(1) != 0

        @Sendable func remainingSeconds() async -> Double {
            if let simulation, let now = try? await client.get("clock", in: simulation)["nowMs"]?.doubleValue {
                return max(0, (endsMs - now) / 1_000)
            }
            let elapsed = ContinuousClock.now - started
            return max(0, (endsMs - startedMs) / 1_000 - Double(elapsed.components.seconds))
        }

        var found: [String] = []
        let ticker: Task<Void, Never>? =
            live
            ? Task {
                while !Task.isCancelled {
                    let left = await remainingSeconds()
                    Output.write("\r\u{1B}[KScanning \(roomName): \(Int(left.rounded())) s left", to: STDOUT_FILENO)
                    try? await Task.sleep(for: .seconds(1))
                }
            } : nil
        if options.json {
            Output.json(["event": "started", "room": .string(room), "scan": scan])
        } else if !live {
            Output.line("Scanning \(roomName) for \(Int(((endsMs - startedMs) / 1_000).rounded())) s…")
        }
        for try await update in updates {
            // The subscription starts with the room's last scan, which may be an earlier one that has ended:
            // only this scan's updates count.
            guard update["startedMs"] == scan["startedMs"] else { continue }
            let now = update["found"]?.arrayValue?.compactMap(\.stringValue) ?? found
            for light in now where !found.contains(light) {
                if options.json {
                    Output.json(["event": "found", "light": .string(light)])
                } else {
                    Output.line((live ? "\r\u{1B}[K" : "") + "  found \(light)")
                }
            }
            found = now
            if update["isScanning"] == false, update["endsMs"] != nil { break }
        }
        ticker?.cancel()
        if options.json {
            Output.json(["event": "finished", "room": .string(room), "found": .array(found.map { .string($0) })])
        } else {
            let summary =
                found.isEmpty
                ? "no new lights"
                : "\(found.count) new light\(found.count == 1 ? "" : "s"): \(found.joined(separator: ", "))"
            Output.line((live ? "\r\u{1B}[K" : "") + "Scan of \(roomName) finished: \(summary)")
        }
    }
}
