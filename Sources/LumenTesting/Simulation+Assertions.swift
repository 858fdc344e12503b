import LumenClient
import LumenProtocol

/// An assertion on a simulated home that did not hold: what was expected, what the light shows and the last
/// commands it received, in its ``description`` (which Swift Testing shows for an error a test throws).
public struct LumenAssertionFailure: Error, Sendable, CustomStringConvertible {
    /// What failed, in lines a person reads.
    public var description: String
}

extension Simulation {
    /// Waits until the command record holds at least `count` commands (only a light's, a room's or a sender's,
    /// if asked) and returns them, oldest first.
    ///
    /// For code under test that sends on its own (another task, process or front), or a write this client has
    /// under way: once the commands are recorded they are pending on the virtual clock, and ``settle(maxMs:)``
    /// carries them out. The record is polled, as it tells of a command when it settles (`lastCommand`), not
    /// when it arrives, on a connection of its own: on the client's, a look could wait behind its own write.
    /// - Parameters:
    ///   - source: a record's whole `source` (`session 3`) or its kind (`hue`, `lifx`, `session`).
    ///   - within: how long to wait, in real time.
    /// - Throws: ``LumenAssertionFailure`` listing what came when `within` passes first.
    @discardableResult
    public func waitForCommands(
        _ count: Int = 1, light: String? = nil, room: String? = nil, source: String? = nil,
        within: Duration = .seconds(10)
    ) async throws -> [JSONObject] {
        let deadline = ContinuousClock.now + within
        var pause = Duration.milliseconds(1)
        let watcher = try await LumenClient.connect(to: client.path)
        defer { watcher.disconnect() }
        let watching = try await Simulation.open(on: watcher)
        while true {
            let records = try await watching.commands(light: light, room: room).filter {
                Self.source(source, matches: $0["source"]?.stringValue ?? "")
            }
            if records.count >= count { return records }
            guard ContinuousClock.now < deadline else {
                var whose = light ?? room.map { "room \($0)" } ?? "the home"
                if let source { whose += " from \(source)" }
                throw LumenAssertionFailure(
                    description: "waited \(within) for \(count) command\(count == 1 ? "" : "s") to \(whose); the "
                        + "record holds \(records.count)\n" + Self.describe(records, whose))
            }
            try await Task.sleep(for: min(pause, deadline - ContinuousClock.now))
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Asserts that `light` received a command asking exactly `change` (every property it asked, as the record
    /// has it), from `source` (a whole `source`, or its kind: `hue`, `lifx`, `session`), with that `outcome`
    /// (`applied`, `refused`, `dropped`, `unreachable`, `pending`) and `transitionMs`, each only when given;
    /// with `count`, exactly that many such commands (0: none).
    /// - Returns: the last such record (`nil` when `count` is 0).
    /// - Throws: ``LumenAssertionFailure`` saying what was expected, what the light shows and the last commands
    ///   it received.
    @discardableResult
    public func assertCommand(
        light: String, _ change: JSONObject? = nil, source: String? = nil, outcome: String? = nil,
        transitionMs: Double? = nil, count: Int? = nil
    ) async throws -> JSONObject? {
        let records = try await commands(light: light)
        let matching = records.filter { record in
            (change.map { Self.equal(.object($0), record["change"] ?? .null) } ?? true)
                && Self.source(source, matches: record["source"]?.stringValue ?? "")
                && (outcome.map { record["outcome"]?.stringValue == $0 } ?? true)
                && (transitionMs.map { Self.equal(.double($0), record["transitionMs"] ?? .null) } ?? true)
        }
        if count.map({ $0 == matching.count }) ?? !matching.isEmpty { return matching.last }
        var wanted = "a command to \(light)"
        if let change { wanted += " asking exactly \(Self.describe(change))" }
        if let transitionMs { wanted += " over \(Self.number(transitionMs)) ms" }
        if let source { wanted += " from \(source)" }
        if let outcome { wanted += ", \(outcome)" }
        let expected =
            count.map { "expected \($0) × \(wanted); \(matching.isEmpty ? "none" : String(matching.count)) came" }
            ?? "expected \(wanted); none came"
        throw LumenAssertionFailure(description: await report(light, expected, records))
    }

    /// Asserts that `light` shows each property in `expected` (`["isOn": true, "brightness": 40]`, as
    /// ``device(_:)`` has its `state`: numbers within a thousandth), whatever its controller reports.
    /// - Returns: its state.
    /// - Throws: ``LumenAssertionFailure`` saying what was expected, what the light shows and the last commands
    ///   it received.
    @discardableResult
    public func assertState(light: String, _ expected: JSONObject) async throws -> JSONObject {
        let device = try await device(light)
        let state = device["state"]?.objectValue ?? [:]
        let wrong = expected.filter { key, value in state[key].map { !Self.equal(value, $0) } ?? true }
        guard !wrong.isEmpty else { return state }
        let differences = wrong.map { key, value in
            "\(key) is \(state[key].map(Self.text) ?? "<absent>"), not \(Self.text(value))"
        }
        let message = "expected \(light) to show \(Self.describe(expected)); " + differences.joined(separator: ", ")
        throw LumenAssertionFailure(
            description: await report(light, message, try await commands(light: light), device: device))
    }

    // MARK: - Saying what failed

    /// What was expected, what `light` shows, and the last commands it received.
    func report(_ light: String, _ expected: String, _ records: [JSONObject], device: JSONObject? = nil)
        async -> String
    {
        let shows: String
        if let device {
            shows = Self.describeDevice(device)
        } else {
            do { shows = Self.describeDevice(try await self.device(light)) } catch { shows = "(cannot say: \(error))" }
        }
        return "\(expected)\n\(light) shows \(shows)\n\(Self.describe(records, light))"
    }

    /// Whether a record's `source` is `wanted`: the whole of it, or its kind, whose tag or number follows a space.
    static func source(_ wanted: String?, matches source: String) -> Bool {
        guard let wanted else { return true }
        return source == wanted || source.hasPrefix(wanted + " ")
    }

    /// Equality as a light's values need it: numbers within a thousandth, objects member by member in any order.
    static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.number, .number):
            guard let left = expected.doubleValue, let right = actual.doubleValue else { return false }
            return abs(left - right) <= 1e-3
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && left.allSatisfy { key, value in right[key].map { equal(value, $0) } ?? false }
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        default:
            return expected == actual
        }
    }

    /// The last few of `records`, one a line, under a heading naming `whose` they are.
    static func describe(_ records: [JSONObject], _ whose: String) -> String {
        guard !records.isEmpty else { return "\(whose) received no command" }
        let shown = records.suffix(5)
        let heading =
            shown.count == records.count
            ? "the \(records.count) command\(records.count == 1 ? "" : "s") \(whose) received:"
            : "the last \(shown.count) of the \(records.count) commands \(whose) received:"
        return ([heading] + shown.map { "  " + describeCommand($0) }).joined(separator: "\n")
    }

    /// `#4 at 1200 ms from hue 1f52a0c3: isOn=true over 400 ms, applied`.
    static func describeCommand(_ record: JSONObject) -> String {
        let number = record["number"].map(text) ?? "?"
        let at = record["atMs"]?.doubleValue.map(Self.number) ?? "?"
        let source = record["source"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "(nobody said)"
        var line = "#\(number) at \(at) ms from \(source): \(describe(record["change"]?.objectValue ?? [:]))"
        if let transition = record["transitionMs"]?.doubleValue, transition != 0 {
            line += " over \(Self.number(transition)) ms"
        }
        if let room = record["room"]?.stringValue { line += " (room \(room))" }
        line += ", \(record["outcome"]?.stringValue ?? "?")"
        if let code = record["code"] { line += " (code \(text(code)))" }
        return line
    }

    /// `isOn=true, brightness=30`: a change or a state as a person reads it.
    static func describe(_ object: JSONObject) -> String {
        object.count == 0 ? "nothing" : object.map { "\($0.key)=\(text($0.value))" }.joined(separator: ", ")
    }

    /// What a light shows, from `device`: its state, and what is fading and whether it is unreachable.
    static func describeDevice(_ device: JSONObject) -> String {
        var text = describe(device["state"]?.objectValue ?? [:])
        let fading = (device["fading"]?.arrayValue ?? []).compactMap(\.stringValue)
        if !fading.isEmpty { text += " (fading: \(fading.joined(separator: ", ")))" }
        if device["reachable"]?.boolValue == false { text += " (unreachable)" }
        return text
    }

    /// A value as JSON writes it, a number without a needless `.0`.
    static func text(_ value: JSONValue) -> String {
        if let number = value.doubleValue { return Self.number(number) }
        return value.serialized()
    }

    /// `30`, `50.3`: a number without a needless `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension JSONObject {
    /// The members for which `isIncluded` holds, in order.
    func filter(_ isIncluded: (String, JSONValue) -> Bool) -> [(key: String, value: JSONValue)] {
        members.filter { isIncluded($0.key, $0.value) }
    }
}
