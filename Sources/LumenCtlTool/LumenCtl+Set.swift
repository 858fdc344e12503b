import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl set LIGHT|ROOM CHANGES…`: a change to a light, or to every light of a room as one group command.
extension LumenCtl {
    /// Parses `on`, `off`, `brightness=N`, `ct=N`, `xy=X,Y` into (connection, value) pairs.
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
            case ("ct", 2):
                guard let value = Int(parts[1]) else { throw UsageError("ct takes mireds 153–500, like ct=366") }
                result.append(("colorTemperature", .int(value)))
            case ("xy", 2):
                let xy = parts[1].split(separator: ",").compactMap { Double($0) }
                guard xy.count == 2 else { throw UsageError("xy takes two numbers, like xy=0.31,0.33") }
                guard xy.allSatisfy({ (0...1).contains($0) }) else {
                    throw UsageError("xy takes two numbers from 0 to 1 (CIE 1931), like xy=0.31,0.33, not '\(word)'")
                }
                result.append(("color", ["x": .double(xy[0]), "y": .double(xy[1])]))
            default:
                throw UsageError("'\(word)' is not a change; use on, off, brightness=N, ct=N or xy=X,Y")
            }
        }
        return result
    }

    static func set(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let changes = try changes(words.dropFirst())
        if try await reader.roomIDs().contains(words[0]) {
            try await setAll(reader, room: words[0], changes, options)
            return
        }
        let (_, scope) = try await reader.openLight(words[0])
        var confirmed = JSONObject()
        for (connection, value) in changes {
            confirmed[connection] = try await reader.client.set(
                connection, in: scope, to: value, transitionMs: options.transitionMs)
        }
        if options.json { Output.json(.object(confirmed)); return }
        Output.line("\(words[0]): " + confirmed.map { "\($0.key)=\(display($0.value))" }.joined(separator: " "))
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
