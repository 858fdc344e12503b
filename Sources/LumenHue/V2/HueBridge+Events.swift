import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// Has the event streams told of every change in the home from now on, whichever front made it.
    package func watchHome() async {
        // The users read now, so that a stream, answered at once, can check its key without a visit.
        await visit { _, _ in }
        await home.addObserver { [weak self] _ in self?.homeChanged() }
    }

    /// Something changed: the event streams, if any are open, get a look at the bridge after this turn of the
    /// home, with every other change of the turn.
    func homeChanged() {
        guard events.wantsLook() else { return }
        Task { await self.lookForEvents() }
    }

    /// Shows the event streams the bridge as it is now: one look at a time, each compared with the one before, so
    /// that a look taken earlier never lands after a later one.
    func lookForEvents() async {
        guard events.startLook() else { return }
        repeat {
            let snapshot = await snapshot()
            events.looked(at: HueV2Model(snapshot, bridgeID: identity.bridgeID).resources, time: snapshot.wallTime)
        } while events.lookAgain()
    }

    /// `GET /eventstream/clip/v2`: the events of the bridge as Server-Sent Events, for a paired user's key. The
    /// stream counts as a use of the key when it opens (and for as long as it is open, see
    /// ``HueEventHub/streamingKeys``), and ends when the user is forgotten.
    func eventStream(_ request: HTTPRequest, key: String) -> HTTPReply {
        guard request.method == "GET" else {
            return .now(HueV2Error(description: "method, \(request.method), not available", status: 405).response)
        }
        let known = memory.withLock { memory in memory.isLoaded ? memory.use(key) != nil : nil }
        guard known != false else { return .now(HueV2Error.unauthorized.response) }
        return .stream(
            HTTPResponse(
                status: 200,
                headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache, no-store")]),
            openEventStream(key: key, lastEventID: request.headers["last-event-id"]))
    }

    /// Opens a stream for the user whose key is `key`, found paired a moment before, and ends it at once if the
    /// user was forgotten since: that user's streams were ended when it was forgotten, before this one was open.
    func openEventStream(key: String, lastEventID: String?) -> HueEventStream {
        let (stream, needsLook) = events.open(key: key, lastEventID: lastEventID)
        if needsLook { Task { await self.lookForEvents() } }
        let forgotten = memory.withLock { memory in
            memory.isLoaded && !memory.state.users.contains { $0.username == key }
        }
        if forgotten { stream.end() }
        return stream
    }
}
