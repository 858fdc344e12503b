import Foundation
import LumenModel
import LumenSimulation
import Testing

@testable import LumenLIFX

/// The device messages every LIFX client sends at set-up or on a poll (host and Wi-Fi information and firmware,
/// uptime, location and group, reboot), answered as a bulb does rather than `StateUnhandled`.
extension LIFXFrontTests {
    func query(_ type: UInt16, sequence: UInt8 = 1) async throws -> LIFXPacket {
        let answer = try await replies(
            LIFXPacket(source: 6, target: bulbSerial + [0, 0], sequence: sequence, type: type))
        try #require(answer.count == 1, "type \(type): \(answer.map(\.type))")
        return answer[0]
    }

    @Test func wifiAndHostInformationAndFirmwareAreAnsweredWithAPlausibleSignal() async throws {
        let wifi = try await query(16)
        #expect(wifi.type == 17 && wifi.payload.count == 14)
        var reader = LIFXReader(wifi.payload)
        let signal = Float(bitPattern: reader.uint32())
        // As lifx-async and Home Assistant's RSSI sensor read it: dBm from milliwatts.
        #expect(Int(floor(10 * log10(Double(signal)) + 0.5)) == -55)
        let host = try await query(12, sequence: 2)
        #expect(host.type == 13 && host.payload.count == 14)
        let firmware = try await query(18, sequence: 3)
        #expect(firmware.type == 19 && firmware.payload.count == 20)
        var firmwareReader = LIFXReader(firmware.payload)
        #expect(firmwareReader.uint64() > 1_500_000_000_000_000_000, "a build time after 2017")
        firmwareReader.skip(8)
        #expect(firmwareReader.uint16() == 90 && firmwareReader.uint16() == 3)
    }

    @Test func infoTellsTheTimeAndTheUptimeOnTheSimulationClock() async throws {
        let before = try await query(34)
        #expect(before.type == 35 && before.payload.count == 24)
        var first = LIFXReader(before.payload)
        let (time, uptime, downtime) = (first.uint64(), first.uint64(), first.uint64())
        // Answered at once, on a clock that started with the front.
        let nowNanoseconds = UInt64(await home.nowMilliseconds * 1_000_000)
        #expect(uptime <= nowNanoseconds && downtime == 0)
        #expect(time > 1_700_000_000_000_000_000, "now, as nanoseconds since 1970")
        try await home.advance(byMilliseconds: 60_000)
        var later = LIFXReader(try await query(34, sequence: 2).payload)
        let (laterTime, laterUptime) = (later.uint64(), later.uint64())
        #expect(laterUptime - uptime >= 60_000_000_000, "a minute of simulation time on")
        #expect(laterTime - time == laterUptime - uptime, "the time moves with the simulation clock")
    }

    @Test func aRebootIsAcknowledgedTheBulbGoesDarkAndItsUptimeStartsAgain() async throws {
        let reboot = LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsReply: true, wantsAcknowledgement: true, sequence: 1,
            type: 38)
        #expect(try await replies(reboot).map(\.type) == [45], "acknowledged; a reboot has no state to answer")
        let truth = try await home.groundTruth(of: "den.bulb").truth
        #expect(!truth.isReachable, "dark while it restarts")
        try await home.advance(byMilliseconds: 3_000)
        var info = LIFXReader(try await query(34, sequence: 2).payload)
        // The bulb went dark between taking the message (after its 40 ms latency) and acknowledging it, and was
        // asked its uptime three seconds or more after that: `replies` moves the clock while an answer is on its
        // way, as far as the machine is slow.
        let answeredMs = await home.nowMilliseconds
        _ = info.uint64()
        let uptime = info.uint64()
        let latestUptime = UInt64((answeredMs - 40 - 2_000) * 1_000_000)
        #expect(
            uptime >= 1_000_000_000 && uptime <= latestUptime,
            "up since it came back, a second ago: \(uptime) ns, answered at \(answeredMs) ms")
        #expect(info.uint64() == 2_000_000_000, "down for two seconds")
    }

    @Test func aGroupOrLocationAClientSetsIsKeptWithItsTime() async throws {
        var location = LIFXReader(try await query(48).payload)
        location.skip(16 + 32)
        #expect(location.uint64() > 0, "updated_at is a time, not 0")
        var writer = LIFXWriter()
        let id = [UInt8](repeating: 7, count: 16)
        writer.bytes(id, count: 16)
        writer.text("Upstairs", count: 32)
        writer.uint64(1_750_000_000_000_000_000)
        let set = LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsReply: true, sequence: 2, type: 52, payload: writer.output)
        let answered = try await replies(set)
        #expect(answered.map(\.type) == [53])
        let group = try await query(51, sequence: 3)
        #expect(group.payload == writer.output, "the group as the client gave it")
        var locationSet = writer
        locationSet.output[0] = 9
        let setLocation = LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: 4, type: 49,
            payload: locationSet.output)
        #expect(try await replies(setLocation).map(\.type) == [45])
        #expect(try await query(48, sequence: 5).payload == locationSet.output)
        #expect(try await home.light("den.bulb").room == "den", "Lumen's rooms do not move")
    }
}
