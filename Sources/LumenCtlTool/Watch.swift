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
                            Output.line("\(timestamp()) \(label) \(connection)=\(LumenCtl.display(value))")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
    }
}
