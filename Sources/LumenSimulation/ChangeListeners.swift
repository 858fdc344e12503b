import LumenModel

/// Who hears of the home's changes: observers, told of every change, and watchers, told only of the changes of
/// watched properties, of removals and of the commands' outcomes; each in the order they were added.
///
/// The home decides what is watched (``PropertyAudience``); this keeps who listens and tells them in order.
///
/// ```swift
/// var listeners = ChangeListeners()
/// let id = listeners.addWatcher { event in print(event) }
/// listeners.tell(event, watched: true)
/// listeners.removeWatcher(id)
/// ```
struct ChangeListeners: Sendable {
    /// A watcher, and the registration it was added under.
    private struct Watcher: Sendable {
        let id: Home.WatcherID
        let notify: Home.Observer
    }

    private var observers: [Home.Observer] = []
    private var watchers: [Watcher] = []
    private var nextWatcherID: UInt64 = 1

    /// How many watchers there are.
    var watcherCount: Int { watchers.count }

    /// Adds an observer, told of every change after those added before it.
    mutating func addObserver(_ observer: @escaping Home.Observer) {
        observers.append(observer)
    }

    /// Adds a watcher; returns its registration, to remove it by.
    mutating func addWatcher(_ watcher: @escaping Home.Observer) -> Home.WatcherID {
        let id = Home.WatcherID(value: nextWatcherID)
        nextWatcherID += 1
        watchers.append(Watcher(id: id, notify: watcher))
        return id
    }

    /// Removes the watcher added under `id`; one removed already is ignored.
    mutating func removeWatcher(_ id: Home.WatcherID) {
        watchers.removeAll { $0.id == id }
    }

    /// Whether anyone would hear a change, `watched` saying whether watchers would: when nobody would, the
    /// change's event need not be made.
    func hear(watched: Bool) -> Bool { !observers.isEmpty || (watched && !watchers.isEmpty) }

    /// Tells every observer of `event`, then every watcher when it is `watched`.
    func tell(_ event: ChangeEvent, watched: Bool) {
        for observer in observers { observer(event) }
        if watched { for watcher in watchers { watcher.notify(event) } }
    }

    /// Tells the watchers alone of `event`: what is not a change of the home's state (a command's outcome).
    func tellWatchers(_ event: ChangeEvent) {
        for watcher in watchers { watcher.notify(event) }
    }
}
