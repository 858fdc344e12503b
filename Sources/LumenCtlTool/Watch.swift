import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lumenctl watch [SCOPE…]`: one line per change, as it happens.
enum Watch {
    static func run(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let client = reader.client
        var targets: [(label: String, scope: ScopeID, connections: [String])] = []
        var specs = words
        if specs.isEmpty {
            specs = ["home"]
            for room in try await reader.roomIDs() {
                specs.append("room:\(room)")
                let scope = try await reader.openRoom(room)
                let lights = try await client.get("lightIDs", in: scope).arrayValue?.compactMap(\.stringValue) ?? []
                specs += lights.map { "light:\($0)" }
            }
        }
        for spec in specs {
            let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
            switch (parts.first ?? "", parts.count) {
            case ("home", 1): targets.append(("home", .root, ["name", "roomIDs"]))
            case ("room", 2):
                guard try await reader.roomIDs().contains(parts[1]) else { throw Failure("no room '\(parts[1])'") }
                targets.append(
                    ("room \(parts[1])", try await reader.openRoom(parts[1]), ["name", "lightIDs", "isScanning"]))
            case ("light", 2):
                let scope = try await reader.openLight(parts[1]).scope
                let kind = try await client.get("model", in: scope)["kind"]?.stringValue ?? "onoff"
                var connections = ["name", "isOn", "isReachable"]
                if kind != "onoff" { connections.append("brightness") }
                if kind == "ambiance" || kind == "color" { connections.append("colorTemperature") }
                if kind == "color" { connections.append("color") }
                targets.append(("light \(parts[1])", scope, connections))
            default:
                throw UsageError("'\(spec)' is not a scope; use home, room:ID or light:ID")
            }
        }
        var subscriptions: [(String, String, Subscription)] = []
        for target in targets {
            for connection in target.connections {
                subscriptions.append(
                    (target.label, connection, try await client.subscribe(connection, in: target.scope)))
            }
        }
        let stamp = try await Stamp(client)
        if !options.json {
            Output.write("Watching \(subscriptions.count) values; Ctrl-C stops.\n", to: STDERR_FILENO)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (label, connection, values) in subscriptions {
                group.addTask {
                    for try await value in values.dropFirst() {
                        if options.json {
                            Output.json(["scope": .string(label), "connection": .string(connection), "value": value])
                        } else {
                            Output.line("\(await stamp.now()) \(label) \(connection)=\(LumenCtl.display(value))")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The time a change is printed with: the wall clock's time of day, or on a virtual-clock lumend the simulated
    /// wall clock's time of day (hours:minutes:seconds.milliseconds) when the change reached lumenctl, which is the end of the
    /// advance that made it; from a lumend whose clock gives no wall time, the simulated time since start.
    struct Stamp: Sendable {
        let client: LumenClient
        /// The simulation scope, on a virtual clock only.
        let simulation: ScopeID?

        init(_ client: LumenClient) async throws {
            self.client = client
            // A user not allowed the simulation scope sees the wall clock's time.
            let simulation = try? await client.open("simulation", in: .root)
            var virtual = false
            if let simulation { virtual = try await client.get("clock", in: simulation)["mode"] == "virtual" }
            self.simulation = virtual ? simulation : nil
        }

        func now() async -> String {
            func padded(_ value: Int, _ width: Int) -> String {
                let digits = String(value)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            guard let simulation else {
                var now = time(nil)
                var parts = tm()
                localtime_r(&now, &parts)
                return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { padded(Int($0), 2) }.joined(separator: ":")
            }
            let clock = try? await client.get("clock", in: simulation)
            // The simulated wall clock's time of day (`2026-12-04T23:00:01.250+01:00` → `23:00:01.250`).
            if let wall = clock?["wallTime"]?.stringValue, wall.count >= 23 {
                return String(wall.dropFirst(11).prefix(12))
            }
            let ms = Int(clock?["nowMs"]?.doubleValue ?? 0)
            return
                "\(ms / 3_600_000):\(padded(ms / 60_000 % 60, 2)):\(padded(ms / 1_000 % 60, 2)).\(padded(ms % 1_000, 3))"
        }
    }
}
