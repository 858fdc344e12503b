import LumenProtocol

/// The kind of network and firmware a light belongs to, which sets everything about it that differs between
/// real families of devices: which fades a command ends, what a group command is, the default rate limits,
/// what a controller can know of a fault, what the light does when power returns, and what a level of 0 means.
///
/// A fixture names it (`family`) or lets it follow from the light's manufacturer and latency preset
/// (``DeviceFamily/inferred(manufacturer:latency:)``). `docs/fixtures.md` lists each rule with its source.
public enum DeviceFamily: String, Sendable, Hashable, CaseIterable {
    /// Hue lights behind a Hue bridge, over Zigbee.
    case hue
    /// LIFX bulbs on the local network, each spoken to over UDP.
    case lifx
    /// Matter lights (over Thread or Wi-Fi), spoken to by a Matter controller.
    case matter
    /// A device without a family's quirks: every outcome reported at once and exactly, nothing limited by
    /// default. What tests of Lumen itself use.
    case generic

    /// The family a light belongs to when no fixture says: LIFX and Hue products by their makers, else the
    /// family its latency preset measured, else generic.
    public static func inferred(manufacturer: String, latency: LatencyModel?) -> DeviceFamily {
        switch manufacturer.lowercased() {
        case "lifx": return .lifx
        case "signify", "philips", "philips hue": return .hue
        default: break
        }
        switch latency?.preset {
        case .hueZigbee: return .hue
        case .lifxThread: return .lifx
        case .instant, nil: return .generic
        }
    }

    // MARK: - Fades

    /// The fades a command to `property` ends where they stand, beside that property's own.
    ///
    /// Matter's and Zigbee's Level Control and Color Control clusters run their transitions independently, and
    /// colour temperature and xy are one cluster's one transition; a LIFX `SetColor` carries hue, saturation,
    /// brightness and kelvin together, so it restarts all of them; a generic device keeps every property apart.
    public func fadesEnded(bySetting property: LightProperty) -> [LightProperty] {
        switch (self, property) {
        case (.lifx, .brightness), (.lifx, .colorTemperature), (.lifx, .color):
            [.brightness, .colorTemperature, .color]
        case (.hue, .colorTemperature), (.hue, .color), (.matter, .colorTemperature), (.matter, .color):
            [.colorTemperature, .color]
        default: [property]
        }
    }

    // MARK: - Groups

    /// Whether a room's group command is one broadcast that every light takes at the same moment (a Zigbee or
    /// Matter group), rather than a message to each light with a latency of its own.
    public var groupCommandIsBroadcast: Bool { self == .hue || self == .matter }

    /// Whether the sender of a group command hears which lights missed it. Only a generic device reports it: a
    /// group broadcast is not acknowledged, and LIFX clients send group changes unacknowledged.
    public var reportsGroupMisses: Bool { self == .generic }

    // MARK: - Limits

    /// The colour temperatures a light of `model` takes, in mireds: a LIFX bulb its product's kelvin range
    /// (``DeviceModel/lifxKelvinRange``, 111–667 mireds at its widest), a Hue White Ambiance light (Signify's
    /// ambiance light of the Hue family) 153–454 mireds (2,203–6,500 K), the others 2,000–6,500 K (153–500 mireds,
    /// the Hue API's range).
    public func colorTemperatureRange(of model: DeviceModel) -> ClosedRange<Int> {
        if self == .hue, model.kind == .ambiance, model.isSignify { return DeviceModel.hueWhiteAmbianceMiredRange }
        guard self == .lifx else { return CIEColor.miredRange }
        // A LIFX light without colour temperature (a Mini White) takes none: a value for it is refused as
        // unsupported, not checked against the one white it reports.
        guard model.kind.supports(.colorTemperature) else { return CIEColor.widestMiredRange }
        // Each end rounded, as a kelvin reads as mireds: 1,500 K is 667 mireds.
        func mireds(_ kelvin: Int) -> Int { Int((1_000_000 / Double(kelvin)).rounded()) }
        let kelvin = model.lifxKelvinRange
        return mireds(kelvin.upperBound)...mireds(kelvin.lowerBound)
    }

    /// The commands a second a light of the family takes when no fixture says: LIFX asks for no more than 20
    /// messages a second to a bulb.
    public var defaultRateLimitPerSecond: Double? { self == .lifx ? 20 : nil }

    /// What a device does beyond its rate limit when no fixture says: LIFX firmware drops the excess, a bridge
    /// answers busy.
    public var defaultOverload: OverloadBehavior { self == .lifx ? .drop : .busy }

    /// Whether its lights stand behind the home's bridge, so that every command to one takes from the bridge's
    /// budget (whichever front sent it).
    public var isBehindBridge: Bool { self == .hue }

    /// Where its lights are reached by default: LIFX bulbs on the LAN, the rest behind the Hue bridge (which
    /// pairs Zigbee lights of other makers too).
    public var defaultNetwork: LightNetwork { self == .lifx ? .lifxLAN : .hueBridge }

    // MARK: - Faults

    /// What the controller hears when a command does not reach the light, or its answer does not come back.
    public enum FaultReport: String, Sendable, Hashable {
        /// Told apart: unreachable (-32010) or lost (-32011), at the timeout.
        case exact
        /// A timeout (-32011) either way, and an acknowledgement may be lost after the light took the command.
        case timeout
        /// The bridge answers as soon as it has sent the command, whether or not the light took it.
        case bridgeAnswers
    }

    /// What the controller hears of a command that fails on the way.
    public var faultReport: FaultReport {
        switch self {
        case .generic: .exact
        case .lifx, .matter: .timeout
        case .hue: .bridgeAnswers
        }
    }

    /// How long a light must have been out of reach before the controller reports it unreachable, in
    /// milliseconds. A light that comes back is reported at once (it announces itself when it rejoins).
    public var unreachableReportDelayMs: Double {
        switch self {
        case .generic: 0
        // The bridge marks a light unreachable once it has failed to reach it for a while.
        case .hue: 10_000
        // A LIFX client polls; Home Assistant's marks a bulb unavailable after its polls go unanswered.
        case .lifx: 10_000
        // A Matter controller notices when a subscription's maximum interval passes without a report.
        case .matter: 60_000
        }
    }

    /// The share of the commands lost on the way whose acknowledgement, not the command, was lost: the light
    /// took them but the sender times out. Zero where the sender is told exactly.
    public var acknowledgementLossShare: Double { faultReport == .timeout ? 0.5 : 0 }

    // MARK: - Power and levels

    /// What a light does when power returns, when no fixture says.
    public var defaultPowerOn: PowerOnBehavior {
        switch self {
        // Hue's default power-on setting is "safety": on, full brightness, warm white.
        case .hue: .default
        // A LIFX bulb comes back on, in the colour it had.
        case .lifx: .on
        // Matter's StartUpOnOff left null and generic devices come back as they were.
        case .matter, .generic: .restore
        }
    }

    /// What a light does with brightness and colour changes while off, when no fixture says: Hue bulbs refuse
    /// them; LIFX, Matter (with `ExecuteIfOff`) and generic lights keep them for the next power-on.
    public var defaultWhileOff: OffBehavior { self == .hue ? .refuse : .store }

    /// Whether a brightness of 0 dims the light to off (Matter's *MoveToLevelWithOnOff*, a LIFX brightness of
    /// 0), rather than being out of range (the Hue API's `bri` is 1–254, and 1 is its dimmest, not off).
    public var levelZeroSwitchesOff: Bool { self != .hue }
}

/// The network a light is reached over by the software that drives its real counterpart: which of lumend's
/// fronts shows it (the scope protocol shows every light).
public enum LightNetwork: String, Sendable, Hashable, CaseIterable {
    /// Behind the Hue bridge: the Hue API front lists and drives it.
    case hueBridge = "hue-bridge"
    /// On the LIFX LAN: the LIFX front answers for it.
    case lifxLAN = "lifx-lan"
    /// Neither: only the scope protocol reaches it.
    case none
}
