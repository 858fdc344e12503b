import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// Every light of `lights` by number: `GET /api/<user>/lights` with every light behind the bridge.
    func lightsObject(_ lights: [HueLight]) -> JSONValue {
        .object(JSONObject(lights.map { (key: String($0.number), value: Self.json(of: $0)) }))
    }

    /// Starts or stops the colour loop and breathing that `command` gives (`effect`, `alert`) on `lights`; a colour
    /// loop only on those of `lit` when given (a group's lights that are on or that the command turns on), as a
    /// light that is off starts none.
    func applyEffects(of command: HueCommand, to lights: [LightID], loopingOnly lit: [LightID]? = nil) async {
        guard command.effect != nil || command.alert != nil else { return }
        if let lit, command.effect == "colorloop" {
            await scopeContext.setEffect(colorLoop: true, breathing: nil, on: lit)
            var alertAlone = command
            alertAlone.effect = nil
            await applyEffects(of: alertAlone, to: lights)
            return
        }
        let breathing: LightEffect.Breathing?? =
            switch command.alert {
            case "select": .some(.once)
            case "lselect": .some(.long)
            case "none": .some(nil)
            default: nil
            }
        await scopeContext.setEffect(
            colorLoop: command.effect.map { $0 == "colorloop" }, breathing: breathing, on: lights)
    }

    /// The light behind the bridge with the number `number` gives.
    func hueLight(_ number: String) async throws(HueError) -> HueLight {
        try await visit { home, memory throws(HueError) in try memory.light(number, in: home) }
    }

    /// A light as the Hue API v1 shows it (`GET /api/<user>/lights/<n>`).
    static func json(of hueLight: HueLight) -> JSONValue {
        let light = hueLight.light
        let kind = light.model.kind
        var state: JSONObject = ["on": .bool(light.state.isOn)]
        if kind.supports(.brightness) { state["bri"] = .int(HueValues.bri(brightness: light.state.brightness)) }
        // Every light has it, plugs too, as a bridge lists them; reported while the light breathes, as a bridge
        // reports an alert under way.
        state["alert"] =
            switch hueLight.effect.breathing {
            case .once: "select"
            case .long: "lselect"
            case nil: "none"
            }
        if kind.supports(.color) { state["effect"] = hueLight.effect.colorLoop ? "colorloop" : "none" }
        for (key, value) in HueValues.colorFields(of: light.state, kind: kind) { state[key] = value }
        state["mode"] = "homeautomation"
        state["reachable"] = .bool(light.isReachable)
        var control: JSONObject = [:]
        if kind.supports(.brightness) { control["mindimlevel"] = 1_000 }
        if kind.supports(.colorTemperature) {
            let range = hueLight.miredRange
            control["ct"] = .object(["min": .int(range.lowerBound), "max": .int(range.upperBound)])
        }
        if kind.supports(.color) {
            control["colorgamuttype"] = "C"
            let (red, green, blue) = CIEColor.gamut
            control["colorgamut"] = .array([red, green, blue].map { [.double($0.x), .double($0.y)] })
        }
        return .object([
            "state": .object(state),
            "swupdate": .object(["state": "noupdates", "lastinstall": .null]),
            "type": .string(HueValues.type(of: kind)), "name": .string(light.name),
            "modelid": .string(HueValues.modelID(of: light.model)),
            "manufacturername": .string(HueValues.manufacturer(of: light.model)),
            "productname": .string(light.model.product),
            "capabilities": .object([
                "certified": .bool(light.model.isSignify), "control": .object(control),
            ]),
            "config": .object(["archetype": kind == .onoff ? "plug" : "classicbulb", "function": "mixed"]),
            "uniqueid": .string(HueValues.uniqueID(of: light.id)), "swversion": "1.104.2",
        ])
    }

    /// `PUT /api/<user>/lights/<n> {"name"}`: renames the light; any other parameter is answered with error 6.
    func rename(_ number: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let light = try await hueLight(number)
        let address = "/lights/\(number)"
        let body = try bodyObject(request, address: address)
        let answer = Self.answer(to: body, taking: ["name"], at: address)
        guard let sent = body["name"] else { return .json(.array(answer)) }
        // 1 to 32 characters, as a bridge names everything.
        let name = try HueValues.name(sent, at: address)
        try await renameEntity(.light(light.light.id), to: name) { _ in
            HueError.invalidValue(.string(name), of: "name", at: address)
        }
        return .json(.array(answer))
    }

    /// `PUT /api/<user>/lights/<n>/state`: one command to the light, answered once the light (or, for a light
    /// of the Hue family, the bridge) confirms it.
    func setState(_ number: String, _ request: HTTPRequest, from sender: String) async throws -> HTTPResponse {
        let address = "/lights/\(number)/state"
        let command = try await command(toLight: number, from: sender) { kind throws(HueError) in
            HueCommand(taking: try self.bodyObject(request, address: address), kind: kind, at: address)
        }
        return .json(.array(command.results))
    }

    /// Sends light `number` the command `read` makes for its kind, as one command, and waits until the light (or,
    /// for a light of the Hue family, the bridge) confirms it: the light found, its command read and sent in one
    /// turn of the home. A command that changes nothing is not sent, unless it starts a timed effect or takes a
    /// parameter to a light playing one, which any command ends.
    /// - Returns: the command sent.
    /// - Throws: ``HueError`` for an unknown light, a command `read` refuses, or one the light refuses.
    func command(
        toLight number: String, from sender: String,
        read: @escaping @Sendable (LightKind) throws(HueError) -> HueCommand
    ) async throws -> HueCommand {
        let (light, command, receipt) = try await scopeContext.sending(as: sender) {
            try await visit { home, memory throws(HueError) in
                let light = try memory.light(number, in: home)
                let kind = light.light.model.kind
                let command = try read(kind)
                try command.checkEffects(forLightOn: light.light.state.isOn)
                let change = command.change(for: light)
                // A body the light takes nothing of (`{}`, parameters all refused) is no command to it.
                let isCommand = light.timedEffect != nil && command.firstParameter != nil
                guard !change.properties.isEmpty || change.timedEffect != nil || isCommand else {
                    return (light.light.id, command, nil as CommandReceipt?)
                }
                do {
                    return (
                        light.light.id, command,
                        try home.send(
                            change, to: light.light.id, transitionMs: command.transitionMs, throughBridge: true)
                    )
                } catch {
                    throw command.hueError(for: error)
                }
            }
        }
        if let receipt {
            do { _ = try await scopeContext.settle(receipt) } catch { throw command.hueError(for: error) }
        }
        await applyEffects(of: command, to: [light])
        return command
    }

    /// `POST /api/<user>/lights`: starts the bridge's search for new lights.
    func search() async throws -> HTTPResponse {
        guard let room = await home.roomIDs.first else {
            throw HueError.internalError("the home has no room", at: "/lights")
        }
        do {
            _ = try await home.detectLights(in: room)
        } catch {
            throw HueError.internalError(error.message, at: "/lights")
        }
        return .json(.array([.object(["success": .object(["/lights": "Searching for new devices"])])]))
    }

    /// `GET /api/<user>/lights/new`: the lights the last search found, and when it ended (`active` while it
    /// runs).
    func newLights() async -> JSONValue {
        let (search, lights) = await visit { home, memory in (home.latestSearch(), memory.lights(in: home)) }
        var object = JSONObject()
        for hueLight in lights where search.found.contains(hueLight.light.id) {
            object[String(hueLight.number)] = .object(["name": .string(hueLight.light.name)])
        }
        if search.active {
            object["lastscan"] = "active"
        } else if let ended = search.endedMs {
            object["lastscan"] = .string(home.wallClock.time(atMicros: Int64(ended * 1_000)).utcText)
        } else {
            object["lastscan"] = "none"
        }
        return .object(object)
    }
}
