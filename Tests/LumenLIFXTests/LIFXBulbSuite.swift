import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A suite that speaks to the bulbs of one home (its fixture's `id` is `flat`) over a LIFX front, mostly to one
/// matrix bulb: the Candle's and the Ceiling's suites share how they ask, read pixels and restart.
protocol LIFXBulbSuite {
    /// The home the suite starts from.
    static var fixture: String { get }
    /// The bulb asked when no other is named.
    static var bulb: LightID { get }
    /// How many pixels make a row of that bulb's tile: what `Get64` asks for unless told otherwise.
    static var rowWidth: UInt8 { get }
    var home: Home { get }
    var front: LIFXFront { get }
    /// The suite over `home` and `front` (a suite's memberwise initialiser).
    init(home: Home, front: LIFXFront)
}

extension LIFXBulbSuite {
    /// The suite over ``fixture``, on the virtual clock.
    init() throws { try self.init(json: Self.fixture) }

    /// The suite over the home `json` describes, on the virtual clock.
    init(json: String) throws {
        self.init(home: Home(fixture: try Fixture(json: Array(json.utf8)), clock: .virtual))
    }

    /// The suite over `home`, with a LIFX front of its own.
    init(home: Home) {
        self.init(home: home, front: LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700))
    }

    /// The two colours the suites paint with, the matrix suite's.
    static var red: HSBK { LIFXMatrixTests.red }
    static var blue: HSBK { LIFXMatrixTests.blue }

    /// The replies of `light`'s bulb to a message of `type`, moving the clock until they come.
    func replies(
        _ type: UInt16, _ payload: [UInt8] = [], to light: LightID = Self.bulb, ack: Bool = false
    ) async throws -> [LIFXPacket] {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsReply: true,
            wantsAcknowledgement: ack, sequence: 1, type: type, payload: payload)
        return try await front.replies(to: packet, movingClockOf: home)
    }

    /// The 64 colours of the `State64` that answers a `Get64` of `tile` from (`x`, `y`), `width` wide, of `light`:
    /// one reply, as the matrices of one tile give.
    func state64(
        of tile: UInt8 = 0, length: UInt8 = 1, x: UInt8 = 0, y: UInt8 = 0, width: UInt8 = Self.rowWidth,
        light: LightID = Self.bulb
    ) async throws -> [HSBK] {
        let states = try await replies(707, [tile, length, 0, x, y, width], to: light)
        try #require(states.map(\.type) == [711], "one State64")
        var reader = LIFXReader(states[0].payload)
        #expect(reader.uint8() == tile)
        reader.skip(4)
        return (0..<64).map { _ in HSBK(&reader) }
    }

    /// The colour `light` shows, as its bulb reports it.
    func light(_ id: LightID = Self.bulb) async throws -> HSBK {
        HSBK(try await home.light(id).state, kind: .color)
    }

    /// The suite over `home` started again from its saved state, the LIFX front's record first changed by `edit`.
    static func restarted(from home: Home, editing edit: (inout JSONObject) -> Void = { _ in }) async throws -> Self {
        var saved = try Fixture(json: Array(await home.snapshot().jsonValue.serialized().utf8))
        var record = try #require(saved.fronts["lifx"]?.objectValue)
        edit(&record)
        saved.fronts["lifx"] = .object(record)
        return Self(home: Home(fixture: saved, clock: .virtual))
    }
}
