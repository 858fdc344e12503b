import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl set LIGHT|ROOM CHANGES…`: a change to a light, or to every light of a room as one group command.
extension LumenCtl {
    /// Parses `on`, `off`, `brightness=N`, `ct=N` (mireds) or `ct=NK` (kelvin), `xy=X,Y`, `color=#RRGGBB` and
    /// `rgb=R,G,B` into (connection, value) pairs; a colour as xy, clipped into the colour lights' gamut.
    static func changes(_ words: ArraySlice<String>) throws(UsageError) -> [(String, JSONValue)] {
        var result: [(String, JSONValue)] = []
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            switch (parts.first ?? "", parts.count) {
            case ("on", 1): result.append(("isOn", true))
            case ("off", 1): result.append(("isOn", false))
            case ("brightness", 2):
                guard let value = Double(parts[1]) else {
                    throw UsageError("brightness takes a number 1–100, like brightness=40")
                }
                result.append(("brightness", .double(value)))
            case ("ct", 2) where parts[1].uppercased().hasSuffix("K"):
                guard let kelvin = Double(parts[1].dropLast()), (1_500...9_000).contains(kelvin) else {
                    throw UsageError("ct in kelvin takes 1500K–9000K, like ct=2700K, not '\(word)'")
                }
                result.append(
                    ("colorTemperature", .int(CIEColor.mireds(kelvin: kelvin, in: CIEColor.widestMiredRange))))
            case ("ct", 2):
                guard let value = Int(parts[1]) else {
                    throw UsageError(
                        "ct takes mireds (153–500; 111–667 for a LIFX bulb; each light its own range within) or kelvin, "
                            + "like ct=366 or ct=2700K")
                }
                result.append(("colorTemperature", .int(value)))
            case ("color", 2):
                guard let color = CIEColor(hex: parts[1]) else {
                    throw UsageError("color takes #RRGGBB, like color=#ff8800, not '\(word)'")
                }
                result.append(("color", color.jsonValue))
            case ("rgb", 2):
                let channels = parts[1].split(separator: ",").compactMap { UInt8($0) }
                guard channels.count == 3 else {
                    throw UsageError("rgb takes three numbers 0–255, like rgb=255,136,0, not '\(word)'")
                }
                result.append(("color", CIEColor(red: channels[0], green: channels[1], blue: channels[2]).jsonValue))
            case ("xy", 2):
                let xy = parts[1].split(separator: ",").compactMap { Double($0) }
                guard xy.count == 2 else { throw UsageError("xy takes two numbers, like xy=0.31,0.33") }
                guard xy.allSatisfy({ (0...1).contains($0) }) else {
                    throw UsageError("xy takes two numbers from 0 to 1 (CIE 1931), like xy=0.31,0.33, not '\(word)'")
                }
                result.append(("color", ["x": .double(xy[0]), "y": .double(xy[1])]))
            default:
                throw UsageError(
                    "'\(word)' is not a change; use on, off, brightness=N, ct=N or ct=NK, xy=X,Y, color=#RRGGBB or "
                        + "rgb=R,G,B")
            }
            if let last = result.last, result.dropLast().contains(where: { $0.0 == last.0 }) {
                throw UsageError("'\(word)' changes \(last.0) again; give each change once")
            }
        }
        return result
    }

    static func set(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        var changes = try changes(words.dropFirst())
        if try await reader.roomIDs().contains(words[0]) {
            try await setAll(reader, room: words[0], changes, options)
            return
        }
        // One command, as a bulb takes them: `on brightness=30` reaches a light that is off as one change.
        let (_, scope) = try await reader.openLight(words[0])
        // A light of colour temperature only takes a colour as the temperature nearest it.
        if changes.contains(where: { $0.0 == "color" }),
            try await reader.client.get("model", in: scope)["kind"] == "ambiance"
        {
            changes = changes.map { change in
                guard change.0 == "color", let color = CIEColor(json: change.1) else { return change }
                return ("colorTemperature", .int(color.mireds))
            }
            // Each word is one change: the colour and a ct given with it would now set the same property.
            let given = Array(words.dropFirst())
            for (index, change) in changes.enumerated() {
                guard let first = changes[..<index].firstIndex(where: { $0.0 == change.0 }) else { continue }
                throw UsageError(
                    "'\(given[first])' and '\(given[index])' both set the colour temperature of \(words[0]), a light "
                        + "of colour temperature only (a colour becomes the temperature nearest it); give one of them")
            }
        }
        let confirmed = try await reader.client.setState(
            JSONObject(changes.map { (key: $0.0, value: $0.1) }), of: scope, transitionMs: options.transitionMs)
        if options.json { Output.json(confirmed); return }
        let shown = changes.map { connection, _ in "\(connection)=\(display(confirmed[connection] ?? .null))" }
        Output.line("\(words[0]): " + shown.joined(separator: " "))
    }

    /// `set ROOM …`: one group command to the room's lights, then what each light did with it.
    static func setAll(
        _ reader: HomeReader, room: String, _ changes: [(String, JSONValue)], _ options: CommonOptions
    ) async throws {
        var arguments = JSONObject(changes.map { (key: $0.0, value: $0.1) })
        if let transition = options.transitionMs { arguments["transitionMs"] = .double(transition) }
        let scope = try await reader.openRoom(room)
        let result = try await reader.client.call("setAll", in: scope, arguments: .object(arguments))
        if options.json { Output.json(result); return }
        let rows = (result["lights"]?.arrayValue ?? []).map { delivery -> [String] in
            let applied = delivery["applied"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let ignored = delivery["ignored"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return [
                delivery["light"]?.stringValue ?? "",
                delivery["missed"]?.stringValue.map { "missed (\($0))" } ?? "applied",
                applied.joined(separator: " "), ignored.isEmpty ? "-" : ignored.joined(separator: " "),
            ]
        }
        Output.table(["LIGHT", "OUTCOME", "APPLIED", "IGNORED"], rows, legend: options.legend, color: options.color)
    }
}
