import LumenLoop
import LumenModel
import LumenProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which clock drives the simulation.
public enum ClockMode: String, Sendable, Hashable, CaseIterable {
    /// Time follows the monotonic clock.
    case real
    /// Time moves only when told to (``Home/advance(byMilliseconds:)``): for deterministic tests.
    case virtual
}

/// A simulated home: its rooms and lights, and the one event loop that applies every change to them.
///
/// All delays (device latency, timeouts, transitions, discovery, scheduled faults) are events in one queue,
/// applied in a defined order: by due time, then by the order they were scheduled. With the virtual clock
/// and a seed, the same fixture and commands give the same changes, byte for byte.
///
/// ```swift
/// let home = Home(fixture: .demoHome(), clock: .virtual)
/// let ticket = try await home.send(LightChange(isOn: true), to: "kitchen.spot-1").ticket
/// try await home.advance(byMilliseconds: 500)
/// let state = try await ticket.value
/// ```
public actor Home {
    package typealias Observer = @Sendable (ChangeEvent) -> Void

    /// The event loop of every home made without an executor of its own (tests, tools and in-process
    /// sessions): the same kind of loop lumend runs its home on.
    package static let sharedLoop = EventLoop(name: "lumen.home")
    /// Where the actor's work runs: lumend's main event loop, or ``sharedLoop``.
    nonisolated let executor: any SerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The clock driving this home.
    nonisolated let clockMode: ClockMode
    /// The simulated wall clock: the date and time at which the simulation's clock read zero (``wallTime``).
    package nonisolated let wallClock: WallClock
    /// The values announced, for reads that need not wait for the actor (``read(_:)``).
    package nonisolated let published = PublishedValues()
    let fixtureIdentity: (id: String, seed: UInt64)
    /// The ID of the fixture the home was made from: what identities derived from the home (a bridge's ID and
    /// MAC) are drawn from.
    package nonisolated var fixtureID: String { fixtureIdentity.id }
    /// The home's name: also the Hue bridge's, and the LIFX bulbs' location.
    package internal(set) var name: String
    var defaults: DeviceSettings
    /// Discovery: its settings, and the search each room shows.
    var discovery: Discovery
    /// The scheduled faults: the fixture's, and power cycles asked for since.
    var faults: FaultPlan
    var durability: Durability?
    /// The fixture's own `start`, which a snapshot keeps (a start given on the command line is not saved).
    let fixtureStart: WallClock?
    var roomOrder: [RoomID] = []
    var rooms: [RoomID: SimulatedRoom] = [:]
    var lights = LightTable()
    /// Lights' own settings, for the lights that have any.
    var lightSettings: [LightID: DeviceSettings] = [:]
    /// The LIFX addresses fixtures gave lights (`lifx.address`), for the lights that have one.
    var lifxAddresses = LIFXAddressTable()
    /// Fades under way.
    var transitions: [LightID: LightFades] = [:]
    /// The effects lights are showing, with when each one's breathing ends (simulation microseconds).
    var effects: [LightID: (effect: LightEffect, breathingEnds: Int64?)] = [:]
    /// Rate-limit buckets, for lights that have a rate limit and have been sent commands.
    var rateBuckets: [LightID: RateBucket] = [:]
    var queue = EventQueue()
    /// Commands and questions on their way to their lights, and sleepers on the clock.
    var pending = PendingCommands()
    /// The last commands received, and what became of them.
    var commandLog: CommandLog
    /// Whether someone subscribed to the last command's outcome: only then is each told to the watchers.
    var isLastCommandWatched = false
    /// The bridge's command budget, and the random stream of its own choices.
    var bridge: BridgeBudget
    /// What each front keeps, by its name (``Fixture/fronts``): saved with the home, read only by the front.
    var frontRecords: [String: JSONValue]
    /// The fronts that asked to hear ``FrontNews`` (``addFrontListener(_:)``), in the order they asked.
    nonisolated let frontListeners = Locked<[FrontListener]>([])
    /// How many times a room or light came or went: a front that numbers them looks again only when it moved.
    package internal(set) var topologyGeneration = 0
    /// The checkpoints taken, by name.
    var checkpoints = Checkpoints()
    /// Simulation time in microseconds since the home started.
    var nowMicros: Int64 = 0
    /// Who hears of changes: observers, and watchers (told only of changes to watched properties, of removals
    /// and of commands' outcomes).
    var listeners = ChangeListeners()
    /// Told the saved form of each entity whose saved form changes (the state store's journal).
    var persistenceSink: (any StateRecordSink)?
    var isShutDown = false
    /// When the home started, in microseconds of the clock `ContinuousClock` reads: real-clock time counts
    /// from here.
    let realStartMicros = Home.continuousMicros()
    /// Real clock only: the due time a wake-up task is already sleeping towards.
    var armedWake: Int64?
    /// Whether the virtual clock runs itself (``clockRunsItself``).
    nonisolated let clockRunsItself: Bool
    /// A clock that runs itself: whether a jump is already waiting for its quiet moment.
    var isJumpArmed = false
    /// A clock that runs itself: how many requests the fronts have taken (``noteRequest()``), so that a jump
    /// waits until none has come for a quiet moment.
    nonisolated let requestsTaken = Atomic<UInt64>(0)

    /// A watcher's registration (``addWatcher(_:)``), to remove it by.
    package struct WatcherID: Hashable, Sendable {
        let value: UInt64
    }

    /// What real-clock wake-ups sleep on.
    let wakeClock: any Clock<Duration>
    /// Where real-clock wake-ups run (`nil`: the shared executor).
    let wakeExecutor: (any TaskExecutor)?

    /// A home built from a fixture (or a snapshot, which is a fixture too).
    /// - Parameters:
    ///   - wakeClock: on the real clock, what the wake-up for the next event sleeps on.
    ///   - wakeExecutor: where that wake-up runs (lumend's main event loop, so that it needs no other thread).
    ///   - executor: where the actor's work runs (lumend's main event loop); by default ``sharedLoop``.
    ///   - commandRecordLimit: how many of the last commands the command record keeps.
    ///   - start: when the simulated wall clock starts, overriding the fixture's `start`; with neither, the real
    ///     time now on the real clock and ``WallClock/virtualDefault`` on the virtual one.
    ///   - runsItself: on the virtual clock, whether the clock jumps to the next event by itself whenever someone
    ///     waits on the simulation (``clockRunsItself``).
    package init(
        fixture: Fixture, clock: ClockMode, seed: UInt64? = nil, wakeClock: any Clock<Duration> = ContinuousClock(),
        wakeExecutor: (any TaskExecutor)? = nil, executor: (any SerialExecutor)? = nil,
        commandRecordLimit: Int = Home.defaultCommandRecordLimit, start: WallClock? = nil, runsItself: Bool = false
    ) {
        commandLog = CommandLog(capacity: commandRecordLimit)
        self.executor = executor ?? Self.sharedLoop
        self.wakeClock = wakeClock
        self.wakeExecutor = wakeExecutor
        clockMode = clock
        clockRunsItself = runsItself && clock == .virtual
        wallClock = start ?? fixture.start ?? (clock == .virtual ? .virtualDefault : Self.realWallClock())
        fixtureStart = fixture.start
        let seed = seed ?? fixture.seed
        fixtureIdentity = (fixture.id, seed)
        name = fixture.name
        defaults = fixture.defaults
        discovery = Discovery(fixture.discovery)
        bridge = BridgeBudget(fixture.bridge, seed: seed)
        frontRecords = fixture.fronts
        faults = FaultPlan(fixture.faultSchedule)
        durability = fixture.durability
        lights.reserveCapacity(fixture.rooms.reduce(0) { $0 + $1.lights.count })
        for room in fixture.rooms {
            roomOrder.append(room.id)
            rooms[room.id] = SimulatedRoom(
                name: room.name, defaults: room.defaults, lightIDs: room.lights.map(\.id),
                undiscovered: room.undiscovered)
            for light in room.lights {
                lights[light.id] = SimulatedLight(fixture: light, room: room.id, seed: seed)
                if !light.settings.isEmpty { lightSettings[light.id] = light.settings }
                if let address = light.lifxAddress { lifxAddresses[light.id] = address }
            }
            rooms[room.id]?.onCount = room.lights.count { $0.state.isOn }
        }
        for (event, due) in faults.fixtureEvents { queue.schedule(event, at: due) }
    }

    // MARK: - Observing

    /// Calls `observer` with every change, synchronously, in the order changes are applied.
    ///
    /// Observers must return quickly and never block: they run on the home's event loop, for as long as the
    /// home lives.
    package func addObserver(_ observer: @escaping Observer) {
        listeners.addObserver(observer)
    }

    /// Calls `watcher` as ``addObserver(_:)`` calls an observer, but only with the changes of properties
    /// someone watches (``watch(_:)``) and with every removal: what a server needs for its subscriptions,
    /// without hearing of every change nobody subscribed to.
    /// - Returns: the watcher's registration, for ``removeWatcher(_:)``.
    @discardableResult
    package func addWatcher(_ watcher: @escaping Observer) -> WatcherID {
        listeners.addWatcher(watcher)
    }

    /// Stops telling a watcher of changes (a session that closes, say); one removed already is ignored.
    package func removeWatcher(_ id: WatcherID) {
        listeners.removeWatcher(id)
    }

    /// Marks `key` as watched: from now on its changes go to the watchers (``addWatcher(_:)``) too. Call it
    /// in the same step on the actor that reads the property's first value for a subscriber, so no change
    /// falls in between. A mark is never taken back; a property nobody watches any more costs its watchers a
    /// look that finds nothing.
    package func watch(_ key: PropertyKey) {
        switch key {
        case .home(.lastCommand): isLastCommandWatched = true
        // The home's own properties are announced to the watchers whether watched or not.
        case .home: break
        case .room(let id, let property): rooms[id]?.audience.markWatched(property)
        case .light(let id, let property):
            if let slot = lights.slot(of: id) { lights[slot: slot].audience.markWatched(property) }
        }
    }

    /// Hands `sink` the saved form (``StateRecord``) of every entity whose saved form changes, synchronously, as
    /// the change is applied: the state store journals these.
    ///
    /// Saved forms differ from change events: a light fading to a new brightness is saved once, at its
    /// target, and a scheduled fault's passing unreachability is not saved at all.
    ///
    /// A light whose state changes is handed as a ``PendingLightRecord``: while the sink has not taken it, later
    /// changes of the light's state are written into it in place, with nothing new noted.
    package func setPersistenceSink(_ sink: (any StateRecordSink)?) {
        persistenceSink = sink
        // Records the sink before held are no longer where a change should go.
        for index in 0..<lights.count { lights[slot: index].pendingRecord = nil }
    }

    /// Hands the saved form of `entity` as it is now to the persistence sink.
    func persist(_ entity: Entity) {
        guard let persistenceSink else { return }
        if case .light(let id) = entity, let index = lights.slot(of: id) {
            noteLight(at: index, to: persistenceSink)
        } else {
            persistenceSink.record(record(of: entity))
        }
    }

    /// Hands the saved form of the light at `index` of `lights` to the persistence sink after a change of its
    /// state alone, `savedState` (what ``savedState(at:)`` gives, which the caller knows already): written into
    /// the record the sink still holds, when it does.
    func persistLight(at index: LightTable.Slot, savedState: LightState) {
        // A light has a pending record only while a sink is set: the sink need not be looked at.
        if let pending = lights[slot: index].pendingRecord, pending.update(state: savedState) { return }
        guard let persistenceSink else { return }
        noteLight(at: index, to: persistenceSink)
    }

    /// Notes the whole saved form of the light at `index` of `lights`, as a record its state changes can
    /// update until the sink takes it.
    private func noteLight(at index: LightTable.Slot, to sink: any StateRecordSink) {
        let pending = PendingLightRecord(fixtureEntry(at: index), room: lights[slot: index].room)
        lights[slot: index].pendingRecord = pending
        sink.record(pending)
    }

    /// Announces that a property took a new value: to the published values, every observer and every watcher.
    ///
    /// `published` is `false` for a property the published values are known not to hold, which is then not
    /// looked for there; `watched` is `false` for one no subscriber watches, which the watchers then do not
    /// hear of (see ``PropertyAudience``).
    func emit(_ key: PropertyKey, _ value: JSONValue, published isPublished: Bool = true, watched: Bool = true) {
        if isPublished { published.update(key, value) }
        guard listeners.hear(watched: watched) else { return }
        listeners.tell(ChangeEvent(.property(key, value), timeMicros: nowMicros), watched: watched)
    }

    /// Announces a change of a light's property, to those of `audience`.
    func emit(_ property: LightProperty, of light: LightID, _ value: JSONValue, to audience: PropertyAudience) {
        emit(
            .light(light, property), value, published: audience.isPublished(property),
            watched: audience.isWatched(property))
    }

    /// Announces a change of a room's property, to those of `audience`.
    func emit(_ property: RoomProperty, of room: RoomID, _ value: JSONValue, to audience: PropertyAudience) {
        emit(
            .room(room, property), value, published: audience.isPublished(property),
            watched: audience.isWatched(property))
    }

    /// Announces that an entity was removed.
    func emitRemoval(of entity: Entity) {
        published.remove(entity)
        listeners.tell(ChangeEvent(.removed(entity), timeMicros: nowMicros), watched: true)
    }

    // MARK: - Time

    /// The simulation time in milliseconds.
    package var nowMilliseconds: Double {
        refreshRealTime()
        return Double(nowMicros) / 1_000
    }

    /// The number of events waiting to happen.
    package var scheduledEventCount: Int { queue.count }

    static func micros(_ ms: Double) -> Int64 { Int64((ms * 1_000).rounded()) }

    func refreshRealTime() {
        guard clockMode == .real else { return }
        nowMicros = max(nowMicros, Self.continuousMicros() - realStartMicros)
    }

    /// The real date and time now, read in the machine's time zone: the wall clock of a home on the real clock
    /// that was given none.
    static func realWallClock() -> WallClock {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return WallClock(
            startMicroseconds: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000,
            utcOffsetSeconds: Int(parts.tm_gmtoff))
    }

    /// The simulated wall clock's time now: its start, moved on by the simulation's clock.
    package var wallTime: WallTime {
        refreshRealTime()
        return wallClock.time(atMicros: nowMicros)
    }

    /// The clock `ContinuousClock` reads on Linux (`CLOCK_BOOTTIME`), in microseconds, read without building a
    /// `Duration`: every command reads it.
    static func continuousMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// Moves the virtual clock forward, applying every event due by the new time in order.
    ///
    /// When it returns, every consequence has been applied and every observer told.
    /// - Throws: ``LumenError`` `needsVirtualClock` on a real-clock home; `invalidParams` for a negative span.
    package func advance(byMilliseconds ms: Double) throws(LumenError) {
        try checkAdvance(ms, "ms")
        let target = nowMicros + Self.micros(ms)
        runEvents(notAfter: target)
        nowMicros = target
    }

    /// Advances the virtual clock event by event until no command, fade or scan is pending (the fixture's
    /// scheduled faults are not pending work), but never more than `maxMs`; when work is left then, the clock
    /// stands at the limit.
    /// - Returns: how far the clock went, in milliseconds, and whether nothing is pending.
    package func advanceUntilIdle(maxMs: Double) throws(LumenError) -> (advancedMs: Double, idle: Bool) {
        try checkAdvance(maxMs, "maxMs")
        let (start, limit) = (nowMicros, nowMicros + Self.micros(maxMs))
        while queue.pendingWork > 0, let due = queue.nextDue, due <= limit {
            runEvents(notAfter: due)
        }
        let idle = queue.pendingWork == 0
        if !idle { nowMicros = limit }
        return (Double(nowMicros - start) / 1_000, idle)
    }

    /// Advances the virtual clock to the next scheduled event, whatever it is, and carries it out (with any
    /// others due at the same moment); with none, the clock stays.
    /// - Returns: how far the clock went, in milliseconds.
    package func advanceToNextEvent() throws(LumenError) -> Double {
        try checkAdvance(0, "ms")
        guard let due = queue.nextDue else { return 0 }
        let start = nowMicros
        runEvents(notAfter: due)
        return Double(nowMicros - start) / 1_000
    }

    private func checkAdvance(_ ms: Double, _ name: String) throws(LumenError) {
        guard clockMode == .virtual else {
            throw LumenError(.needsVirtualClock, "advance needs the virtual clock; start lumend with --clock virtual")
        }
        if let problem = SimulatedDurations.advanceProblem(ms, name) { throw LumenError(.invalidParams, problem) }
    }

    func runEvents(notAfter time: Int64) {
        while let next = queue.popDue(notAfter: time) {
            nowMicros = max(nowMicros, next.due)
            handle(next.event)
        }
    }

    func schedule(_ event: SimulationEvent, at due: Int64) {
        queue.schedule(event, at: due)
        armRealClock()
    }

    /// Real clock: makes sure a task wakes the loop when the earliest event falls due.
    func armRealClock() {
        if clockRunsItself { armJump() }
        guard clockMode == .real, !isShutDown, let due = queue.nextDue else { return }
        if let armedWake, armedWake <= due { return }
        armedWake = due
        let (clock, start) = (wakeClock, realStartMicros)
        Task(executorPreference: wakeExecutor) { [weak self] in
            try? await clock.sleep(for: .microseconds(due - (Self.continuousMicros() - start)))
            await self?.wake(armedFor: due)
        }
    }

    func wake(armedFor due: Int64) {
        if armedWake == due { armedWake = nil }
        refreshRealTime()
        runEvents(notAfter: nowMicros)
        armRealClock()
    }

    func handle(_ event: SimulationEvent) {
        switch event {
        case .applyCommand(let id): applyCommand(id)
        case .failCommand(let id, let code): failCommand(id, code: LumenError.Code(rawValue: code.rawValue))
        case .transitionStep(let light, let generation): stepTransition(light, generation: generation)
        case .discoverLight(let room, let scan, let light): discover(light, in: room, scan: scan)
        case .endScan(let room, let scan): endScan(in: room, scan: scan)
        case .fault(let index, let begins): applyScheduledFault(index, begins: begins)
        case .reportUnreachable(let light, let spell): reportUnreachable(light, spell: spell)
        case .answerQuery(let id): answerQuery(id)
        case .endBreathing(let light): endBreathing(light)
        case .wake(let sleeper): pending.removeSleeper(sleeper)?.resume(returning: true)
        }
    }

    /// Adds a light built from a fixture entry, with its settings.
    func insertLight(_ fixture: LightFixture, room: RoomID) {
        topologyGeneration += 1
        lights[fixture.id] = SimulatedLight(fixture: fixture, room: room, seed: fixtureIdentity.seed)
        if !fixture.settings.isEmpty { lightSettings[fixture.id] = fixture.settings }
        if let address = fixture.lifxAddress { lifxAddresses[fixture.id] = address }
        if fixture.state.isOn { rooms[room]?.onCount += 1 }
    }

    /// Forgets a light and everything kept about it.
    func forgetLight(_ id: LightID) -> SimulatedLight? {
        topologyGeneration += 1
        lightSettings[id] = nil
        lifxAddresses[id] = nil
        transitions[id] = nil
        effects[id] = nil
        rateBuckets[id] = nil
        guard let light = lights.removeValue(forKey: id) else { return nil }
        if light.state.isOn { rooms[light.room]?.onCount -= 1 }
        return light
    }

    /// Announces a room's `anyOn` and `allOn` where they differ from `before`.
    func emitGroupChange(of room: RoomID, since before: (anyOn: Bool, allOn: Bool)) {
        // Read once: each read through the dictionary copies the whole room.
        guard let simulated = rooms[room] else { return }
        emitGroupChange(of: room, from: before, to: simulated.groupState, audience: simulated.audience)
    }

    /// Announces the `anyOn` and `allOn` of `room` that differ between `before` and `now`, to those of the
    /// room's `audience`.
    func emitGroupChange(
        of room: RoomID, from before: (anyOn: Bool, allOn: Bool), to now: (anyOn: Bool, allOn: Bool),
        audience: PropertyAudience
    ) {
        if now.anyOn != before.anyOn { emit(.anyOn, of: room, .bool(now.anyOn), to: audience) }
        if now.allOn != before.allOn { emit(.allOn, of: room, .bool(now.allOn), to: audience) }
    }

    /// The light at `index` of `lights` as a fixture entry: what a snapshot saves (mid-transition, its target).
    func fixtureEntry(at index: LightTable.Slot) -> LightFixture {
        let id = lights[slot: index].id
        var fixture = LightFixture(
            id: id, name: lights[slot: index].name, model: lights[slot: index].model, state: savedState(at: index))
        fixture.isReachable = !lights[slot: index].forcedUnreachable
        fixture.settings = lightSettings.isEmpty ? DeviceSettings() : lightSettings[id] ?? DeviceSettings()
        fixture.lifxAddress = lifxAddresses.isEmpty ? nil : lifxAddresses[id]
        return fixture
    }

    /// The state the light at `index` of `lights` is saved with: mid-transition, its target.
    func savedState(at index: LightTable.Slot) -> LightState {
        let state = lights[slot: index].state
        guard !transitions.isEmpty, let fades = transitions[lights[slot: index].id] else { return state }
        return fades.landing(over: state)
    }

    /// Fails every command still waiting for its device and stops the clock: the home is shutting down.
    package func shutDown() {
        isShutDown = true
        let waiting = pending.removeAll()
        for ticket in waiting.queries { ticket.settle(.failure(LumenError.shuttingDown)) }
        for command in waiting.commands { settle(command, .failure(LumenError.shuttingDown)) }
        for sleeper in waiting.sleepers { sleeper.resume(returning: false) }
    }
}
