import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl get LIGHT|ROOM [PROPERTY]`: values as they are now.
extension LumenCtl {
    static func get(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let (room, scope) = try await reader.openLight(words[0])
        if words.count == 2 {
            // The words `set` takes name the same properties here: `get lab.dim ct`.
            let property = HomeReader.propertyAliases[words[1]] ?? words[1]
            let value = try await reader.client.get(property, in: scope)
            Output.line(options.json ? JSONValue.object(["value": value]).serialized() : display(value))
            return
        }
        let light = try await reader.read(words[0], room: room, scope: scope)
        if options.json { Output.json(light.json); return }
        var rows = [["id", light.id], ["room", room]]
        for connection in HomeReader.lightConnections {
            if let value = light.values[connection] { rows.append([connection, display(value)]) }
        }
        Output.table(["PROPERTY", "VALUE"], rows, legend: options.legend, color: options.color)
    }

    static func display(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        if let object = value.objectValue {
            return object.map { "\($0.key)=\(display($0.value))" }.joined(separator: " ")
        }
        return value.serialized()
    }
}
