import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl rename LIGHT|ROOM|home NAME`.
extension LumenCtl {
    static func rename(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let scope: ScopeID
        switch words[0] {
        case "home": scope = .root
        case "room":
            guard try await reader.roomIDs().contains(words[1]) else {
                throw Failure("no room '\(words[1])'; list rooms with 'lumenctl rooms'")
            }
            scope = try await reader.openRoom(words[1])
        default: scope = try await reader.openLight(words[1]).scope
        }
        let name = try await reader.client.set("name", in: scope, to: .string(words.last!))
        if options.json { Output.json(["name": name]) } else { Output.line("renamed to \(display(name))") }
    }
}
