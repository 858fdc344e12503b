import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl status`: the home at a glance.
extension LumenCtl {
    static func status(_ reader: HomeReader, _ options: CommonOptions) async throws {
        let name = try await reader.client.get("name", in: .root).stringValue ?? ""
        let rooms = try await reader.lights()
        if options.json {
            Output.json([
                "name": .string(name),
                "rooms": .array(
                    rooms.map { room in
                        [
                            "id": .string(room.room), "name": .string(room.name),
                            "lights": .array(room.lights.map(\.json)),
                        ]
                    }),
            ])
            return
        }
        let total = rooms.reduce(0) { $0 + $1.lights.count }
        let on = rooms.reduce(0) { $0 + $1.lights.filter { $0.values["isOn"]?.boolValue == true }.count }
        let unreachable = rooms.reduce(0) {
            $0 + $1.lights.filter { $0.values["isReachable"]?.boolValue == false }.count
        }
        if options.legend {
            Output.line("\(name): \(rooms.count) rooms, \(total) lights, \(on) on, \(unreachable) unreachable")
        }
        for room in rooms {
            if options.legend {
                Output.line(
                    "\n\(options.color ? "\u{1B}[1m" : "")\(room.name)\(options.color ? "\u{1B}[0m" : "") (\(room.room))"
                )
            }
            let rows = room.lights.map { light -> [String] in
                var cells: [String] = []
                if options.trueColor {
                    let state: JSONValue = .object(light.values)
                    cells.append(Swatch.block(state: state, kind: light.kind))
                }
                cells += [
                    light.id, light.values["name"]?.stringValue ?? "", light.kind, onOff(light.values["isOn"], options),
                    number(light.values["brightness"]), number(light.values["colorTemperature"]),
                    light.values["isReachable"]?.boolValue == false ? "no" : "yes",
                ]
                return cells
            }
            let header =
                (options.trueColor ? [""] : []) + ["LIGHT", "NAME", "KIND", "POWER", "BRIGHTNESS", "CT", "REACHABLE"]
            Output.table(header, rows, legend: options.legend, color: options.color)
        }
    }
}
