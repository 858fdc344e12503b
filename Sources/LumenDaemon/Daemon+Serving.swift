import LumenDashboard
import LumenHue
import LumenLIFX
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// Serves until a stop signal or a failure: the socket server, the store, the status and the watchdog, run
    /// as one service group that says `READY=1` once all are going; then says how the state was left.
    ///
    /// A failure before the group runs (a token or TLS file that cannot be read or used, a stop while waiting
    /// for one, a front that cannot listen) removes the socket lumend bound, as the server does after serving; a
    /// socket systemd passed (`ownedPath` is `nil`) is systemd's, and stays.
    static func serve(
        _ state: OpenedState, listenFD: Int32, ownedPath: String?, httpFDs: [Int32], httpsFDs: [Int32],
        options: DaemonOptions,
        clock: any Clock<Duration>, mainLoop: EventLoop, notifier: StopAwareNotifier, logger: Logger
    ) async throws {
        let group: ServiceGroup
        do {
            group = try await serviceGroup(
                state, listenFD: listenFD, ownedPath: ownedPath, httpFDs: httpFDs, httpsFDs: httpsFDs,
                options: options, clock: clock, mainLoop: mainLoop, notifier: notifier, logger: logger)
        } catch {
            // Nothing was served: the socket goes, as the server removes it after serving.
            if let ownedPath { unlink(ownedPath) }
            throw error
        }
        try await group.run()
        let store = state.store
        if let error = store.lastError {
            logger.error("stopped, but the last changes could not be saved: \(error)")
        } else if let error = store.finalSnapshotError {
            let why =
                error.errno == ETIMEDOUT
                ? "the home gave no last snapshot within \(store.finalSnapshotTimeout)"
                : "the last snapshot could not be written: \(error)"
            logger.notice(
                "stopped; every change is saved in the journal (\(why); the next start replays the journal)",
                [("journal", store.journalPath)])
        } else {
            logger.notice("stopped; state saved", [("state", store.statePath)])
        }
    }

    /// The service group that serves: the socket server, the store, the status, the watchdog and the fronts
    /// the options ask for, each ready to run. The files the fronts serve with (the HTTP token file, the TLS
    /// certificate and key) are read first, and only then does lumend say it is ready.
    static func serviceGroup(
        _ state: OpenedState, listenFD: Int32, ownedPath: String?, httpFDs: [Int32], httpsFDs: [Int32],
        options: DaemonOptions,
        clock: any Clock<Duration>, mainLoop: EventLoop, notifier: StopAwareNotifier, logger: Logger
    ) async throws -> ServiceGroup {
        let (home, store, health, outcome, durability, fresh) = (
            state.home, state.store, state.health, state.outcome, state.durability, state.fresh
        )
        // Under full durability a write is confirmed once it is on disk. The store's own thread writes and
        // syncs; an event loop serving other connections never waits on the disk.
        let waitForDisk: @Sendable () async throws(LumenError) -> Void = { () async throws(LumenError) in
            do { try await store.waitUntilDurable(store.changeMark) } catch let error as LumenError {
                throw error
            } catch {
                throw LumenError(
                    .notPersisted, "the change was applied but could not be saved (\(error)); lumend keeps retrying")
            }
        }
        let fixturePath = options.fixturePath
        let pipedFixture = state.pipedFixture
        // A reset reads the fixture again, as lumend did at start: it is not kept in memory meanwhile. A pipe or
        // a device cannot be read again, and is never waited on while lumend serves: what it gave at start is
        // kept, and is what a reset goes back to. A regular file is read again as a state file is, refused
        // without waiting if something else has taken its place.
        let fixture: @Sendable () throws(LumenError) -> Fixture = { () throws(LumenError) in
            guard let fixturePath else { return try Self.decoded(Fixture.embeddedDemoHomeJSON, "(embedded)") }
            if let pipedFixture { return try Self.decoded(pipedFixture, fixturePath + " (as read at start)") }
            let bytes: [UInt8]?
            do { bytes = try PosixFileSystem().readFile(fixturePath) } catch {
                throw LumenError(
                    .internalError,
                    "cannot read the fixture \(fixturePath) again (\(error)); make it a readable file, or restart lumend"
                )
            }
            guard let bytes else {
                throw LumenError(.noSuchEntity, "the fixture \(fixturePath) is gone; put it back, or restart lumend")
            }
            return try Self.decoded(bytes, fixturePath)
        }
        var scopeContext = ScopeContext(
            home: home, durable: durability == .full ? waitForDisk : nil, fixture: fixture)
        // The bridge keeps its users and numbers whether or not it serves: the simulation pairs and presses its
        // link button too.
        let bridge = HueBridge(
            scopeContext: scopeContext, access: HTTPAccess(allowedHosts: options.httpHosts), logger: logger,
            userLimit: options.hueUsers, pairingOpen: options.huePairing == .open)
        scopeContext.pairing = bridge
        let server = SocketServer(
            listenFD: listenFD, ownedPath: ownedPath, scopeContext: scopeContext, limits: options.limits,
            simulationAccess: options.simulationAccess, clock: clock, logger: logger)
        // A watcher: the server hears only of changes to properties some session subscribed to.
        await home.addWatcher { event in
            server.publish(event)
        }
        // Read before lumend says it is ready: either may be a FIFO that keeps it waiting for a writer.
        let serveHTTP = !httpFDs.isEmpty || !httpsFDs.isEmpty
        let token = serveHTTP ? try httpToken(options) : nil
        let tls = httpsFDs.isEmpty ? nil : try tlsCredentials(options: options, state: state, logger: logger)
        let socketDescription = ownedPath ?? UnixSocket.boundPath(of: listenFD) ?? "fd \(listenFD)"
        logger.notice(
            "lumend \(LumenVersion.string) ready on \(socketDescription)",
            [("socket", socketDescription), ("clock", options.clockRunsItself ? "auto" : options.clock.rawValue)])
        var services: [any Service] = [
            // Started first, so stopped last: after the server has answered its last request.
            ClosureService(name: "state store") {
                if fresh { await saveStartupState(store: store, outcome: outcome, logger: logger) }
                await gracefulShutdown()
                await store.close()
            },
            server,
            StatusReporter(home: home, server: server, health: health, notifier: notifier, clock: clock),
            HeapReclaimingService(clock: clock, logger: logger),
        ]
        // Where the fronts listen, said with READY=1 too, for a test harness that asked for port 0: read from
        // the notification rather than the log, whose wording may change.
        var fronts: [String] = []
        if let token {
            let listeners = httpFDs.map { HTTPListener(fd: $0) } + httpsFDs.map { HTTPListener(fd: $0, tls: tls) }
            services.append(
                try await httpServer(
                    on: listeners, token: token, scopeContext: scopeContext, bridge: bridge, options: options,
                    logger: logger))
            if let httpFD = httpFDs.first, let bound = TCPListener.boundAddress(httpFD) {
                fronts.append("X_LUMEN_HTTP=\(bound)")
            }
        }
        if let address = options.mdnsAddress,
            let responder = try mdnsResponder(
                on: address, home: home, httpFDs: httpFDs, httpsFDs: httpsFDs, logger: logger)
        {
            services.append(responder)
        }
        if let address = options.lifxAddress {
            let (lifx, port, bulbs) = try await lifxServer(
                on: address, scopeContext: scopeContext, loop: mainLoop, logger: logger)
            services.append(lifx)
            fronts.append("X_LUMEN_LIFX_PORT=\(port)")
            fronts.append("X_LUMEN_LIFX_BULBS=" + bulbs.map { "\($0.light.id)=\($0.address)" }.joined(separator: " "))
        }
        let ready = (["READY=1"] + fronts).joined(separator: "\n")
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(
                Watchdog(interval: interval, server: server, notifier: notifier, logger: logger, clock: clock))
            logger.info("watchdog enabled", [("interval", "\(interval)")])
        }
        return ServiceGroup(
            services: services, logger: logger,
            ignoredSignals: [
                (SIGHUP, "SIGHUP ignored: lumend reads its options at start; restart it to change them")
            ], signalWatcher: mainLoop
        ) {
            // Last: the socket serves and every signal that could stop lumend is being read.
            notifier.notify(ready)
        } onShutdown: {
            // One message, the status first: after STOPPING=1 the notifier lets no status through, so the
            // status reporter, until it is stopped, cannot say "Simulating" over it.
            notifier.notify("STATUS=Stopping: finishing requests and saving state\nSTOPPING=1")
        }
    }

    /// The HTTP listener on `listeners` (plain HTTP, HTTPS, or both, answered alike): the dashboard at `/`, the
    /// scope protocol at `/rpc` and the Hue bridge under `/api`.
    /// - Parameter token: what opens the simulation scope over HTTP (``httpToken(_:)``).
    static func httpServer(
        on listeners: [HTTPListener], token: String, scopeContext: ScopeContext, bridge: HueBridge,
        options: DaemonOptions, logger: Logger
    ) async throws -> HTTPServer {
        let access = HTTPAccess(allowedHosts: options.httpHosts)
        let bound = listeners.map { TCPListener.boundAddress($0.fd) }
        if options.huePairing == .open, let bound = bound.compactMap({ $0 }).first(where: { !$0.isLoopback }) {
            logger.warning(
                "the Hue bridge on \(bound) lets any app on the network pair (--hue-pairing open); "
                    + "listen on loopback, or pair with the link button")
        }
        let loop = EventLoop(name: "lumend.http")
        var settings = RPCOverHTTP.Settings(token: token)
        settings.answerWait = .seconds(options.httpLimits.answerSeconds)
        settings.access = access
        let rpc = RPCOverHTTP(
            scopeContext: scopeContext, loop: loop, limits: options.limits, settings: settings, logger: logger)
        await scopeContext.home.addWatcher { rpc.publish($0) }
        await bridge.watchHome()
        for (listener, address) in zip(listeners, bound) {
            let scheme = listener.tls == nil ? "http" : "https"
            let base =
                address.map { address in
                    let host = address.host == "0.0.0.0" || address.host == "::" ? "127.0.0.1" : address.host
                    return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(address.port)"
                } ?? "\(scheme)://(the address systemd bound)"
            // A token lumend made is logged, for the person who started it; one from a file is theirs already.
            let controls =
                options.httpTokenFile == nil ? "\(base)/#token=\(token)" : "\(base)/#token=<the token file's>"
            logger.notice(
                "dashboard on \(base)/ (simulation controls: \(controls)); Hue bridge (API v1) on \(base)/api"
                    + (listener.tls == nil ? "" : ", API v2 on \(base)/clip/v2"),
                [(scheme, base), ("pairing", options.huePairing.rawValue)])
        }
        return HTTPServer(
            listeners: listeners, loop: loop, limits: options.httpLimits, logger: logger,
            bodyLimit: { path in RPCOverHTTP.paths.contains(path) ? rpc.maxBodyBytes : options.httpLimits.bodyBytes },
            whenStopping: { rpc.closeAll() }
        ) { request in
            if let reply = rpc.respond(to: request) { return reply }
            if let page = Dashboard.respond(to: request) { return .now(page) }
            return bridge.respond(to: request)
                ?? .now(.text("no such resource; the dashboard is at /, the Hue API under /api\n", status: 404))
        }
    }

    /// The most of an HTTP token file that is read: its first line holds a token of at most 256 characters.
    static let httpTokenFileLimit = 4_096

    /// The token that opens the simulation scope over HTTP: read from `--http-token-file`, or made now.
    static func httpToken(_ options: DaemonOptions) throws -> String {
        guard let path = options.httpTokenFile else { return .unguessable() }
        // Only what a token file can hold is read, and one byte more: a first line of exactly the limit is
        // told from a longer one by what follows it.
        let limit = httpTokenFileLimit
        let read: (bytes: [UInt8], isRegularFile: Bool)?
        do { read = try readNamedFile(path, atMost: limit + 1) } catch let error as FileSystemError {
            throw StartupError(description: "cannot read the HTTP token file \(path): \(error)")
        }
        guard let bytes = read?.bytes else {
            throw StartupError(description: "the HTTP token file \(path) does not exist")
        }
        guard bytes.count <= limit || bytes.contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
            throw StartupError(
                description: "the HTTP token file \(path) must hold a token of 16 to 256 printable ASCII characters "
                    + "on its first line, and its first line is longer than \(limit) bytes")
        }
        let firstLine = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        let token = String(
            firstLine.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard (16...256).contains(token.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw StartupError(
                description: "the HTTP token file \(path) must hold a token of 16 to 256 printable ASCII characters "
                    + "on its first line")
        }
        return token
    }

    /// The LIFX LAN bulbs, each answering on UDP at its own address from `address` on (or its fixture's), all on
    /// `address`'s port.
    ///
    /// One socket on the wildcard address serves them all: it gets the datagrams sent to any bulb's address and
    /// the broadcasts, the kernel tells each datagram's destination, and each reply leaves from its bulb's
    /// address (docs/architecture.md says why one socket rather than one a bulb). The socket is watched by `loop`,
    /// the home's, so that a query is read, answered and sent with no hop between threads.
    /// - Returns: the server, the port it listens on and the bulbs as they were at start.
    static func lifxServer(
        on address: TCPAddress, scopeContext: ScopeContext, loop: EventLoop, logger: Logger
    ) async throws
        -> (server: UDPServer, port: UInt16, bulbs: [LIFXLight])
    {
        guard let first = IPv4Address(address.host) else {
            throw StartupError(description: "--lifx takes an IPv4 address, not \(address)")
        }
        let fd: Int32
        let wildcard = TCPAddress(host: "0.0.0.0", port: address.port)
        do { fd = try UDPServer.bind(wildcard) } catch {
            throw StartupError(description: "cannot listen for LIFX on udp://\(wildcard): \(error)")
        }
        let port = TCPListener.boundPort(fd) ?? address.port
        // A reply can leave only from an address of this host: one that is not is refused at start, not at each
        // reply, and reported at once for a bulb that comes while lumend runs.
        let addressProblem: @Sendable (IPv4Address) -> String? = { address in
            do {
                close(try UDPServer.bind(TCPAddress(host: address.description, port: 0)))
                return nil
            } catch {
                return "\(error)"
            }
        }
        let front = LIFXFront(
            scopeContext: scopeContext, port: port, firstAddress: first,
            startedAtMs: await scopeContext.home.nowMilliseconds, addressProblem: addressProblem,
            report: { logger.error($0) })
        let bulbs = await front.bulbs()
        for bulb in bulbs {
            if let why = addressProblem(bulb.address) {
                close(fd)
                throw StartupError(description: LIFXFront.notThisMachine(bulb, why))
            }
        }
        // Which broadcasts each bulb takes: a LAN's, from its own interface; a loopback bulb, this machine's. Judged
        // bulb by bulb as each broadcast is answered, so that a bulb added while lumend runs is judged by its own.
        let broadcasts = BroadcastRule(interfaces: NetworkInterface.current())
        let listing = bulbs.map { "\($0.light.name) at \($0.address)" }.joined(separator: ", ")
        logger.notice(
            "LIFX LAN bulbs on udp port \(port): \(listing.isEmpty ? "none" : listing)",
            [("lifx", "\(first):\(port)")])
        // On the home's loop: a query is read, answered from the home's state and sent on one thread.
        let server = UDPServer(fd: fd, loop: loop) { dropped in
            let malformed = front.malformed.load(ordering: .relaxed)
            let overBudget = front.budget.dropped.load(ordering: .relaxed)
            let broadcasts = front.budget.droppedBroadcasts.load(ordering: .relaxed)
            if dropped + malformed + overBudget + broadcasts > 0 {
                logger.notice(
                    "LIFX: \(malformed) malformed datagrams dropped, \(dropped) while too many datagrams waited, "
                        + "\(broadcasts) broadcasts while too many were in progress, and \(overBudget) bulb answers "
                        + "beyond the answer budget",
                    [
                        ("malformed", String(malformed)), ("dropped", String(dropped)),
                        ("broadcasts", String(broadcasts)), ("overBudget", String(overBudget)),
                    ])
            }
        } respond: { datagram, destination, sender in
            switch destination {
            case .address(let address): return front.respond(to: datagram, at: address, from: sender)
            case .broadcast(let interface):
                return front.respond(
                    to: datagram, from: sender,
                    reaching: { broadcasts.reaching(interface: interface, sender: sender()) })
            // The socket is IPv4's and the kernel names every datagram's destination; one it does not is not
            // known to be any bulb's.
            case .unknown: return nil
            }
        }
        return (server, port, bulbs)
    }

    /// The fixture in `bytes`, for a reset.
    static func decoded(_ bytes: [UInt8], _ name: String) throws(LumenError) -> Fixture {
        do { return try Fixture(json: bytes) } catch {
            throw LumenError(.invalidParams, "the fixture \(name) is invalid now: \(error); fix it, or restart lumend")
        }
    }
}
