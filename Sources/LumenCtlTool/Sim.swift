import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl sim …`: the simulation scope — clock, faults, topology.
enum Sim {
    /// The words after `sim`.
    static let commands = [
        "clock", "advance", "reachable", "power-cycle", "faults", "add-room", "add-light", "remove-room",
        "remove-light",
        "snapshot",
    ]

    static func run(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let client = reader.client
        let simulation = try await client.open("simulation", in: .root)
        let rest = Array(words.dropFirst())
        func need(_ count: ClosedRange<Int>, _ usage: String) throws(UsageError) {
            guard count.contains(rest.count) else { throw UsageError("usage: lumenctl sim \(usage)") }
        }
        let result: JSONValue
        switch words[0] {
        case "clock":
            try need(0...0, "clock")
            result = try await client.get("clock", in: simulation)
        case "advance":
            try need(1...1, "advance MS")
            guard let ms = Double(rest[0]) else {
                throw UsageError("advance takes milliseconds, like 'sim advance 500'")
            }
            result = try await client.call("advance", in: simulation, arguments: ["ms": .double(ms)])
        case "reachable":
            try need(2...2, "reachable LIGHT yes|no")
            guard ["yes", "no"].contains(rest[1]) else {
                throw UsageError("say yes or no, like 'sim reachable hall.lamp no'")
            }
            result = try await client.call(
                "setReachable", in: simulation,
                arguments: ["light": .string(rest[0]), "reachable": .bool(rest[1] == "yes")])
        case "power-cycle":
            try need(1...2, "power-cycle LIGHT [MS]")
            var arguments: JSONObject = ["light": .string(rest[0])]
            if rest.count == 2 {
                guard let ms = Double(rest[1]), (0...3_600_000).contains(ms) else {
                    throw UsageError("power-cycle takes 0–3600000 milliseconds after the light, not '\(rest[1])'")
                }
                arguments["durationMs"] = .double(ms)
            }
            result = try await client.call("powerCycle", in: simulation, arguments: .object(arguments))
        case "faults":
            try need(2...99, "faults LIGHT KEY=VALUE…")
            var arguments: JSONObject = ["light": .string(rest[0])]
            for word in rest.dropFirst() {
                let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw UsageError("'\(word)' is not KEY=VALUE") }
                arguments[parts[0]] = (try? JSONParser.parse(parts[1])) ?? .string(parts[1])
            }
            result = try await client.call("setFaults", in: simulation, arguments: .object(arguments))
        case "add-room":
            try need(1...2, "add-room ID [NAME]")
            result = try await client.call(
                "addRoom", in: simulation, arguments: ["id": .string(rest[0]), "name": .string(rest.last!)])
        case "add-light":
            try need(3...4, "add-light ROOM ID KIND [NAME]   (KIND: onoff, dimmable, ambiance or color)")
            let light: JSONObject = [
                "id": .string(rest[1]), "kind": .string(rest[2]), "name": .string(rest.count == 4 ? rest[3] : rest[1]),
            ]
            result = try await client.call(
                "addLight", in: simulation, arguments: ["room": .string(rest[0]), "light": .object(light)])
        case "remove-room":
            try need(1...1, "remove-room ROOM")
            result = try await client.call("removeRoom", in: simulation, arguments: ["room": .string(rest[0])])
        case "remove-light":
            try need(1...1, "remove-light LIGHT")
            result = try await client.call("removeLight", in: simulation, arguments: ["light": .string(rest[0])])
        case "snapshot":
            try need(0...0, "snapshot")
            let snapshot = try await client.call("snapshot", in: simulation)
            Output.line(
                options.json ? snapshot.serialized() : Output.trimmingNewlines(snapshot.prettySerialized()))
            return
        default:
            throw UsageError("unknown sim command '\(words[0])'; see 'lumenctl sim --help'")
        }
        if options.json {
            Output.json(result)
        } else if let mode = result["mode"]?.stringValue, let now = result["nowMs"] {
            Output.line("clock: \(mode), \(LumenCtl.number(now)) ms")
        } else {
            Output.line("ok")
        }
    }
}
