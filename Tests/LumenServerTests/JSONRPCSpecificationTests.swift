import LumenModel
import LumenProtocol
import LumenServer
import Testing

/// The methods the JSON-RPC 2.0 specification's examples call.
struct SpecificationHandler: RPCHandler {
    struct Call: Sendable {
        let method: String
        let params: JSONValue?
    }

    func decode(method: String, params: JSONValue?) -> Call { Call(method: method, params: params) }

    func answer(_ call: Call, reply: Reply) -> RPCWork? {
        reply.send(result(of: call))
        return nil
    }

    func result(of call: Call) -> Result<JSONValue, LumenError> {
        let params = call.params
        switch call.method {
        case "subtract":
            if let list = params?.arrayValue, list.count == 2, let a = list[0].intValue, let b = list[1].intValue {
                return .success(.int(a - b))
            }
            if let a = params?["minuend"]?.intValue, let b = params?["subtrahend"]?.intValue {
                return .success(.int(a - b))
            }
            return .failure(LumenError(.invalidParams, "Invalid params"))
        case "sum":
            return .success(.int(params?.arrayValue?.compactMap(\.intValue).reduce(0, +) ?? 0))
        case "get_data":
            return .success(["hello", 5])
        case "update", "notify_hello", "notify_sum":
            return .success(.null)
        default:
            return .failure(LumenError(.methodNotFound, "Method not found"))
        }
    }
}

@Suite("JSON-RPC 2.0 specification examples", .timeLimit(.minutes(2)))
struct JSONRPCSpecificationTests {
    /// Sends one line and returns the response, or `nil` when there is none.
    func exchange(_ line: String) async throws -> JSONValue? {
        let replies = Locked<[[UInt8]]>([])
        await JSONRPCProcessor(handler: SpecificationHandler()).process(
            line: Array(line.utf8), replies: RepliesAsFilled { bytes in replies.withLock { $0.append(bytes) } })
        let all = replies.withLock { $0 }
        #expect(all.count <= 1)
        return try all.first.map { try JSONParser.parse($0) }
    }

    /// The specification's request/response pairs (section 7), response `nil` where it shows none.
    static let examples: [(String, String?)] = [
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 1}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
            #"{"jsonrpc": "2.0", "result": -19, "id": 2}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 3}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 4}"#
        ),
        (#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, nil),
        (#"{"jsonrpc": "2.0", "method": "foobar"}"#, nil),
        (
            #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#
        ),
        (
            #"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#,
            #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#
        ),
        (#"[]"#, #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#),
        (#"[1]"#, #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#),
        (
            #"[1,2,3]"#,
            #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#
        ),
        (
            #"""
            [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
             {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
             {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
             {"foo": "boo"},
             {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
             {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
            """#,
            #"""
            [{"jsonrpc": "2.0", "result": 7, "id": "1"},
             {"jsonrpc": "2.0", "result": 19, "id": "2"},
             {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
             {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
             {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]
            """#
        ),
        (
            #"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#,
            nil
        ),
    ]

    /// Compares a response with the specification's, ignoring the wording of error messages (ours say more)
    /// and member order.
    func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1) }
        case (.object(let a), .object(let b)):
            guard Set(a.keys) == Set(b.keys) else { return false }
            return b.allSatisfy { key, value in
                key == "message"
                    ? a[key]?.stringValue?.hasPrefix(value.stringValue ?? "") == true
                    : matches(a[key]!, value)
            }
        default:
            return actual == expected
        }
    }

    /// A request naming its `id` or `method` twice is not one request: which would be answered is anyone's
    /// guess, so it is refused as the specification refuses what is not a request object.
    @Test(arguments: [#""jsonrpc": "2.0""#, #""id": 2"#, #""method": "sum""#, #""params": [3]"#])
    func aMemberGivenTwiceIsAnInvalidRequest(_ again: String) async throws {
        let line = #"{"jsonrpc": "2.0", "id": 1, "method": "sum", "params": [1, 2], \#(again)}"#
        let reply = try #require(try await exchange(line))
        #expect(reply["error"]?["code"] == -32600)
        // Answered under its id when that can be read: only an id given twice cannot.
        #expect(reply["id"] == (again.hasPrefix(#""id""#) ? .null : 1))
        let name = again.prefix { $0 != ":" }
        let message = reply["error"]?["message"]?.stringValue
        #expect(message == "Invalid Request: \(name) given more than once; give each member once")
    }

    /// An invalid request whose `id` can be read is answered under it (the specification asks for `null` only
    /// when the id cannot be detected), so that a client waiting on that id hears why.
    @Test(arguments: [
        (#"{"jsonrpc": "1.0", "id": 5, "method": "sum"}"#, JSONValue.int(5), "\"jsonrpc\" must be \"2.0\""),
        (#"{"jsonrpc": "2.0", "id": "a", "method": "sum", "params": "x"}"#, "a", "\"params\" must be"),
        (#"{"id": 7, "method": 1}"#, 7, "\"jsonrpc\" must be"),
        (#"{"jsonrpc": "2.0", "id": {"x": 1}, "method": "sum"}"#, .null, "\"id\" must be"),
        (#"[{"jsonrpc": "2.0", "id": 8, "method": 2}]"#, 8, "\"method\" must be a string"),
    ])
    func anInvalidRequestIsAnsweredUnderItsIdWhenItCanBeRead(line: String, id: JSONValue, why: String) async throws {
        var reply = try #require(try await exchange(line))
        if case .array(let replies) = reply { reply = try #require(replies.first) }
        #expect(reply["error"]?["code"] == -32600)
        #expect(reply["id"] == id, "\(reply)")
        #expect(reply["error"]?["message"]?.stringValue?.contains(why) == true, "\(reply)")
    }

    @Test(arguments: examples.indices)
    func theSpecificationsExampleGetsTheSpecificationsResponse(_ index: Int) async throws {
        let (request, expected) = Self.examples[index]
        let actual = try await exchange(request.replacingOccurrences(of: "\n", with: ""))
        guard let expected else {
            #expect(actual == nil, "expected no response, got \(actual?.serialized() ?? "")")
            return
        }
        let expectedValue = try JSONParser.parse(expected)
        let actualValue = try #require(actual)
        #expect(matches(actualValue, expectedValue), "got \(actualValue.serialized())")
    }
}
