import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

/// `lumenctl call METHOD [PARAMS]`: one raw JSON-RPC request.
extension LumenCtl {
    static func call(_ client: LumenClient, _ words: [String], _ options: CommonOptions) async throws {
        var params = JSONObject()
        if words.count == 2 {
            guard let value = try? JSONParser.parse(words[1]), let object = value.objectValue else {
                throw UsageError("the params must be one JSON object, like '{\"scope\":0,\"connection\":\"name\"}'")
            }
            params = object
        }
        let result = try await client.request(words[0], params)
        Output.line(options.json ? result.serialized() : Output.trimmingNewlines(result.prettySerialized()))
    }
}
