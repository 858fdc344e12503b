import LumenProtocol

extension LumenError {
    /// The longest message an error reply carries, in characters.
    static let maxReplyMessage = 1_024
    /// The longest string in an error reply's `data`, in characters.
    static let maxReplyEcho = 256

    /// The error as a reply may carry it: what it echoes of the client's input (an ID, a name, a value) cut
    /// to a bounded length, so that a 900 KB room ID costs its sender a short reply, not a 1.8 MB one.
    var boundedForReply: LumenError {
        var bounded = self
        bounded.message = Self.cut(message, to: Self.maxReplyMessage)
        var data = JSONObject()
        for (key, value) in self.data.members { data[key] = Self.cut(value, to: Self.maxReplyEcho) }
        bounded.data = data
        return bounded
    }

    static func cut(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return text.prefix(limit) + "… (\(text.count - limit) more characters)"
    }

    private static func cut(_ value: JSONValue, to limit: Int) -> JSONValue {
        switch value {
        case .string(let text): return .string(cut(text, to: limit))
        case .array(let elements) where elements.count > 16:
            return .array(elements.prefix(16).map { cut($0, to: limit) } + [.string("… \(elements.count - 16) more")])
        case .array(let elements): return .array(elements.map { cut($0, to: limit) })
        case .object(let object):
            var bounded = JSONObject()
            for (key, member) in object.members.prefix(16) { bounded[key] = cut(member, to: limit) }
            return .object(bounded)
        default: return value
        }
    }
}
