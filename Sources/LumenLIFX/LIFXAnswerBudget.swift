import LumenProtocol
import Synchronization

/// The bulb answers in progress across every bulb of the LAN, bounded in answers and in the bytes of the replies
/// they will send, and the broadcasts that ask for them, as a bulb's firmware has a fixed queue: each addressed
/// bulb's answer reserves its share before its work starts and gives it back when done, and one that does not fit
/// is dropped (the bulb stays silent, as a flooded bulb does) and counted.
///
/// A broadcast (a tagged message, or one whose target is all zeros) reaches every bulb, so one datagram asks for
/// hundreds of answers; broadcasts may take at most ``broadcastShare`` of the budget, the rest being kept for
/// messages to one bulb, so that a client polling its own bulb is still answered while broadcasts flood the LAN,
/// and at most ``maxBroadcasts`` are in progress at once.
///
/// ```swift
/// let budget = LIFXAnswerBudget()
/// if budget.reserve(bytes: 124, broadcast: true) {
///     defer { budget.release(bytes: 124) }
///     // work on the answer
/// }
/// ```
public final class LIFXAnswerBudget: Sendable {
    /// The most answers in progress at once: 4,096, about 20 broadcasts to the 203 bulbs of a large home, or 400
    /// bulbs each polled ten at a time. An answer waiting for its bulb (its latency, a command's timeout of a
    /// few seconds) holds a task and the home's record of the command, about 2 KB between them, so the budget
    /// holds lumend's memory for answers near 8 MB, well within the 64 MB a flood may cost.
    public static let maxAnswers = 4_096
    /// The most reply bytes answers in progress will send: 512 KiB, what 4,096 answers of an acknowledgement
    /// and a `Light.State` (124 bytes) nearly fill, so that answers with larger replies (`EchoResponse`,
    /// `StateGroup`) are held by their bytes before their number.
    public static let maxBytes = 512 * 1_024
    /// The most broadcasts in progress at once: 16. Each takes a turn of the home that looks up every bulb (a
    /// snapshot of each, some 60 KB for 200 bulbs) and starts the message on each (a query asked and its reply
    /// read, a change sent), so it holds the home longer than the lookup alone. A poll of one bulb waits behind the
    /// turns queued before it, so the bound keeps that wait to 16 such turns and the lookups near 1 MB, while 16
    /// broadcasts to 200 bulbs still fill the broadcasts' share of answers.
    public static let maxBroadcasts = 16
    /// The part of the budget a broadcast may take, in quarters: three, leaving 1,024 answers and 128 KiB for
    /// messages to one bulb, which a flood of broadcasts cannot take from them.
    public static let broadcastShare = 3

    /// The most answers in progress at once.
    public let maxAnswers: Int
    /// The most reply bytes answers in progress will send.
    public let maxBytes: Int
    /// The most broadcasts in progress at once.
    public let maxBroadcasts: Int

    /// Answers, bytes and broadcasts in progress, and the most answers and bytes seen at once. One lock rather
    /// than atomics: an answer reserves both its place and its bytes or neither, which two atomics cannot check
    /// and take together.
    private let usage = Locked(Usage())
    /// Bulb answers dropped because they did not fit.
    public let dropped = Atomic<Int>(0)
    /// Broadcasts dropped whole, before their bulbs were looked up, because too many were in progress.
    public let droppedBroadcasts = Atomic<Int>(0)

    struct Usage {
        var answers = 0
        var bytes = 0
        var peakAnswers = 0
        var peakBytes = 0
        var broadcasts = 0
    }

    /// A budget of `maxAnswers` answers, `maxBytes` reply bytes and `maxBroadcasts` broadcasts.
    public init(
        maxAnswers: Int = LIFXAnswerBudget.maxAnswers, maxBytes: Int = LIFXAnswerBudget.maxBytes,
        maxBroadcasts: Int = LIFXAnswerBudget.maxBroadcasts
    ) {
        self.maxAnswers = maxAnswers
        self.maxBytes = maxBytes
        self.maxBroadcasts = maxBroadcasts
    }

    /// Reserves one answer that will send `bytes` of replies; `false`, counting it dropped, when it does not fit.
    /// - Parameter broadcast: the answer is to a broadcast, which may take only its share of the budget.
    public func reserve(bytes: Int, broadcast: Bool) -> Bool {
        let (answerLimit, byteLimit) =
            broadcast
            ? (maxAnswers * Self.broadcastShare / 4, maxBytes * Self.broadcastShare / 4) : (maxAnswers, maxBytes)
        let fits = usage.withLock { usage in
            guard usage.answers < answerLimit, usage.bytes + bytes <= byteLimit else { return false }
            usage.answers += 1
            usage.bytes += bytes
            usage.peakAnswers = max(usage.peakAnswers, usage.answers)
            usage.peakBytes = max(usage.peakBytes, usage.bytes)
            return true
        }
        if !fits { dropped.add(1, ordering: .relaxed) }
        return fits
    }

    /// Gives back an answer reserved with `bytes`, once it is done.
    public func release(bytes: Int) {
        usage.withLock { usage in
            usage.answers -= 1
            usage.bytes -= bytes
        }
    }

    /// Takes a place for a broadcast, held from before its bulbs are looked up until every bulb has answered;
    /// `false`, counting it dropped, when ``maxBroadcasts`` are in progress.
    public func beginBroadcast() -> Bool {
        let fits = usage.withLock { usage in
            guard usage.broadcasts < maxBroadcasts else { return false }
            usage.broadcasts += 1
            return true
        }
        if !fits { droppedBroadcasts.add(1, ordering: .relaxed) }
        return fits
    }

    /// Gives back a broadcast's place once every bulb has answered it.
    public func endBroadcast() {
        usage.withLock { $0.broadcasts -= 1 }
    }

    /// The answers and reply bytes in progress now.
    public var inProgress: (answers: Int, bytes: Int) { usage.withLock { ($0.answers, $0.bytes) } }

    /// The most answers, and the most reply bytes, in progress at once so far.
    public var peak: (answers: Int, bytes: Int) { usage.withLock { ($0.peakAnswers, $0.peakBytes) } }
}
