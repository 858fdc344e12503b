import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// How a command's refusal by the home reads as the bridge's error, in v1 and v2.
@Suite("Hue errors for the home's refusals")
struct HueCommandErrorTests {
    /// A light removed while a command to it is on its way: the bridge answers as for any light it lacks, not with
    /// an internal error.
    @Test func aLightGoneMidCommandIsAResourceNotAvailable() {
        let command = HueCommand(address: "/lights/3/state", firstParameter: "on")
        let error = command.hueError(for: LumenError(.noSuchEntity, "no light 'kitchen.x0'"))
        #expect(error.type == 3)
        #expect(error.address == "/lights/3/state")
        #expect(HueV2Error(error).status == 404)
    }
}
