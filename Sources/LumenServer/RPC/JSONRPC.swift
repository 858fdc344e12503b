import LumenProtocol

/// What a method handler does with a request: answers at once, or later (a write waiting for its device).
public enum RPCOutcome: Sendable {
    /// The answer is ready.
    case done(Result<JSONValue, LumenError>)
    /// The answer comes when this finishes; the request was already queued in order.
    case later(@Sendable () async -> Result<JSONValue, LumenError>)

    /// A successful answer.
    public static func result(_ value: JSONValue) -> RPCOutcome { .done(.success(value)) }
    /// A failure.
    public static func failure(_ error: LumenError) -> RPCOutcome { .done(.failure(error)) }
}

/// Answers JSON-RPC methods. Requests from one line (and one session) are handed over one at a time, in
/// order; a handler that must wait returns ``RPCOutcome/later(_:)`` so later requests are not held up.
public protocol RPCHandler: Sendable {
    /// Handles one request or notification.
    func handle(method: String, params: JSONValue?) async -> RPCOutcome
    /// Handles one request at once, without suspending, when it can (a `get` of a value already published);
    /// `nil` when it must go through ``handle(method:params:)``. Whatever it answers, `handle` would too.
    func handleNow(method: String, params: JSONValue?) -> RPCOutcome?
    /// Handles a request of the plain shape at once, as ``handleNow(method:params:)`` would, without its
    /// line having been parsed into a tree; `nil` when the request must go the general way (which also
    /// answers every error). Whatever it answers, the general way would too.
    func handleNow(_ request: PlainRequest) -> RPCOutcome?
    /// Called once for each ``RPCOutcome/later(_:)`` after its response has been handed to `reply` (or
    /// dropped, for a notification), so a handler can tell when nothing is left to answer.
    func laterOutcomeSent()
}

extension RPCHandler {
    public func laterOutcomeSent() {}
    public func handleNow(method: String, params: JSONValue?) -> RPCOutcome? { nil }
    public func handleNow(_ request: PlainRequest) -> RPCOutcome? { nil }
}

/// JSON-RPC 2.0 framing over lines: requests, notifications and batches in; responses out, each echoing its
/// request's `id` exactly as sent.
///
/// Follows the specification's rules: -32700 for text that is not JSON, -32600 for JSON that is not a
/// request (with `id: null`), no response to notifications, a batch answered by one array (nothing when it
/// held only notifications), an empty batch answered by a single -32600. A batch is one reply, however many
/// requests it holds: once its replies pass ``maxBatchReplyBytes``, the requests after are not carried out,
/// each answered -32020 under its own `id`.
public struct JSONRPCProcessor<Handler: RPCHandler>: Sendable {
    /// Answers methods.
    public let handler: Handler
    /// The deepest nesting a line may have.
    public let maxDepth: Int
    /// What a batch's replies may come to before the rest of the batch is refused.
    public let maxBatchReplyBytes: Int
    /// Where answers that come later are awaited: the connection's own thread, so that a confirmation
    /// resumes there instead of on a shared thread and then hopping back.
    public let executor: (any TaskExecutor)?
    /// Whether a line of the plain shape nearly every request has (``PlainRequest``) is read as it lies and
    /// handed to ``RPCHandler/handleNow(_:)``, with no tree built. Either way every line is answered alike.
    public let readsPlainRequests: Bool

    /// A processor.
    public init(
        handler: Handler, maxDepth: Int = JSONParser.defaultMaxDepth, maxBatchReplyBytes: Int = 8 << 20,
        executor: (any TaskExecutor)? = nil, readsPlainRequests: Bool = true
    ) {
        self.handler = handler
        self.maxDepth = maxDepth
        self.maxBatchReplyBytes = maxBatchReplyBytes
        self.executor = executor
        self.readsPlainRequests = readsPlainRequests
    }

    /// Processes one line and sends each response (one JSON text, no newline) to `reply`.
    ///
    /// Returns once every request in the line has been handed to the handler; responses that come later are
    /// sent from their own tasks. A large batch (``isLargeBatch(_:)``) is parsed element by element, yielding
    /// between slices, so that others sharing the executor are not kept waiting for one large tree.
    public func process(line: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) async {
        if Self.isLargeBatch(line), let ranges = JSONArraySplitter.elements(in: line), !ranges.isEmpty {
            guard let elements = await parseInSlices(line, ranges, reply: reply) else { return }
            await process(batch: elements, reply: reply)
            return
        }
        guard let document = parse(line, reply: reply) else { return }
        await process(document: document, reply: reply)
    }

    /// The length from which a line holding a batch is parsed in slices by ``process(line:reply:)``.
    public static var slicedBatchBytes: Int { 16 << 10 }

    /// Whether `line` holds a batch long enough to be parsed in slices: ``processNow(line:reply:)`` leaves such a
    /// line to ``process(line:reply:)``.
    public static func isLargeBatch(_ line: [UInt8]) -> Bool {
        guard line.count >= slicedBatchBytes else { return false }
        let first = line.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
        return first == UInt8(ascii: "[")
    }

    /// A batch's elements, each parsed in turn with a yield every 16; `nil` after answering an element that is
    /// not JSON, as a parse error of the whole line (nothing in it is carried out).
    private func parseInSlices(_ line: [UInt8], _ ranges: [Range<Int>], reply: @Sendable ([UInt8]) -> Void) async
        -> [JSONValue]?
    {
        var elements: [JSONValue] = []
        elements.reserveCapacity(ranges.count)
        for (index, range) in ranges.enumerated() {
            do {
                // The batch's own brackets are one level of the line's depth.
                elements.append(try JSONParser.parse(line[range], maxDepth: maxDepth - 1))
            } catch {
                reply(Self.parseErrorResponse(error.shifted(by: range.lowerBound), maxDepth: maxDepth))
                return nil
            }
            if index % 16 == 15 { await Task.yield() }
        }
        return elements
    }

    /// Processes one line at once when it can: a line that is not JSON, a request that is not valid, or one
    /// the handler answers without suspending (``RPCHandler/handleNow(_:)`` for a plain request, read with
    /// no tree, or ``RPCHandler/handleNow(method:params:)``). Otherwise returns the parsed line, for
    /// ``process(document:reply:)``.
    public func processNow(line: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) -> JSONValue? {
        // Most lines are a plain `get` or `set`: read as they lie, with no tree to build and free. A plain line
        // nests two deep; under a lower limit the general way's depth check answers it.
        if readsPlainRequests, maxDepth >= 2, let request = PlainRequest(line: line),
            let outcome = handler.handleNow(request)
        {
            answer(outcome, id: request.id, reply: reply)
            return nil
        }
        guard let document = parse(line, reply: reply) else { return nil }
        guard case .object = document else { return document }
        switch validate(document) {
        case .invalid(let error, let id):
            reply(Self.errorResponse(id: id, error))
            return nil
        case .request(let id, let method, let params):
            guard let outcome = handler.handleNow(method: method, params: params) else { return document }
            answer(outcome, id: id, reply: reply)
            return nil
        }
    }

    /// The line as JSON, or `nil` after answering a line that is not.
    private func parse(_ line: [UInt8], reply: @Sendable ([UInt8]) -> Void) -> JSONValue? {
        do {
            return try JSONParser.parse(line, maxDepth: maxDepth)
        } catch {
            reply(Self.parseErrorResponse(error, maxDepth: maxDepth))
            return nil
        }
    }

    /// The answer to a line that is not JSON, or nests too deep.
    private static func parseErrorResponse(_ error: JSONParseError, maxDepth: Int) -> [UInt8] {
        error.isDepthLimit
            ? errorResponse(id: .null, LumenError(.limitExceeded, "request nests deeper than \(maxDepth) levels"))
            : errorResponse(id: .null, LumenError(.parseError, "Parse error: \(error)"))
    }

    /// Processes one parsed line (a request, a notification or a batch) and sends each response to `reply`.
    public func process(document: JSONValue, reply: @escaping @Sendable ([UInt8]) -> Void) async {
        if case .array(let elements) = document {
            guard !elements.isEmpty else {
                reply(Self.errorResponse(id: .null, LumenError(.invalidRequest, "Invalid Request: empty batch")))
                return
            }
            await process(batch: elements, reply: reply)
            return
        }
        switch validate(document) {
        case .invalid(let error, let id): reply(Self.errorResponse(id: id, error))
        case .request(let id, let method, let params):
            answer(await handler.handle(method: method, params: params), id: id, reply: reply)
        }
    }

    /// One answer of a batch's: its response, or what it waits for.
    private enum BatchAnswer {
        case ready([UInt8])
        case later(id: JSONValue, @Sendable () async -> Result<JSONValue, LumenError>)
    }

    /// Hands a batch's requests to the handler in order and sends their responses as one array, once every
    /// one is known.
    private func process(batch elements: [JSONValue], reply: @escaping @Sendable ([UInt8]) -> Void) async {
        var answers: [BatchAnswer] = []
        // The bytes of the responses known so far: what this batch's reply holds at the least.
        var gathered = 0
        for (index, element) in elements.enumerated() {
            if let (id, outcome) = gathered > maxBatchReplyBytes ? refused(element) : await handleOne(element) {
                switch outcome {
                case .done(let result):
                    let response = Self.response(id: id, result)
                    gathered += response.count + 1
                    answers.append(.ready(response))
                case .later(let wait): answers.append(.later(id: id, wait))
                }
            }
            // A batch of thousands is one line: others sharing the executor get turns within it.
            if index % 16 == 15 { await Task.yield() }
        }
        guard !answers.isEmpty else { return }
        let ready = answers.compactMap { if case .ready(let bytes) = $0 { bytes } else { nil } }
        let laters = answers.count - ready.count
        guard laters > 0 else {
            reply(Self.batchResponse(ready))
            return
        }
        Task(executorPreference: executor) {
            var responses: [[UInt8]] = []
            for answer in answers {
                switch answer {
                case .ready(let bytes): responses.append(bytes)
                case .later(let id, let wait): responses.append(Self.response(id: id, await wait()))
                }
            }
            reply(Self.batchResponse(responses))
            for _ in 0..<laters { handler.laterOutcomeSent() }
        }
    }

    /// The answer to a batch's request that comes after its replies passed the limit: not carried out.
    private func refused(_ element: JSONValue) -> (id: JSONValue, outcome: RPCOutcome)? {
        switch validate(element) {
        case .invalid(let error, let id): return (id, .failure(error))
        case .request(let id, _, _):
            let why =
                "not carried out: this batch's replies passed \(maxBatchReplyBytes) bytes; send the rest in another batch"
            return id.map { ($0, .failure(LumenError(.limitExceeded, why))) }
        }
    }

    /// Sends the response to one request (none to a notification), now or once a later outcome is known.
    private func answer(_ outcome: RPCOutcome, id: JSONValue?, reply: @escaping @Sendable ([UInt8]) -> Void) {
        switch outcome {
        case .done(let result):
            if let id { reply(Self.response(id: id, result)) }
        case .later(let wait):
            // A notification's work goes on, but nothing is said.
            Task(executorPreference: executor) { [handler] in
                let result = await wait()
                if let id { reply(Self.response(id: id, result)) }
                handler.laterOutcomeSent()
            }
        }
    }

    /// Validates one request and hands it to the handler; `nil` for a notification (no response).
    private enum Validated {
        /// Not a request; answered under `id` when one could be read, else `null`.
        case invalid(LumenError, id: JSONValue)
        case request(id: JSONValue?, method: String, params: JSONValue?)
    }

    /// Checks that a value is a JSON-RPC request.
    private func validate(_ value: JSONValue) -> Validated {
        // The specification asks for a null id only when the id cannot be detected: one given once, as a string
        // or a number, is answered under, whatever else is wrong, so a client waiting on it hears why.
        let readableID: JSONValue =
            switch value.objectValue.flatMap({ $0.count(of: "id") == 1 ? $0["id"] : nil }) {
            case .string(let id)?: .string(id)
            case .number(let id)?: .number(id)
            default: .null
            }
        func invalid(_ why: String) -> Validated {
            .invalid(LumenError(.invalidRequest, "Invalid Request: \(why)"), id: readableID)
        }
        guard case .object(let request) = value else { return invalid("expected an object, got \(value.typeName)") }
        // Other members are let be, as the specification lets them; these four each mean one thing.
        for member in ["jsonrpc", "id", "method", "params"] where request.count(of: member) > 1 {
            return invalid("\"\(member)\" given more than once; give each member once")
        }
        guard request["jsonrpc"] == .string("2.0") else { return invalid("\"jsonrpc\" must be \"2.0\"") }
        let id = request["id"]
        if let id {
            switch id {
            case .string, .number, .null: break
            default: return invalid("\"id\" must be a string, a number or null")
            }
        }
        guard case .string(let method) = request["method"] else { return invalid("\"method\" must be a string") }
        let params = request["params"]
        if let params {
            switch params {
            case .object, .array: break
            default: return invalid("\"params\" must be an object or an array")
            }
        }
        return .request(id: id, method: method, params: params)
    }

    /// Hands one batch element to the handler; `nil` for a notification (no response), whose later work is
    /// answered to nobody.
    private func handleOne(_ value: JSONValue) async -> (id: JSONValue, outcome: RPCOutcome)? {
        let (id, method, params): (JSONValue?, String, JSONValue?)
        switch validate(value) {
        case .invalid(let error, let id): return (id, .failure(error))
        case .request(let requestID, let requestMethod, let requestParams):
            (id, method, params) = (requestID, requestMethod, requestParams)
        }
        let outcome = await handler.handle(method: method, params: params)
        guard let id else {
            answer(outcome, id: nil) { _ in }
            return nil
        }
        return (id, outcome)
    }

    /// A response, with an error cut to what a reply may carry (``LumenError/boundedForReply``).
    public static func response(id: JSONValue, _ result: Result<JSONValue, LumenError>) -> [UInt8] {
        Wire.response(id: id, result.mapError(\.boundedForReply))
    }

    static func errorResponse(id: JSONValue, _ error: LumenError) -> [UInt8] { response(id: id, .failure(error)) }

    static func batchResponse(_ responses: [[UInt8]]) -> [UInt8] { Wire.batch(responses: responses) }
}
