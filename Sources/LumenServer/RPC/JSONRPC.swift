import LumenProtocol

/// How a handler answers a call: at once, after work the session's next requests wait for, or later.
public enum RPCAnswer: Sendable {
    /// The answer is ready.
    case now(Result<JSONValue, LumenError>)
    /// Work the session's next requests wait for (opening a scope, making a write on the home), which then
    /// answers, at once or later.
    case after(@Sendable () async -> RPCAnswer)
    /// The answer comes when this finishes (a device confirming a write); the session's next requests do not
    /// wait for it.
    case later(@Sendable () async -> Result<JSONValue, LumenError>)
    /// The answer comes when the handler hands it to the function this is given (called at once), on the thread
    /// that replies are sent from; the session's next requests do not wait for it. A handler that hands it over
    /// from work queued on that thread in the order of the home's changes (as ``Session`` does) puts the reply
    /// exactly there among its notices, with no task's resumption to race.
    case handed(@Sendable (_ answer: @escaping @Sendable (Result<JSONValue, LumenError>) -> Void) -> Void)

    /// A successful answer.
    public static func result(_ value: JSONValue) -> RPCAnswer { .now(.success(value)) }
    /// A failure.
    public static func failure(_ error: LumenError) -> RPCAnswer { .now(.failure(error)) }
}

/// Answers JSON-RPC methods: decodes each request into a call of its own type, then answers the call. The
/// requests of one session are handed over one at a time, in order.
public protocol RPCHandler: Sendable {
    /// A request decoded: the method with its parameters, or why it cannot be taken.
    associatedtype Call: Sendable
    /// Decodes one request's method and parameters.
    func decode(method: String, params: JSONValue?) -> Call
    /// Answers one call, without suspending: the answer, or the work that gives it.
    func answer(_ call: Call) -> RPCAnswer
    /// Called once for each ``RPCAnswer/later(_:)`` and ``RPCAnswer/handed(_:)`` after its response has been
    /// handed to `reply` (or dropped, for a notification), so a handler can tell when nothing is left to answer.
    func laterAnswerSent()
    /// `error`, the answer to `call` when it is not carried out (a batch's request after its replies passed
    /// their limit), with whatever the handler's errors name of such a call added.
    func annotate(_ error: LumenError, refusing call: Call) -> LumenError
}

extension RPCHandler {
    public func laterAnswerSent() {}
    public func annotate(_ error: LumenError, refusing call: Call) -> LumenError { error }
}

/// JSON-RPC 2.0 framing over lines: requests, notifications and batches in; responses out, each echoing its
/// request's `id` exactly as sent.
///
/// Follows the specification's rules: -32700 for text that is not JSON, -32600 for JSON that is not a
/// request (under its `id` when one can be read, else `null`), no response to notifications, a batch answered
/// by one array (nothing when it held only notifications), an empty batch answered by a single -32600. A batch
/// is one reply, however many requests it holds: once its replies pass ``maxBatchReplyBytes``, the requests
/// after are not carried out, each answered -32020 under its own `id`.
///
/// A line is read once. One of the plain shape nearly every `get` and `set` has (``PlainRequest``) is read
/// straight from its bytes, with no tree; any other is parsed. Either way its request is decoded into the
/// handler's call, and the call answered, the same way.
public struct JSONRPCProcessor<Handler: RPCHandler>: Sendable {
    /// Answers methods.
    public let handler: Handler
    /// The deepest nesting a line may have.
    public let maxDepth: Int
    /// What a batch's replies may come to before the rest of the batch is refused.
    public let maxBatchReplyBytes: Int
    /// Where answers that come later are awaited: the connection's loop, so that a confirmation resumes there.
    public let executor: (any TaskExecutor)?
    /// Whether lines of the plain shape are read as they lie (``PlainRequest``). Either way every line is
    /// answered alike; tests and the fuzz target hold the two readings to that.
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

    /// What is left of a line once what could be answered at once has been: work the session's next
    /// requests wait for, handed to ``finish(_:reply:)``.
    public struct Pending: Sendable {
        fileprivate enum Work: Sendable {
            case request(id: JSONValue?, @Sendable () async -> RPCAnswer)
            case batch([JSONValue])
            /// A large batch, parsed in slices.
            case largeBatch([UInt8])
        }
        fileprivate let work: Work
    }

    /// Processes one line: sends each response (one JSON text, no newline) to `reply`, and returns once
    /// every request in it has been handed to the handler; answers that come later are sent from their own
    /// tasks.
    public func process(line: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) async {
        if let pending = processNow(line: line, reply: reply) { await finish(pending, reply: reply) }
    }

    /// Answers what of `line` can be answered without suspending; returns the rest, for
    /// ``finish(_:reply:)``. A large batch is left whole, to be parsed in slices.
    public func processNow(line: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) -> Pending? {
        if Self.isLargeBatch(line) { return Pending(work: .largeBatch(line)) }
        // A plain line nests two deep; under a lower limit the parser's depth check answers it.
        if readsPlainRequests, maxDepth >= 2, let request = PlainRequest(line: line) {
            let call = handler.decode(method: request.method, params: request.params)
            return send(handler.answer(call), id: request.id, reply: reply)
        }
        return processNow(parsing: line, reply: reply)
    }

    /// ``processNow(line:reply:)`` for a line parsed whole.
    private func processNow(parsing line: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) -> Pending? {
        guard let document = parse(line, reply: reply) else { return nil }
        if case .array(let elements) = document {
            guard !elements.isEmpty else {
                reply(Self.errorResponse(id: .null, LumenError(.invalidRequest, "Invalid Request: empty batch")))
                return nil
            }
            return Pending(work: .batch(elements))
        }
        let (id, answer) = answer(document)
        return send(answer, id: id, reply: reply)
    }

    /// Finishes what ``processNow(line:reply:)`` left.
    public func finish(_ pending: Pending, reply: @escaping @Sendable ([UInt8]) -> Void) async {
        switch pending.work {
        case .request(let id, let work):
            var next = work
            while let more = send(await next(), id: id, reply: reply)?.work {
                guard case .request(_, let work) = more else { return }
                next = work
            }
        case .batch(let elements):
            await process(batch: elements, reply: reply)
        case .largeBatch(let line):
            guard let ranges = JSONArraySplitter.elements(in: line), !ranges.isEmpty else {
                // Not a well-formed batch after all: the parser words what is wrong with it.
                guard let pending = processNow(parsing: line, reply: reply) else { return }
                return await finish(pending, reply: reply)
            }
            guard let elements = await parseInSlices(line, ranges, reply: reply) else { return }
            await process(batch: elements, reply: reply)
        }
    }

    /// The length from which a line holding a batch is parsed in slices.
    public static var slicedBatchBytes: Int { 16 << 10 }

    /// Whether `line` holds a batch long enough to be parsed in slices, by the session's task rather than in
    /// the turn that read it.
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

    /// Sends an answer known now (none to a notification), or starts waiting for one that comes later;
    /// returns work the session's next requests wait for.
    private func send(_ answer: RPCAnswer, id: JSONValue?, reply: @escaping @Sendable ([UInt8]) -> Void) -> Pending? {
        switch answer {
        case .now(let result):
            if let id { reply(Self.response(id: id, result)) }
            return nil
        case .after(let work):
            return Pending(work: .request(id: id, work))
        case .later(let wait):
            // A notification's work goes on, but nothing is said.
            Task(executorPreference: executor) { [handler] in
                let result = await wait()
                if let id { reply(Self.response(id: id, result)) }
                handler.laterAnswerSent()
            }
            return nil
        case .handed(let start):
            start { [handler] result in
                if let id { reply(Self.response(id: id, result)) }
                handler.laterAnswerSent()
            }
            return nil
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
            var (id, answer) = gathered > maxBatchReplyBytes ? refused(element) : answer(element)
            while case .after(let work) = answer { answer = await work() }
            switch (id, answer) {
            case (let id?, .now(let result)):
                let response = Self.response(id: id, result)
                gathered += response.count + 1
                answers.append(.ready(response))
            case (let id?, .later(let wait)):
                answers.append(.later(id: id, wait))
            case (let id?, .handed(let start)):
                // A batch is one reply, sent once every answer in it is known: its place among the session's
                // other replies is where its last answer comes.
                answers.append(
                    .later(id: id) {
                        await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
                    })
            case (nil, .later(let wait)):
                // A notification's work goes on, but nothing is said.
                Task(executorPreference: executor) { [handler] in
                    _ = await wait()
                    handler.laterAnswerSent()
                }
            case (nil, .handed(let start)):
                start { [handler] _ in handler.laterAnswerSent() }
            case (_, .now), (_, .after):
                break
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
            for _ in 0..<laters { handler.laterAnswerSent() }
        }
    }

    /// The answer to a batch's request that comes after its replies passed the limit: not carried out.
    private func refused(_ element: JSONValue) -> (id: JSONValue?, answer: RPCAnswer) {
        switch validate(element) {
        case .invalid(let error, let id): return (id, .failure(error))
        case .request(let id, let method, let params):
            let why =
                "not carried out: this batch's replies passed \(maxBatchReplyBytes) bytes; send the rest in another batch"
            let call = handler.decode(method: method, params: params)
            return (id, .failure(handler.annotate(LumenError(.limitExceeded, why), refusing: call)))
        }
    }

    /// One request's `id` (`nil`: a notification) and the handler's answer to it, or the error that it is not
    /// a request.
    private func answer(_ element: JSONValue) -> (id: JSONValue?, answer: RPCAnswer) {
        switch validate(element) {
        case .invalid(let error, let id): return (id, .failure(error))
        case .request(let id, let method, let params):
            return (id, handler.answer(handler.decode(method: method, params: params)))
        }
    }

    /// A request checked against the specification.
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

    /// How `line` reads as a request, by the plain reader (`nil` when it does not take the line) and by the
    /// parser (`nil` when the line is not one valid request): the fuzz target holds the two to agree.
    public func readings(of line: [UInt8]) -> (
        plain: (id: JSONValue, call: Handler.Call)?, parsed: (id: JSONValue?, call: Handler.Call)?
    ) {
        let plain = PlainRequest(line: line).map { request in
            (request.id, handler.decode(method: request.method, params: request.params))
        }
        guard let document = try? JSONParser.parse(line, maxDepth: maxDepth),
            case .request(let id, let method, let params) = validate(document)
        else { return (plain, nil) }
        return (plain, (id, handler.decode(method: method, params: params)))
    }

    /// A response, with an error cut to what a reply may carry (``LumenError/boundedForReply``).
    public static func response(id: JSONValue, _ result: Result<JSONValue, LumenError>) -> [UInt8] {
        Wire.response(id: id, result.mapError(\.boundedForReply))
    }

    static func errorResponse(id: JSONValue, _ error: LumenError) -> [UInt8] { response(id: id, .failure(error)) }

    static func batchResponse(_ responses: [[UInt8]]) -> [UInt8] { Wire.batch(responses: responses) }
}
