import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl describe [SCOPE]`: what each scope offers.
extension LumenCtl {
    static func describe(_ client: LumenClient, _ only: String?, _ options: CommonOptions) async throws {
        let scopes = try await client.request("describe")["scopes"]?.objectValue ?? [:]
        if let only, scopes[only] == nil {
            throw Failure("no scope type '\(only)'; they are \(scopes.keys.joined(separator: ", "))")
        }
        let chosen = scopes.members.filter { only == nil || $0.key == only }
        if options.json {
            Output.json(.object(JSONObject(chosen.map { (key: $0.key, value: $0.value) })))
            return
        }
        var rows: [[String]] = []
        for (type, description) in chosen {
            for connection in description["connections"]?.arrayValue ?? [] {
                let kind = connection["kind"]?.stringValue ?? ""
                let detail: String
                switch kind {
                case "action":
                    detail =
                        "\(connection["arguments"]?.stringValue ?? "none") → \(connection["result"]?.stringValue ?? "")"
                case "scope":
                    detail =
                        "→ \(connection["scope"]?.stringValue ?? "") (\(connection["configuration"]?.stringValue ?? "none"))"
                default:
                    detail = connection["type"]?.stringValue ?? ""
                }
                rows.append([type, connection["name"]?.stringValue ?? "", kind, detail])
            }
        }
        Output.table(["SCOPE", "CONNECTION", "KIND", "TYPE"], rows, legend: options.legend, color: options.color)
    }
}
