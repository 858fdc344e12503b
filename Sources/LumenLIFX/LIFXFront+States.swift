import LumenModel
import LumenSimulation

extension LIFXFront {
    /// The state messages that answer `request`: several for a strip's zones or a matrix's tiles, none for a reboot,
    /// `Set64` or `SetUserPosition`, else one. Read in a turn of `home`, so that what they tell is one moment's: a
    /// query's in the turn that asked the bulb, a change's in one turn once the light took it.
    ///
    /// The light is reported as the bulb reports it (``reported(_:of:in:)``): during a power fade, its colour as
    /// the fade lands and its power level part of the way.
    func states(answering request: LIFXRequest, of bulb: LIFXLight, after state: LightState, in home: isolated Home)
        -> [LIFXReply]
    {
        let reported = reported(state, of: bulb, in: home)
        switch request {
        case .getColorZones, .setColorZones, .getExtendedColorZones, .setExtendedColorZones:
            return zoneStates(answering: request, of: bulb, after: reported.state, in: home)
        case .get64(let rect):
            return pixelStates(rect, of: bulb, after: reported.state, in: home)
        default:
            return self.state(answering: request, of: bulb, after: reported.state, power: reported.power, in: home)
                .map { [$0] } ?? []
        }
    }

    /// The state message that answers `request`, read in a turn of `home`: the bulb's `state` and `power` level,
    /// what the bulb is, what its records keep and the home's clock; `nil` for one that has none (a reboot,
    /// `Set64`, `SetUserPosition`).
    func state(
        answering request: LIFXRequest, of bulb: LIFXLight, after state: LightState, power: UInt16,
        in home: isolated Home
    ) -> LIFXReply? {
        let firmware = Self.firmware
        switch request {
        case .getService: return .stateService(port: port)
        case .getHostInfo: return .stateHostInfo(signal: Self.wifiSignal, sent: 0, received: 0)
        case .getHostFirmware:
            return .stateHostFirmware(build: firmware.build, major: firmware.major, minor: firmware.minor)
        case .getWifiInfo: return .stateWifiInfo(signal: Self.wifiSignal)
        case .getWifiFirmware:
            return .stateWifiFirmware(build: firmware.build, major: firmware.major, minor: firmware.minor)
        case .getPower, .setPower: return .statePower(level: power)
        case .getLabel, .setLabel: return .stateLabel(bulb.light.name)
        case .getVersion: return .stateVersion(vendor: 1, product: bulb.light.model.lifxProductID)
        case .getLocation, .setLocation:
            if let kept = records.locations.withLock({ $0[bulb.light.id] }) {
                return .stateLocation(id: kept.id, label: kept.label, updatedAt: kept.updatedAt)
            }
            return .stateLocation(
                id: LIFXProduct.groupID(home.fixtureID), label: home.name, updatedAt: records.startedAtNanoseconds)
        case .getGroup, .setGroup:
            if let kept = records.groups.withLock({ $0[bulb.light.id] }) {
                return .stateGroup(id: kept.id, label: kept.label, updatedAt: kept.updatedAt)
            }
            return .stateGroup(
                id: LIFXProduct.groupID(home.fixtureID + "/" + bulb.room.id.rawValue), label: bulb.room.name,
                updatedAt: records.startedAtNanoseconds)
        case .echo(let bytes): return .echo(bytes)
        case .getColor, .setColor, .setWaveform, .setWaveformOptional:
            return .lightState(shownColor(of: bulb, from: state, in: home), power: power, label: bulb.light.name)
        case .getLightPower, .setLightPower: return .stateLightPower(level: power)
        case .getInfrared, .setInfrared:
            return .stateInfrared(records.infraredLevels.withLock { $0[bulb.light.id] } ?? 0)
        case .getDeviceChain: return .stateDeviceChain(chain(of: bulb))
        case .unhandled(let type): return .stateUnhandled(type: type)
        case .getInfo:
            let now = home.nowMilliseconds
            let (uptime, downtime) = records.uptime(of: bulb.light.id, atMs: now)
            return .stateInfo(time: records.time(atMs: now), uptime: uptime, downtime: downtime)
        case .setReboot: return nil
        case .getHevCycle, .setHevCycle, .getHevCycleConfiguration, .setHevCycleConfiguration, .getLastHevCycleResult:
            let now = home.nowMilliseconds
            let hev = records.hev(of: bulb.light.id, atMs: now)
            switch request {
            case .getHevCycleConfiguration, .setHevCycleConfiguration:
                return .stateHevCycleConfiguration(indication: hev.indication, durationS: hev.defaultDurationS)
            // BUSY while a cycle runs, as firmware reports it; how the last one ended once none does.
            case .getLastHevCycleResult:
                return .stateLastHevCycleResult(hev.cycle == nil ? hev.lastResult : LIFXDeviceRecords.HEV.busy)
            default:
                let cycle = hev.reported(atMs: now)
                return .stateHevCycle(
                    durationS: cycle.durationS, remainingS: cycle.remainingS, lastPower: cycle.lastPower)
            }
        case .getColorZones, .setColorZones, .getExtendedColorZones, .setExtendedColorZones:
            return zoneStates(answering: request, of: bulb, after: state, in: home).first
        case .getMultiZoneEffect, .setMultiZoneEffect:
            return .stateMultiZoneEffect(records.effect(.multiZone, of: bulb.light.id, atMs: home.nowMilliseconds))
        case .get64(let rect): return pixelStates(rect, of: bulb, after: state, in: home).first
        // Neither has a state message, as firmware sends none.
        case .setUserPosition, .set64, .copyFrameBuffer: return nil
        case .getTileEffect, .setTileEffect:
            return .stateTileEffect(records.effect(.tile, of: bulb.light.id, atMs: home.nowMilliseconds))
        }
    }
}
