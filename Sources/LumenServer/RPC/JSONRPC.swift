import LumenProtocol

/// Where a connection's replies go, each in the place its request took when it was read: a place is reserved
/// for each line as it is read, filled whenever its answer is ready, and what is filled goes out in the order
/// the places were reserved, as a pipelining HTTP server keeps its responses in the order of its requests.
/// What else the connection is sent (notices) takes its place when it comes, so a reply filled while places
/// before it are still open waits for them, and a notice does not.
package protocol ReplySink: Sendable {
    /// Reserves the place of the next reply, on the connection's loop.
    func reserve() -> UInt64
    /// Fills a place with its reply (`nil`: the line asked for none, a notification's), on the loop.
    func fill(_ slot: UInt64, with bytes: [UInt8]?)
    /// Fixes a place among what the connection is sent, as if it were filled now, while its bytes come later
    /// with ``fill(_:with:)``: for a reply whose place is known before it can go out (one that waits for the
    /// disk), so that what comes meanwhile is sent after it, whenever the disk confirms.
    func hold(_ slot: UInt64)
}

/// Replies sent as they are filled, for a caller that serves one request at a time (a test, an HTTP request).
package struct RepliesAsFilled: ReplySink {
    let send: @Sendable ([UInt8]) -> Void

    /// Replies handed to `send` as they are filled.
    package init(_ send: @escaping @Sendable ([UInt8]) -> Void) { self.send = send }

    package func reserve() -> UInt64 { 0 }
    package func fill(_ slot: UInt64, with bytes: [UInt8]?) { if let bytes { send(bytes) } }
    package func hold(_ slot: UInt64) {}
}

/// The reply to one request: its place, and its `id` (none for a notification, which is answered with nothing).
/// A handler sends the outcome through it exactly once, at once or whenever it is known.
package struct Reply: Sendable {
    fileprivate enum Place: Sendable {
        case slot(any ReplySink, UInt64)
        /// An answer of a batch's, gathered into the batch's one reply.
        case batch(BatchReplies, Int)
    }

    /// The request's `id`; `nil` for a notification.
    let id: JSONValue?
    fileprivate let place: Place

    /// Sends the outcome (nothing to a notification). Called once.
    package func send(_ result: Result<JSONValue, LumenError>) {
        let bytes = id.map { Wire.response(id: $0, result.mapError(\.boundedForReply)) }
        switch place {
        case .slot(let sink, let slot): sink.fill(slot, with: bytes)
        case .batch(let batch, let index): batch.fill(index, with: bytes)
        }
    }

    /// Fixes the reply's place among what the connection is sent now, its outcome to be sent later (after the
    /// disk confirms it): see ``ReplySink/hold(_:)``. A batch's answer has its place with the batch's reply.
    func hold() {
        if case .slot(let sink, let slot) = place { sink.hold(slot) }
    }
}

/// Work a session's next requests wait for (opening a scope, making a write on the home); it sends its
/// request's reply, or arranges for it to be sent.
package typealias RPCWork = @Sendable () async -> Void

/// Answers JSON-RPC methods: decodes each request into a call of its own type, then answers the call. The
/// requests of one session are handed over one at a time, in order.
package protocol RPCHandler: Sendable {
    /// A request decoded: the method with its parameters, or why it cannot be taken.
    associatedtype Call: Sendable
    /// Decodes one request's method and parameters.
    func decode(method: String, params: JSONValue?) -> Call
    /// Answers one call, without suspending: sends the reply through `reply` at once, or returns work the
    /// session's next requests wait for, or arranges for the reply to be sent later (a device's confirmation),
    /// the next requests not waiting for it.
    func answer(_ call: Call, reply: Reply) -> RPCWork?
    /// `error`, the answer to `call` when it is not carried out (a batch's request after its replies passed
    /// their limit), with whatever the handler's errors name of such a call added.
    func annotate(_ error: LumenError, refusing call: Call) -> LumenError
}

extension RPCHandler {
    package func annotate(_ error: LumenError, refusing call: Call) -> LumenError { error }
}

/// A batch's answers, gathered: its one reply is sent once every answer in it is known.
final class BatchReplies: Sendable {
    private struct State {
        var responses: [[UInt8]?]
        var waiting: Int
        var bytes = 0
        var done: CheckedContinuation<Void, Never>?
    }
    private let state: Locked<State>

    init(count: Int) { state = Locked(State(responses: Array(repeating: nil, count: count), waiting: count)) }

    func fill(_ index: Int, with bytes: [UInt8]?) {
        let done = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.responses[index] = bytes
            state.bytes += (bytes?.count ?? -1) + 1
            state.waiting -= 1
            guard state.waiting == 0 else { return nil }
            defer { state.done = nil }
            return state.done
        }
        done?.resume()
    }

    /// The bytes of the responses known so far.
    var gatheredBytes: Int { state.withLock { $0.bytes } }

    /// The responses, when every answer is known already.
    var responsesIfKnown: [[UInt8]]? {
        state.withLock { $0.waiting == 0 ? $0.responses.compactMap { $0 } : nil }
    }

    /// The responses, in order, once every answer is known; those to notifications left out.
    func responses() async -> [[UInt8]] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.waiting == 0 { return true }
                state.done = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { $0.responses.compactMap { $0 } }
    }
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
/// A line is parsed once, by the one JSON parser, and its request decoded into the handler's call.
package struct JSONRPCProcessor<Handler: RPCHandler>: Sendable {
    /// Answers methods.
    let handler: Handler
    /// The deepest nesting a line may have.
    let maxDepth: Int
    /// What a batch's replies may come to before the rest of the batch is refused.
    let maxBatchReplyBytes: Int
    /// Where a batch waits for its answers that come later, to send its one reply: the connection's loop.
    let executor: (any TaskExecutor)?

    /// A processor.
    package init(
        handler: Handler, maxDepth: Int = JSONParser.defaultMaxDepth, maxBatchReplyBytes: Int = 8 << 20,
        executor: (any TaskExecutor)? = nil
    ) {
        self.handler = handler
        self.maxDepth = maxDepth
        self.maxBatchReplyBytes = maxBatchReplyBytes
        self.executor = executor
    }

    /// What is left of a line once what could be answered at once has been: work the session's next
    /// requests wait for, handed to ``finish(_:)``.
    package struct Pending: Sendable {
        fileprivate enum Work: Sendable {
            case request(RPCWork)
            case batch([JSONValue], LinePlace)
            /// A large batch, parsed in slices.
            case largeBatch([UInt8], LinePlace)
        }
        fileprivate let work: Work
    }

    /// The place reserved for the reply to one line (a request's, or a batch's).
    fileprivate struct LinePlace: Sendable {
        let sink: any ReplySink
        let slot: UInt64

        func fill(_ bytes: [UInt8]?) { sink.fill(slot, with: bytes) }
        func reply(id: JSONValue?) -> Reply { Reply(id: id, place: .slot(sink, slot)) }
    }

    /// Processes one line: reserves its reply's place in `replies`, hands each request in it to the handler, and
    /// returns once every one has been; answers that come later fill the place when they come.
    package func process(line: [UInt8], replies: any ReplySink) async {
        if let pending = processNow(line: line, replies: replies) { await finish(pending) }
    }

    /// Reserves the line's reply's place and answers what of it can be answered without suspending; returns the
    /// rest, for ``finish(_:)``. A large batch is left whole, to be parsed in slices.
    package func processNow(line: [UInt8], replies: any ReplySink) -> Pending? {
        let place = LinePlace(sink: replies, slot: replies.reserve())
        if Self.isLargeBatch(line) { return Pending(work: .largeBatch(line, place)) }
        return processNow(parsing: line, place: place)
    }

    /// ``processNow(line:replies:)`` for a line parsed whole.
    private func processNow(parsing line: [UInt8], place: LinePlace) -> Pending? {
        guard let document = parse(line, place: place) else { return nil }
        if case .array(let elements) = document {
            guard !elements.isEmpty else {
                place.fill(Self.errorResponse(LumenError(.invalidRequest, "Invalid Request: empty batch")))
                return nil
            }
            return Pending(work: .batch(elements, place))
        }
        return answer(document, reply: place.reply(id:)).map { Pending(work: .request($0)) }
    }

    /// Finishes what ``processNow(line:replies:)`` left.
    package func finish(_ pending: Pending) async {
        switch pending.work {
        case .request(let work):
            await work()
        case .batch(let elements, let place):
            await process(batch: elements, place: place)
        case .largeBatch(let line, let place):
            guard let ranges = JSONArraySplitter.elements(in: line), !ranges.isEmpty else {
                // Not a well-formed batch after all: the parser words what is wrong with it.
                guard let pending = processNow(parsing: line, place: place) else { return }
                return await finish(pending)
            }
            guard let elements = await parseInSlices(line, ranges, place: place) else { return }
            await process(batch: elements, place: place)
        }
    }

    /// The length from which a line holding a batch is parsed in slices.
    static var slicedBatchBytes: Int { 16 << 10 }

    /// Whether `line` holds a batch long enough to be parsed in slices, by the session's task rather than in
    /// the turn that read it.
    package static func isLargeBatch(_ line: [UInt8]) -> Bool {
        guard line.count >= slicedBatchBytes else { return false }
        let first = line.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
        return first == UInt8(ascii: "[")
    }

    /// A batch's elements, each parsed in turn with a yield every 16; `nil` after answering an element that is
    /// not JSON, as a parse error of the whole line (nothing in it is carried out).
    private func parseInSlices(_ line: [UInt8], _ ranges: [Range<Int>], place: LinePlace) async -> [JSONValue]? {
        var elements: [JSONValue] = []
        elements.reserveCapacity(ranges.count)
        for (index, range) in ranges.enumerated() {
            do {
                // The batch's own brackets are one level of the line's depth.
                elements.append(try JSONParser.parse(line[range], maxDepth: maxDepth - 1))
            } catch {
                place.fill(Self.parseErrorResponse(error.shifted(by: range.lowerBound), maxDepth: maxDepth))
                return nil
            }
            if index % 16 == 15 { await Task.yield() }
        }
        return elements
    }

    /// The line as JSON, or `nil` after answering a line that is not.
    private func parse(_ line: [UInt8], place: LinePlace) -> JSONValue? {
        do {
            return try JSONParser.parse(line, maxDepth: maxDepth)
        } catch {
            place.fill(Self.parseErrorResponse(error, maxDepth: maxDepth))
            return nil
        }
    }

    /// The answer to a line that is not JSON, or nests too deep.
    private static func parseErrorResponse(_ error: JSONParseError, maxDepth: Int) -> [UInt8] {
        error.isDepthLimit
            ? errorResponse(LumenError(.limitExceeded, "request nests deeper than \(maxDepth) levels"))
            : errorResponse(LumenError(.parseError, "Parse error: \(error)"))
    }

    /// Hands a batch's requests to the handler in order and fills the batch's place with their responses as one
    /// array, once every one is known (nothing, when it held only notifications).
    private func process(batch elements: [JSONValue], place: LinePlace) async {
        let answers = BatchReplies(count: elements.count)
        for (index, element) in elements.enumerated() {
            let reply = { (id: JSONValue?) in Reply(id: id, place: .batch(answers, index)) }
            // The bytes of the responses known so far are what this batch's reply holds at the least.
            if answers.gatheredBytes > maxBatchReplyBytes {
                refuse(element, reply: reply)
            } else if let work = answer(element, reply: reply) {
                await work()
            }
            // A batch of thousands is one line: others sharing the executor get turns within it.
            if index % 16 == 15 { await Task.yield() }
        }
        if let responses = answers.responsesIfKnown {
            place.fill(responses.isEmpty ? nil : Wire.batch(responses: responses))
            return
        }
        Task(executorPreference: executor) {
            let responses = await answers.responses()
            place.fill(responses.isEmpty ? nil : Wire.batch(responses: responses))
        }
    }

    /// Answers a batch's request that comes after its replies passed the limit: not carried out.
    private func refuse(_ element: JSONValue, reply: (JSONValue?) -> Reply) {
        switch validate(element) {
        case .invalid(let error, let id): reply(id).send(.failure(error))
        case .request(let id, let method, let params):
            let why =
                "not carried out: this batch's replies passed \(maxBatchReplyBytes) bytes; send the rest in another batch"
            let call = handler.decode(method: method, params: params)
            reply(id).send(.failure(handler.annotate(LumenError(.limitExceeded, why), refusing: call)))
        }
    }

    /// Hands one request to the handler, with its reply (`id` `nil`: a notification), or answers the error that
    /// it is not a request; returns the work the session's next requests wait for.
    private func answer(_ element: JSONValue, reply: (JSONValue?) -> Reply) -> RPCWork? {
        switch validate(element) {
        case .invalid(let error, let id):
            reply(id).send(.failure(error))
            return nil
        case .request(let id, let method, let params):
            return handler.answer(handler.decode(method: method, params: params), reply: reply(id))
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

    /// The answer to a line with no `id` to answer (one that does not parse, say): `error`, cut to what a reply
    /// may carry (``LumenError/boundedForReply``), with a `null` `id`.
    static func errorResponse(_ error: LumenError) -> [UInt8] {
        Wire.response(id: .null, .failure(error.boundedForReply))
    }
}
