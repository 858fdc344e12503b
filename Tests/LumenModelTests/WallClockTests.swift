import LumenModel
import LumenProtocol
import Testing

/// The simulated wall clock: what a start time may be, and how its moments read.
@Suite("Wall clock")
struct WallClockTests {
    @Test func aStartReadsBackAsGivenAndMovesWithTheSimulation() throws {
        let clock = try WallClock(parsing: "2026-12-04T23:00:00+01:00")
        #expect(clock.utcOffsetSeconds == 3_600)
        #expect(clock.time(atMicros: 0).iso8601 == "2026-12-04T23:00:00.000+01:00")
        let later = clock.time(atMicros: 90_250_000)
        #expect(later.iso8601 == "2026-12-04T23:01:30.250+01:00")
        #expect(later.utcText == "2026-12-04T22:01:30" && later.localText == "2026-12-04T23:01:30")
        #expect(later.localTimeOfDay == "23:01:30.250")
        // Past midnight, local time turns the day over an hour before UTC does.
        let midnight = clock.time(atMicros: 3_600_000_000)
        #expect(midnight.localText == "2026-12-05T00:00:00" && midnight.utcText == "2026-12-04T23:00:00")
    }

    @Test func utcFractionsAndNegativeOffsetsAreRead() throws {
        let utc = try WallClock(parsing: "2026-01-01T00:00:00Z")
        #expect(utc == .virtualDefault)
        #expect(utc.time(atMicros: 0).iso8601 == "2026-01-01T00:00:00.000Z")
        let fraction = try WallClock(parsing: "2024-02-29t12:30:15.5-05:30")
        #expect(throws: Never.self) { try WallClock(parsing: "2500-12-31T23:59:59Z") }
        #expect(fraction.utcOffsetSeconds == -(5 * 3_600 + 30 * 60))
        #expect(fraction.time(atMicros: 0).iso8601 == "2024-02-29T12:30:15.500-05:30")
        #expect(fraction.time(atMicros: 0).utcText == "2024-02-29T18:00:15")
        #expect(WallTime(microsecondsSinceEpoch: 0).utcText == "1970-01-01T00:00:00")
        #expect(WallTime(microsecondsSinceEpoch: 1_796_000_000_000_000).utcText == "2026-11-30T00:53:20")
        #expect(WallTime(microsecondsSinceEpoch: -1).iso8601 == "1969-12-31T23:59:59.999Z")
    }

    @Test(arguments: [
        "2026-12-04", "2026-12-04T23:00:00", "2026-13-04T23:00:00Z", "2025-02-29T00:00:00Z",
        "2026-12-04T24:00:00Z", "2026-12-04T23:00:00+19:00", "2026-12-04T23:00:00.Z", "2026-12-04 23:00:00Z",
        "2026-12-04T23:00:00+0100", "tomorrow", "1969-12-31T23:59:59Z", "2600-01-01T00:00:00Z",
    ])
    func anythingElseIsRefusedWithTheFormItTakes(_ text: String) {
        #expect {
            try WallClock(parsing: text)
        } throws: { error in
            guard let error = error as? LumenError else { return false }
            return error.code == .invalidParams && error.message.contains("2026-12-04T23:00:00+01:00")
                && error.message.contains(text)
        }
    }

    @Test func aFixtureKeepsItsStart() throws {
        var fixture = Fixture(id: "flat", name: "Flat", rooms: [])
        fixture.start = try WallClock(parsing: "2026-12-04T23:00:00+01:00")
        let read = try Fixture(json: Array(fixture.jsonValue.serialized().utf8))
        #expect(read.start == fixture.start)
        #expect(throws: (any Error).self) {
            try Fixture(json: Array(#"{"schema": 1, "id": "x", "name": "x", "start": "noon", "rooms": []}"#.utf8))
        }
    }
}
