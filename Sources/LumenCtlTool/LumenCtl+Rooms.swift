import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl rooms`: the rooms and their lights.
extension LumenCtl {
    static func rooms(_ reader: HomeReader, _ options: CommonOptions) async throws {
        var rows: [[String]] = []
        var json: [JSONValue] = []
        for room in try await reader.roomIDs() {
            let scope = try await reader.openRoom(room)
            let name = try await reader.client.get("name", in: scope).stringValue ?? ""
            let lights = try await reader.client.get("lightIDs", in: scope).arrayValue?.count ?? 0
            let scanning = try await reader.client.get("isScanning", in: scope).boolValue ?? false
            try await reader.client.close(scope)
            rows.append([room, name, String(lights), scanning ? "scanning" : "-"])
            json.append([
                "id": .string(room), "name": .string(name), "lights": .int(lights), "isScanning": .bool(scanning),
            ])
        }
        if options.json { Output.json(.array(json)); return }
        Output.table(["ROOM", "NAME", "LIGHTS", "DISCOVERY"], rows, legend: options.legend, color: options.color)
    }
}
