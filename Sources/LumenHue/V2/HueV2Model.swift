import LumenModel
import LumenProtocol
import LumenSimulation

/// The bridge as the Hue API v2 shows it, made from one moment's ``HueBridge/Snapshot``: every resource in the
/// order a bridge lists them, and the lookups a change needs from a resource's ID back to what Lumen knows.
struct HueV2Model: Sendable {
    /// Every resource, each an object with its `id` and `type`.
    private(set) var resources: [JSONValue] = []
    /// The lights behind the bridge by their light resource's ID.
    private(set) var lights: [String: HueLight] = [:]
    /// The v1 group number each grouped light stands for (0 for the whole home) by its ID.
    private(set) var groupedLights: [String: Int] = [:]
    /// The v1 group number of each room and zone by its ID.
    private(set) var groups: [String: Int] = [:]
    /// The scenes by their scene resource's ID.
    private(set) var scenes: [String: HueBridgeState.Scene] = [:]
    /// The light resource's ID of each light's device, by the device's ID.
    private(set) var deviceLights: [String: String] = [:]
    /// The bridge's own device.
    private(set) var bridgeDevice = ""

    /// The resource types Lumen shows, in the order the whole list gives them.
    static let types = [
        "bridge", "bridge_home", "device", "light", "room", "zone", "grouped_light", "scene", "zigbee_connectivity",
        "device_software_update", "geofence_client",
    ]

    /// The resource types the API names that Lumen keeps none of (sensors, switches, behaviours, entertainment):
    /// listed empty, as a bridge with none of them lists them.
    static let emptyTypes: Set<String> = [
        "motion", "camera_motion", "temperature", "light_level", "button", "relative_rotary", "device_power",
        "contact", "tamper", "grouped_motion", "grouped_light_level", "convenience_area_motion",
        "security_area_motion", "speaker", "behavior_script", "behavior_instance", "geolocation",
        "entertainment_configuration", "entertainment", "homekit", "matter", "matter_fabric", "smart_scene",
        "zgp_connectivity", "zigbee_device_discovery", "service_group", "bell_button", "motion_area_candidate",
        "motion_area_configuration", "clip", "wifi_connectivity",
    ]

    /// The API v2 archetype of a room's or zone's v1 class: the same words, in lower case joined by `_`
    /// (`Living room` is `living_room`); `Free`, which v2 lacks, is `other`.
    static func archetype(ofClass roomClass: String) -> String {
        roomClass == "Free" ? "other" : roomClass.lowercased().split(separator: " ").joined(separator: "_")
    }

    /// The v1 class of an API v2 archetype, `nil` for one no class stands for.
    static func roomClass(ofArchetype archetype: String) -> String? {
        HueBridge.roomClasses.first { $0 != "Free" && Self.archetype(ofClass: $0) == archetype }
    }

    /// The model of `snapshot` on the bridge called `bridgeID` (upper case, as `/api/config` gives it).
    init(_ snapshot: HueBridge.Snapshot, bridgeID: String) {
        let kept = snapshot.state.resourceIDs
        // Every thing shown has its UUID kept by now (``HueBridgeState/giveResourceIDs(lightsAndRooms:)``); were
        // one missing, it would be shown under one made from the bridge's ID rather than not at all.
        func root(_ key: String) -> String { kept[key] ?? HueResourceID.make(bridge: bridgeID, "thing", key) }
        func link(_ rid: String, _ rtype: String) -> JSONValue { ["rid": .string(rid), "rtype": .string(rtype)] }

        let bridge = root(HueBridgeState.bridgeResourceKey)
        let bridgeDevice = HueResourceID.service("device", of: bridge)
        self.bridgeDevice = bridgeDevice
        let home = HueResourceID.service("bridge_home", of: bridge)
        let homeGroup = HueResourceID.service("grouped_light", of: bridge)
        let bridgeZigbee = HueResourceID.service("zigbee_connectivity", of: bridge)
        add([
            "id": .string(bridge), "id_v1": "", "type": "bridge", "owner": link(bridgeDevice, "device"),
            "bridge_id": .string(bridgeID.lowercased()),
            "time_zone": [
                "time_zone": .string(HueBridge.zoneName(utcOffsetSeconds: snapshot.wallTime.utcOffsetSeconds))
            ],
        ])
        var devices: [JSONValue] = [
            .object([
                "id": .string(bridgeDevice), "id_v1": "", "type": "device",
                "product_data": [
                    "model_id": "BSB002", "manufacturer_name": "Signify Netherlands B.V.",
                    "product_name": "Hue Bridge", "product_archetype": "bridge_v2", "certified": true,
                    "software_version": "1.56.1956106000",
                ],
                "metadata": ["name": .string(snapshot.name), "archetype": "bridge_v2"],
                "identify": [:],
                "services": [link(bridge, "bridge"), link(bridgeZigbee, "zigbee_connectivity")],
            ])
        ]
        var lightResources: [JSONValue] = []
        // The bridge's own Zigbee radio, as a bridge lists it beside its lights'.
        var connectivity: [JSONValue] = [
            .object([
                "id": .string(bridgeZigbee), "id_v1": "", "type": "zigbee_connectivity",
                "owner": link(bridgeDevice, "device"), "status": "connected",
                "mac_address": .string(HueValues.zigbeeAddress(hashing: bridgeID.lowercased())),
            ])
        ]
        var updates: [JSONValue] = []
        var deviceOfLight: [Int: String] = [:]
        var lightIDs: [Int: String] = [:]
        for hueLight in snapshot.lights {
            let light = root(HueBridgeState.resourceKey(light: hueLight.light.id))
            let device = HueResourceID.service("device", of: light)
            let zigbee = HueResourceID.service("zigbee_connectivity", of: light)
            let update = HueResourceID.service("device_software_update", of: light)
            deviceOfLight[hueLight.number] = device
            deviceLights[device] = light
            lightIDs[hueLight.number] = light
            lights[light] = hueLight
            let kind = hueLight.light.model.kind
            let archetype = Self.archetype(of: kind)
            devices.append(
                .object([
                    "id": .string(device), "id_v1": .string("/lights/\(hueLight.number)"), "type": "device",
                    "product_data": [
                        "model_id": .string(HueValues.modelID(of: hueLight.light.model)),
                        "manufacturer_name": .string(HueValues.manufacturer(of: hueLight.light.model)),
                        "product_name": .string(hueLight.light.model.product),
                        "product_archetype": .string(archetype),
                        "certified": .bool(hueLight.light.model.isSignify),
                        "software_version": "1.104.2",
                    ],
                    "metadata": ["name": .string(hueLight.light.name), "archetype": .string(archetype)],
                    "identify": [:],
                    "services": [
                        link(light, "light"), link(zigbee, "zigbee_connectivity"),
                        link(update, "device_software_update"),
                    ],
                ]))
            lightResources.append(Self.light(hueLight, id: light, owner: link(device, "device")))
            connectivity.append(
                .object([
                    "id": .string(zigbee), "id_v1": .string("/lights/\(hueLight.number)"),
                    "type": "zigbee_connectivity", "owner": link(device, "device"),
                    "status": hueLight.light.isReachable ? "connected" : "connectivity_issue",
                    "mac_address": .string(String(HueValues.uniqueID(of: hueLight.light.id).prefix(23))),
                ]))
            updates.append(
                .object([
                    "id": .string(update), "type": "device_software_update", "owner": link(device, "device"),
                    "state": "no_update", "problems": [],
                ]))
        }
        var rooms: [JSONValue] = []
        var zones: [JSONValue] = []
        var grouped: [JSONValue] = [
            Self.groupedLight(id: homeGroup, number: 0, owner: link(home, "bridge_home"), lights: snapshot.lights)
        ]
        groupedLights[homeGroup] = 0
        // A room or a zone (`type`), numbered as v1's group, and the grouped light of the lights numbered
        // `members`.
        func group(
            _ id: String, type: String, number: Int, name: String, roomClass: String, children: [JSONValue],
            members: [Int]
        ) -> JSONValue {
            let groupID = HueResourceID.service("grouped_light", of: id)
            groups[id] = number
            groupedLights[groupID] = number
            grouped.append(
                Self.groupedLight(
                    id: groupID, number: number, owner: link(id, type),
                    lights: snapshot.lights.filter { members.contains($0.number) }))
            return .object([
                "id": .string(id), "id_v1": .string("/groups/\(number)"), "type": .string(type),
                "metadata": ["name": .string(name), "archetype": .string(Self.archetype(ofClass: roomClass))],
                "children": .array(children),
                "services": [link(groupID, "grouped_light")],
            ])
        }
        for room in snapshot.rooms {
            let children = room.lights.compactMap { deviceOfLight[$0].map { link($0, "device") } }
            rooms.append(
                group(
                    root(HueBridgeState.resourceKey(room: room.id)), type: "room", number: room.number,
                    name: room.name, roomClass: room.roomClass, children: children, members: room.lights))
        }
        for zone in snapshot.state.groups where zone.kind == .zone {
            let members = snapshot.groupLights(zone.number) ?? []
            let children = members.compactMap { lightIDs[$0].map { link($0, "light") } }
            zones.append(
                group(
                    root(HueBridgeState.resourceKey(group: zone.number)), type: "zone", number: zone.number,
                    name: zone.name, roomClass: zone.roomClass, children: children, members: members))
        }
        // A bridge's home holds its rooms and every device in none of them, its own device among them: Lumen's
        // lights are each in a room.
        let homeChildren =
            snapshot.rooms.map { link(root(HueBridgeState.resourceKey(room: $0.id)), "room") }
            + [link(bridgeDevice, "device")]
        add([
            "id": .string(home), "id_v1": "/groups/0", "type": "bridge_home",
            "children": .array(homeChildren),
            "services": [link(homeGroup, "grouped_light")],
        ])
        resources += devices + lightResources + rooms + zones + grouped
        let groupOwner = Dictionary(uniqueKeysWithValues: groups.map { ($0.value, $0.key) })
        for scene in snapshot.state.scenes {
            // A v2 scene belongs to a room or a zone: scenes of lights alone or of an app's light group are v1's.
            guard let number = scene.group, let owner = groupOwner[number] else { continue }
            let sceneID = root(HueBridgeState.resourceKey(scene: scene.id))
            scenes[sceneID] = scene
            let isRoom = snapshot.rooms.contains { $0.number == number }
            resources.append(
                .object([
                    "id": .string(sceneID), "id_v1": .string("/scenes/\(scene.id)"), "type": "scene",
                    "metadata": ["name": .string(scene.name)],
                    "group": link(owner, isRoom ? "room" : "zone"),
                    "actions": .array(
                        scene.lights.compactMap { number in
                            guard let light = lightIDs[number], let state = scene.lightStates[number] else {
                                return nil
                            }
                            return ["target": link(light, "light"), "action": .object(Self.action(of: state))]
                        }),
                    "palette": ["color": [], "dimming": [], "color_temperature": [], "effects": []],
                    "speed": .double(scene.speed), "auto_dynamic": false,
                    "status": Self.status(of: scene.id, in: snapshot),
                ]))
        }
        resources += connectivity + updates
        for client in snapshot.state.geofenceClients {
            resources.append(
                ["id": .string(client.id), "type": "geofence_client", "name": .string(client.name)])
        }
    }

    private mutating func add(_ object: JSONObject) { resources.append(.object(object)) }

    /// A scene's `status`: `active` as its last recall left it (`static`, `dynamic_palette`) until a light of it
    /// changes, `inactive` then and before, and `last_recall` once it has been recalled.
    static func status(of scene: String, in snapshot: HueBridge.Snapshot) -> JSONValue {
        var status: JSONObject = ["active": "inactive"]
        if snapshot.activeScenes.contains(scene) {
            status["active"] = snapshot.dynamicScenes.contains(scene) ? "dynamic_palette" : "static"
        }
        if let time = snapshot.lastRecalls[scene] { status["last_recall"] = .string(time) }
        return .object(status)
    }

    /// The resource of `type` with the ID `id`, if there is one.
    func resource(_ type: String, _ id: String) -> JSONValue? {
        resources.first { $0["type"]?.stringValue == type && $0["id"]?.stringValue == id }
    }

    /// The Hue archetype of a kind of light: the shape a bridge gives the commonest Signify model of each.
    static func archetype(of kind: LightKind) -> String {
        switch kind {
        case .onoff: "plug"
        case .color: "sultan_bulb"
        case .dimmable, .ambiance: "classic_bulb"
        }
    }

    /// Whether a light of `kind` has timed effects (`timed_effects`: `sunrise`, `sunset`): those that take a
    /// colour temperature, ambiance and colour lights, as a bridge lists them for the Hue lights of current
    /// firmware that do; a sunrise rises through warm whites, which a dimmable white or a plug cannot show.
    static func hasTimedEffects(_ kind: LightKind) -> Bool { kind.supports(.colorTemperature) }

    /// A light resource: what the light has, in the v2 features, and nothing it lacks.
    static func light(_ hueLight: HueLight, id: String, owner: JSONValue) -> JSONValue {
        let light = hueLight.light
        let kind = light.model.kind
        // A Hue smart plug, Signify's on/off light, as recorded bridges list one: `functional`, no alert action.
        let isHuePlug = kind == .onoff && light.model.isSignify
        let function: JSONValue = isHuePlug ? "functional" : "mixed"
        var object: JSONObject = [
            "id": .string(id), "id_v1": .string("/lights/\(hueLight.number)"), "type": "light", "owner": owner,
            "metadata": ["name": .string(light.name), "archetype": .string(archetype(of: kind)), "function": function],
            "product_data": ["function": function], "identify": [:], "service_id": 0,
            "on": ["on": .bool(light.state.isOn)], "mode": "normal",
        ]
        // A colour light plays a scene's palette (`dynamic_palette`) while a scene recalled so holds it, at the
        // scene's speed, as a bridge shows it; otherwise the speed is reported as given, valid while an effect
        // plays.
        let palette = kind.supports(.color) ? hueLight.paletteSpeed : nil
        object["dynamics"] = [
            "status": palette == nil ? "none" : "dynamic_palette",
            "status_values": kind.supports(.color) ? ["none", "dynamic_palette"] : ["none"],
            "speed": .double(palette ?? hueLight.speed ?? 0),
            "speed_valid": .bool(palette != nil || hueLight.effect.colorLoop),
        ]
        var signals: [JSONValue] = ["no_signal", "on_off"]
        // Every light takes the alert (v1 takes it from each), and lists it as a bridge does: another maker's
        // on/off light too, a Hue smart plug with no action.
        object["alert"] = ["action_values": isHuePlug ? [] : ["breathe"]]
        if kind.supports(.brightness) {
            object["dimming"] = ["brightness": .double(light.state.brightness), "min_dim_level": 1]
            object["dimming_delta"] = [:]
        }
        if kind.supports(.colorTemperature) {
            let range = hueLight.miredRange
            // A colour light showing a colour has no colour temperature to report, as on a bridge.
            let valid = !kind.supports(.color) || light.state.showsColorTemperature
            object["color_temperature"] = [
                "mirek": valid ? .int(light.state.colorTemperature) : .null, "mirek_valid": .bool(valid),
                "mirek_schema": ["mirek_minimum": .int(range.lowerBound), "mirek_maximum": .int(range.upperBound)],
            ]
            object["color_temperature_delta"] = [:]
        }
        if kind.supports(.color) {
            let (red, green, blue) = CIEColor.gamut
            object["color"] = [
                "xy": light.state.color.jsonValue, "gamut_type": "C",
                "gamut": ["red": red.jsonValue, "green": green.jsonValue, "blue": blue.jsonValue],
            ]
            // Lumen's colour loop is the effect that walks the colours: `prism` in v2's words.
            let effect: JSONValue = hueLight.effect.colorLoop ? "prism" : "no_effect"
            object["effects"] = [
                "status": effect, "status_values": ["no_effect", "prism"], "effect_values": ["no_effect", "prism"],
            ]
            signals.append("on_off_color")
        }
        if hasTimedEffects(kind) {
            let values: JSONValue = ["no_effect", "sunrise", "sunset"]
            var timed: JSONObject = [
                "status": .string(hueLight.timedEffect?.kind.rawValue ?? "no_effect"), "status_values": values,
                "effect_values": values,
            ]
            // The duration it was given, while it runs, as aiohue reads it.
            if let running = hueLight.timedEffect { timed["duration"] = .int(Int(running.durationMs)) }
            object["timed_effects"] = .object(timed)
        }
        object["signaling"] = ["signal_values": .array(signals)]
        return .object(object)
    }

    /// A grouped light: on when any of `lights` is, at the mean brightness of those that are on (0 while none is),
    /// as the API reference has it: "average brightness of group containing turned-on lights only".
    static func groupedLight(id: String, number: Int, owner: JSONValue, lights: [HueLight]) -> JSONValue {
        let dimmable = lights.filter { $0.light.model.kind.supports(.brightness) }
        var object: JSONObject = [
            "id": .string(id), "id_v1": .string("/groups/\(number)"), "type": "grouped_light", "owner": owner,
            "on": ["on": .bool(lights.contains { $0.light.state.isOn })],
            "alert": ["action_values": ["breathe"]], "signaling": ["signal_values": ["no_signal", "on_off"]],
            // Empty, as a bridge lists it: a group takes a transition (`duration`) and has no speed to report.
            "dynamics": [:],
        ]
        if !dimmable.isEmpty {
            let lit = dimmable.filter(\.light.state.isOn).map(\.light.state.brightness)
            let mean = lit.isEmpty ? 0 : lit.reduce(0, +) / Double(lit.count)
            object["dimming"] = ["brightness": .double((mean * 10).rounded() / 10)]
            object["dimming_delta"] = [:]
        }
        if lights.contains(where: { $0.light.model.kind.supports(.colorTemperature) }) {
            object["color_temperature"] = [:]
            object["color_temperature_delta"] = [:]
        }
        if lights.contains(where: { $0.light.model.kind.supports(.color) }) { object["color"] = [:] }
        return .object(object)
    }

    /// A scene's v1 light state as a v2 action.
    static func action(of state: JSONObject) -> JSONObject {
        var action: JSONObject = [:]
        if let on = state["on"]?.boolValue { action["on"] = ["on": .bool(on)] }
        if let bri = state["bri"]?.intValue {
            action["dimming"] = ["brightness": .double(HueValues.brightness(bri: bri))]
        }
        if let (x, y) = state["xy"].flatMap(HueValues.xy) {
            action["color"] = ["xy": CIEColor(x: x, y: y).jsonValue]
        } else if state["hue"] != nil || state["sat"] != nil {
            let color = HueValues.color(hue: state["hue"]?.intValue ?? 0, sat: state["sat"]?.intValue ?? 254)
            action["color"] = ["xy": color.jsonValue]
        }
        if let ct = state["ct"]?.intValue { action["color_temperature"] = ["mirek": .int(ct)] }
        if let tenths = state["transitiontime"]?.intValue { action["dynamics"] = ["duration": .int(tenths * 100)] }
        return action
    }
}
