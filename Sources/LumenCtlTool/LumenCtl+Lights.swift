import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl lights [ROOM]`: every light and its state.
extension LumenCtl {
    static func lights(_ reader: HomeReader, _ room: String?, _ options: CommonOptions) async throws {
        if let room, try await !reader.roomIDs().contains(room) {
            throw Failure("no room '\(room)'; list rooms with 'lumenctl rooms'")
        }
        let rooms = try await reader.lights(inRooms: room.map { [$0] })
        let all = rooms.flatMap(\.lights)
        if options.json { Output.json(.array(all.map(\.json))); return }
        let rows = all.map { light in
            [
                light.id, light.room, light.values["name"]?.stringValue ?? "", light.kind,
                onOff(light.values["isOn"], options),
                number(light.values["brightness"]), light.values["isReachable"]?.boolValue == false ? "no" : "yes",
            ]
        }
        Output.table(
            ["LIGHT", "ROOM", "NAME", "KIND", "POWER", "BRIGHTNESS", "REACHABLE"], rows, legend: options.legend,
            color: options.color)
    }
}
