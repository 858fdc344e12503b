import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// Brings what the bridge holds in memory to what the home now keeps for it, as `news` tells, in the home's
    /// turn that made the news, and saves what that changed.
    ///
    /// Restored (a reset, a checkpoint's restore), the bridge takes the target's numbers, scenes and groups, and
    /// the API v2 UUIDs the bridge, its lights and rooms have now where the target gives none (a client keeps its
    /// devices rather than seeing them all deleted and added again). It keeps the users paired now, and only
    /// those: an app lives outside the simulation and keeps its key (Home Assistant, a test harness that paired
    /// at start), so it is not made to pair again, and a user deleted since the target is not brought back. They
    /// are trimmed to the user limit, unused longest first. What lasts while lumend runs goes with the state it
    /// stood for: no scene stays active, no light keeps a v2 speed. A light
    /// removed leaves the scenes and groups that held it at once, its number staying taken.
    func hear(_ news: FrontNews, in home: isolated Home) {
        switch news {
        case .restored, .lightRemoved: break
        // The bridge numbers a light that came on its next visit, as it does at start.
        case .powerCut, .lightAdded, .settingsChanged: return
        // API v2 reports the light's timed effect: news to the event streams.
        case .timedEffectChanged:
            homeChanged()
            return
        }
        memory.withLock { memory in
            if case .restored(let previous) = news {
                let current = memory.isLoaded ? memory.state : try? HueBridgeState(record: previous[Self.recordName])
                let paired = current?.users ?? []
                // A record that does not read was refused when the fixture was read: an empty bridge then.
                memory.state = (try? HueBridgeState(record: home.frontRecord(Self.recordName))) ?? HueBridgeState()
                if let current, memory.state.keepResourceIDs(of: current) { memory.isUnsaved = true }
                memory.isLoaded = true
                memory.numberedGeneration = nil
                memory.recalledScenes = [:]
                memory.dynamicScenes = []
                memory.lastRecalls = [:]
                memory.lightSpeeds = [:]
                let users = Array(paired.suffix(memory.userLimit))
                if users != memory.state.users {
                    memory.state.users = users
                    memory.isUnsaved = true
                }
                // An app's geofence clients are the app's, as its pairing is: kept, whatever the home goes back to.
                let clients = current?.geofenceClients ?? []
                if clients != memory.state.geofenceClients {
                    memory.state.geofenceClients = clients
                    memory.isUnsaved = true
                }
            }
            memory.catchUp(with: home)
            if memory.isUnsaved {
                home.saveFrontRecord(Self.recordName, memory.state.jsonValue)
                memory.isUnsaved = false
            }
        }
        // Scenes and groups may have come or gone: news to the event streams.
        homeChanged()
    }
}
