import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation

extension HueBridge {
    /// `PUT /api/<user>/groups/<n>/action {"scene": "<id>"}`: the scene's lights in the group (every one of
    /// them, for group 0) take their states together, as one group command; answered once they have. The scene
    /// is active from then on, until a light of it changes.
    /// - Parameters:
    ///   - brightness: the brightness, in per cent, every light the scene leaves on takes in place of its stored
    ///     one (API v2's `recall.dimming`).
    ///   - dynamic: whether API v2 asked for its palette (`dynamic_palette`): the scene reports that mode while it
    ///     stays active, though its empty palette leaves the lights in their stored states.
    func recallScene(
        _ body: JSONObject, group number: String, lights groupLights: [Int]?, brightness: Double? = nil,
        dynamic: Bool = false, from sender: String
    ) async throws -> HTTPResponse {
        let address = "/groups/\(number)/action"
        guard let id = body["scene"]?.stringValue else {
            throw HueError.invalidValue(body["scene"] ?? .null, of: "scene", at: address)
        }
        var transitionMs: Double?
        for (key, value) in body.members where key != "scene" {
            guard key == "transitiontime" else { throw HueError.parameterNotAvailable(key, at: address) }
            transitionMs = Double(try HueValues.transitionTime(value, at: address)) * 100
        }
        let snapshot = await snapshot()
        guard let scene = snapshot.state.scenes.first(where: { $0.id == id }) else {
            throw HueError.invalidValue(.string(id), of: "scene", at: address)
        }
        var changes: [(light: LightID, change: LightChange)] = []
        var commands: [(light: LightID, command: HueCommand)] = []
        var given: Double?
        for light in scene.lights where groupLights?.contains(light) ?? true {
            guard let hueLight = snapshot.lights.first(where: { $0.number == light }),
                let state = scene.lightStates[light]
            else { continue }
            let command = try HueCommand(
                state, kind: hueLight.light.model.kind, at: "/scenes/\(id)/lightstates/\(light)")
            var change = command.change(for: hueLight)
            // A light the scene switches off takes nothing else: its level and colour are kept for the next on.
            if change.isOn == false {
                change = LightChange(isOn: false)
            } else if let brightness, hueLight.light.model.kind.supports(.brightness) {
                change.brightness = brightness
            }
            if state["transitiontime"] != nil { given = max(given ?? 0, command.transitionMs) }
            changes.append((hueLight.light.id, change))
            commands.append((hueLight.light.id, command))
        }
        let successes = Self.successes(for: body, at: address)
        if changes.contains(where: { !$0.change.properties.isEmpty }) {
            do {
                try await scopeContext.performEach(
                    changes, transitionMs: transitionMs ?? given ?? 400, network: .hueBridge, from: sender)
            } catch {
                throw HueCommand(address: address, firstParameter: "scene").hueError(for: error)
            }
        }
        // A scene's `effect` is reported as a command's is.
        for (light, command) in commands { await applyEffects(of: command, to: [light]) }
        await visit { home, memory in
            let time = String(home.wallTime.utcText.prefix(19)) + "Z"
            memory.recalled(id, lights: memory.lights(in: home), dynamic: dynamic, at: time)
        }
        // The scene's status changed even where no light moved (they were as it has them): news to the streams.
        homeChanged()
        return .json(.array(successes))
    }
}
