import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl sim …`: the simulation scope — clock, faults, topology.
enum Sim {
    /// The words after `sim`.
    static let commands = [
        "clock", "advance", "settle", "next", "log", "clear-log", "reset", "checkpoint", "restore", "drop-checkpoint",
        "reachable", "power-cycle", "device", "link-button",
        "faults", "add-room", "add-light",
        "remove-room",
        "remove-light",
        "snapshot",
    ]

    /// What a sim command asks of the simulation scope.
    enum Request {
        case get(String)
        case call(String, JSONObject)
        case snapshot
        /// The command record, of a light or room when named.
        case log(String?)
        /// A light's ground truth beside what its controller reports.
        case device(String)
    }

    static func run(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let request = try request(for: words[0], Array(words.dropFirst()))
        let client = reader.client
        let simulation = try await client.open("simulation", in: .root)
        let result: JSONValue
        switch request {
        case .get(let property):
            result = try await client.get(property, in: simulation)
        case .call(let method, let arguments):
            result = try await client.call(method, in: simulation, arguments: .object(arguments))
        case .snapshot:
            let snapshot = try await client.call("snapshot", in: simulation)
            Output.line(
                options.json ? snapshot.serialized() : Output.trimmingNewlines(snapshot.prettySerialized()))
            return
        case .log(let target):
            var filter = JSONObject()
            if let target { filter[try await reader.roomIDs().contains(target) ? "room" : "light"] = .string(target) }
            let commands = try await client.call("commands", in: simulation, arguments: .object(filter))
            let records = commands["commands"]?.arrayValue ?? []
            // An empty record of a light that is not there is most likely a typo: say so, not nothing. (A light
            // removed since keeps its commands, which are shown.)
            if let target, records.isEmpty, filter["light"] != nil, (try? await reader.room(of: target)) == nil {
                throw Failure("no light or room '\(target)'; list them with 'lumenctl lights' and 'lumenctl rooms'")
            }
            try printLog(records, options)
            return
        case .device(let light):
            let truth = try await client.call("device", in: simulation, arguments: ["light": .string(light)])
            options.json ? Output.json(truth) : Output.line(describeTruth(truth))
            return
        }
        if options.json {
            Output.json(result)
        } else if let mode = result["mode"]?.stringValue, let now = result["nowMs"] {
            var line = "clock: \(mode), \(LumenCtl.number(now)) ms"
            // Settling says how far it went, and whether anything is still pending.
            if words[0] == "settle" || words[0] == "next" {
                let advanced = LumenCtl.number(result["advancedMs"] ?? 0)
                let state = result["idle"].map { $0 == true ? ", idle" : ", still busy" } ?? ""
                line += " (+\(advanced) ms\(state))"
            }
            Output.line(line)
        } else if let cleared = result["cleared"]?.intValue {
            Output.line("cleared \(cleared) command\(cleared == 1 ? "" : "s") from the record")
        } else {
            Output.line("ok")
        }
    }

    /// The request for `command` with the words after it, checked for their number and form; the values
    /// themselves are lumend's to check.
    static func request(for command: String, _ rest: [String]) throws(UsageError) -> Request {
        func need(_ count: ClosedRange<Int>, _ usage: String) throws(UsageError) {
            guard count.contains(rest.count) else { throw UsageError("usage: lumenctl sim \(usage)") }
        }
        switch command {
        case "clock":
            try need(0...0, "clock")
            return .get("clock")
        case "advance":
            try need(1...1, "advance MS")
            guard let ms = Double(rest[0]) else {
                throw UsageError("advance takes milliseconds, like 'sim advance 500'")
            }
            return .call("advance", ["ms": .double(ms)])
        case "settle":
            try need(0...1, "settle [MAX-MS]")
            var arguments: JSONObject = ["untilIdle": true]
            if let limit = rest.first {
                guard let ms = Double(limit) else {
                    throw UsageError("settle takes milliseconds at most, like 'sim settle 60000'")
                }
                arguments["maxMs"] = .double(ms)
            }
            return .call("advance", arguments)
        case "next":
            try need(0...0, "next")
            return .call("advance", ["toNextEvent": true])
        case "reachable":
            try need(2...2, "reachable LIGHT yes|no")
            guard ["yes", "no"].contains(rest[1]) else {
                throw UsageError("say yes or no, like 'sim reachable hall.lamp no'")
            }
            return .call("setReachable", ["light": .string(rest[0]), "reachable": .bool(rest[1] == "yes")])
        case "power-cycle":
            try need(1...2, "power-cycle LIGHT [MS]")
            var arguments: JSONObject = ["light": .string(rest[0])]
            if rest.count == 2 {
                guard let ms = Double(rest[1]), SimulatedDurations.milliseconds.contains(ms) else {
                    let longest = Int(SimulatedDurations.longestMs)
                    throw UsageError("power-cycle takes 0–\(longest) milliseconds after the light, not '\(rest[1])'")
                }
                arguments["durationMs"] = .double(ms)
            }
            return .call("powerCycle", arguments)
        case "faults":
            try need(2...99, "faults LIGHT KEY=VALUE…")
            var arguments: JSONObject = ["light": .string(rest[0])]
            for word in rest.dropFirst() {
                let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw UsageError("'\(word)' is not KEY=VALUE") }
                arguments[parts[0]] = (try? JSONParser.parse(parts[1])) ?? .string(parts[1])
            }
            return .call("setFaults", arguments)
        case "add-room":
            try need(1...2, "add-room ID [NAME]")
            return .call("addRoom", ["id": .string(rest[0]), "name": .string(rest.last!)])
        case "add-light":
            try need(3...4, "add-light ROOM ID KIND [NAME]   (KIND: onoff, dimmable, ambiance or color)")
            let light: JSONObject = [
                "id": .string(rest[1]), "kind": .string(rest[2]), "name": .string(rest.count == 4 ? rest[3] : rest[1]),
            ]
            return .call("addLight", ["room": .string(rest[0]), "light": .object(light)])
        case "remove-room":
            try need(1...1, "remove-room ROOM")
            return .call("removeRoom", ["room": .string(rest[0])])
        case "remove-light":
            try need(1...1, "remove-light LIGHT")
            return .call("removeLight", ["light": .string(rest[0])])
        case "snapshot":
            try need(0...0, "snapshot")
            return .snapshot
        case "log":
            try need(0...1, "log [LIGHT|ROOM]")
            return .log(rest.first)
        case "clear-log":
            try need(0...0, "clear-log")
            return .call("clearCommands", [:])
        case "link-button":
            try need(0...0, "link-button")
            return .call("pressLinkButton", [:])
        case "device":
            try need(1...1, "device LIGHT")
            return .device(rest[0])
        case "reset":
            try need(0...0, "reset")
            return .call("reset", [:])
        case "checkpoint", "restore":
            try need(1...1, "\(command) NAME")
            return .call(command, ["name": .string(rest[0])])
        case "drop-checkpoint":
            try need(1...1, "drop-checkpoint NAME")
            return .call("dropCheckpoint", ["name": .string(rest[0])])
        default:
            throw UsageError("unknown sim command '\(command)'; see 'lumenctl sim --help'")
        }
    }

    /// A light's truth on one line: `hall.lamp (hue): unreachable, reported reachable; isOn false, …`.
    static func describeTruth(_ truth: JSONValue) -> String {
        let reachable = truth["reachable"] == true ? "reachable" : "unreachable"
        let reported = truth["reportedReachable"] == true ? "reachable" : "unreachable"
        var line = "\(truth["light"]?.stringValue ?? "") (\(truth["family"]?.stringValue ?? "")): \(reachable)"
        if reported != reachable { line += ", reported \(reported)" }
        if let state = truth["state"] { line += "; " + LumenCtl.display(state) }
        if let fading = truth["fading"]?.arrayValue, !fading.isEmpty {
            line += "; fading " + fading.compactMap(\.stringValue).joined(separator: ", ")
        }
        return line
    }

    /// The command record as a table (or JSON lines): when, who, which light, what, and what became of it.
    static func printLog(_ commands: [JSONValue], _ options: CommonOptions) throws {
        if options.json {
            for command in commands { Output.json(command) }
            return
        }
        let rows = commands.map { command -> [String] in
            let change = command["change"]?.objectValue.map { LumenCtl.display(.object($0)) } ?? ""
            let transition = command["transitionMs"].map { $0 == 0 ? "-" : LumenCtl.number($0) + " ms" } ?? "-"
            var outcome = command["outcome"]?.stringValue ?? ""
            if let code = command["code"] { outcome += " (\(LumenCtl.number(code)))" }
            return [
                command["number"].map(LumenCtl.number) ?? "", command["atMs"].map(LumenCtl.number) ?? "",
                command["source"]?.stringValue ?? "", command["light"]?.stringValue ?? "",
                command["room"]?.stringValue ?? "-", change, transition, outcome,
            ]
        }
        Output.table(
            ["#", "AT MS", "SOURCE", "LIGHT", "GROUP", "CHANGE", "TRANSITION", "OUTCOME"], rows,
            legend: options.legend, color: options.color)
    }
}
