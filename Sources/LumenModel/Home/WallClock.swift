import LumenProtocol

/// The simulated wall clock: the date and time at which the simulation's clock reads zero, and the offset from
/// UTC its local time is read with. Wall time moves with the simulation's clock, so `advance` moves it too.
///
/// ```swift
/// let clock = try WallClock(parsing: "2026-12-04T23:00:00+01:00")
/// clock.time(atMicros: 90_000_000).iso8601  // "2026-12-04T23:01:30.000+01:00"
/// ```
public struct WallClock: Sendable, Hashable {
    /// Microseconds since 1970-01-01T00:00:00Z when the simulation's clock reads zero.
    public var startMicroseconds: Int64
    /// Seconds east of UTC that local time is read with.
    public var utcOffsetSeconds: Int

    /// What a virtual clock starts at when neither the fixture nor the command line says: a fixed moment, so
    /// that a session replays byte for byte on every day it runs.
    public static let virtualDefault = WallClock(startMicroseconds: 1_767_225_600_000_000, utcOffsetSeconds: 0)

    /// The years a start may fall in.
    static let years = 1970...2500

    /// The widest offset from UTC a zone has (±18:00, as ISO 8601 and Foundation allow).
    static let widestOffsetSeconds = 18 * 3_600

    /// A wall clock starting `startMicroseconds` after the epoch, read with `utcOffsetSeconds`.
    public init(startMicroseconds: Int64, utcOffsetSeconds: Int = 0) {
        self.startMicroseconds = startMicroseconds
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// A wall clock starting at `text`: an ISO 8601 date and time with its offset from UTC,
    /// `2026-12-04T23:00:00+01:00`, `2026-12-04T22:00:00Z`, or with fractions of a second
    /// (`…T22:00:00.250Z`).
    /// - Throws: ``LumenError`` `invalidParams`, saying what is wrong, for anything else.
    public init(parsing text: String) throws(LumenError) {
        let bytes = Array(text.utf8)
        func fail(_ why: String) -> LumenError {
            LumenError(
                .invalidParams,
                "a start time is a date, time and UTC offset such as 2026-12-04T23:00:00+01:00; '\(text)' \(why)")
        }
        // YYYY-MM-DDTHH:MM:SS, then optional .fraction, then Z or ±HH:MM.
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func expect(_ byte: UInt8, at index: Int) -> Bool { index < bytes.count && bytes[index] == byte }
        guard let year = number(0, 4), expect(0x2D, at: 4), let month = number(5, 2), expect(0x2D, at: 7),
            let day = number(8, 2), expect(0x54, at: 10) || expect(0x74, at: 10), let hour = number(11, 2),
            expect(0x3A, at: 13), let minute = number(14, 2), expect(0x3A, at: 16), let second = number(17, 2)
        else { throw fail("is not in that form") }
        // Devices count time in unsigned nanoseconds since 1970 (LIFX's run out in 2554).
        guard Self.years.contains(year) else { throw fail("is not between the years 1970 and 2500") }
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 60
        else { throw fail("names no such day or time") }
        var index = 19
        var micros: Int64 = 0
        if expect(0x2E, at: index) {
            index += 1
            var scale: Int64 = 100_000
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                micros += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { throw fail("has a '.' with no digits after it") }
        }
        let offset: Int
        if expect(0x5A, at: index) || expect(0x7A, at: index), index + 1 == bytes.count {
            offset = 0
        } else if expect(0x2B, at: index) || expect(0x2D, at: index), index + 6 == bytes.count,
            let hours = number(index + 1, 2), expect(0x3A, at: index + 3), let minutes = number(index + 4, 2),
            minutes < 60
        {
            offset = (bytes[index] == 0x2D ? -1 : 1) * (hours * 3_600 + minutes * 60)
            guard abs(offset) <= Self.widestOffsetSeconds else { throw fail("has an offset beyond ±18:00") }
        } else {
            throw fail("does not end in its UTC offset (Z, or ±HH:MM)")
        }
        let days = Self.days(year: year, month: month, day: day)
        let local = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        self.init(startMicroseconds: (local - Int64(offset)) * 1_000_000 + micros, utcOffsetSeconds: offset)
    }

    /// The wall time `micros` of simulation time after the clock read zero.
    public func time(atMicros micros: Int64) -> WallTime {
        WallTime(microsecondsSinceEpoch: startMicroseconds + micros, utcOffsetSeconds: utcOffsetSeconds)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// A moment on the wall clock, and the offset from UTC it is read with locally.
public struct WallTime: Sendable, Hashable {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSinceEpoch: Int64
    /// Seconds east of UTC for local time.
    public var utcOffsetSeconds: Int

    /// A moment `microsecondsSinceEpoch` after the epoch, read locally with `utcOffsetSeconds`.
    public init(microsecondsSinceEpoch: Int64, utcOffsetSeconds: Int = 0) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Whole seconds since the epoch (rounded down).
    public var secondsSinceEpoch: Int64 {
        microsecondsSinceEpoch >= 0 ? microsecondsSinceEpoch / 1_000_000 : (microsecondsSinceEpoch + 1) / 1_000_000 - 1
    }

    /// The local time with milliseconds and its offset: `2026-12-04T23:00:01.250+01:00` (`Z` for UTC).
    public var iso8601: String {
        let local = microsecondsSinceEpoch + Int64(utcOffsetSeconds) * 1_000_000
        let millis = Int((local % 1_000_000 + 1_000_000) % 1_000_000 / 1_000)
        let offset: String
        if utcOffsetSeconds == 0 {
            offset = "Z"
        } else {
            let minutes = abs(utcOffsetSeconds) / 60
            offset = (utcOffsetSeconds < 0 ? "-" : "+") + Self.two(minutes / 60) + ":" + Self.two(minutes % 60)
        }
        return Self.civil(secondsSinceEpoch: Self.floorSeconds(local)) + "." + Self.padded(millis, 3) + offset
    }

    /// UTC, to the second, with no offset: `2026-12-04T22:00:01`, as the Hue API writes `UTC`.
    public var utcText: String { Self.civil(secondsSinceEpoch: secondsSinceEpoch) }

    /// Local time, to the second, with no offset: `2026-12-04T23:00:01`, as the Hue API writes `localtime`.
    public var localText: String {
        Self.civil(secondsSinceEpoch: Self.floorSeconds(microsecondsSinceEpoch + Int64(utcOffsetSeconds) * 1_000_000))
    }

    /// Local time of day: `23:00:01.250`.
    public var localTimeOfDay: String { String(iso8601.dropFirst(11).prefix(12)) }

    static func floorSeconds(_ micros: Int64) -> Int64 {
        micros >= 0 ? micros / 1_000_000 : (micros + 1) / 1_000_000 - 1
    }

    /// `YYYY-MM-DDTHH:MM:SS` for a count of seconds since the epoch (Howard Hinnant's civil-from-days).
    static func civil(secondsSinceEpoch: Int64) -> String {
        let days = secondsSinceEpoch >= 0 ? secondsSinceEpoch / 86_400 : (secondsSinceEpoch + 1) / 86_400 - 1
        let seconds = secondsSinceEpoch - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(padded(Int(year), 4))-\(two(Int(month)))-\(two(Int(day)))T\(two(Int(seconds / 3_600))):"
            + "\(two(Int(seconds / 60 % 60))):\(two(Int(seconds % 60)))"
    }

    static func two(_ value: Int) -> String { padded(value, 2) }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
