import LumenModel

/// The writer's schedule: what it does next and when it must be woken, as pure functions of the shared state
/// (tested on their own, without a disk or a loop).
extension StateStore {
    /// What the writer does next.
    enum Next: Equatable {
        /// Sleeps until it is woken: nothing to do.
        case idle
        /// Sleeps this long, on a timer of its loop, unless woken sooner.
        case wait(Duration)
        case commit
        case stop
    }

    /// What the writer is doing, for those who would queue it a step on its loop: queuing one only for a
    /// writer that sleeps keeps it from being woken once per change, and from counting steps that found
    /// nothing new.
    enum WriterPhase {
        case working
        /// Asleep until a deadline of its own (the relaxed delay, a retry) or the home's snapshot it asked for:
        /// only someone waiting for a commit wakes it sooner.
        case napping
        /// Asleep for want of work: any change wakes it.
        case idle
    }

    /// Why someone would wake the writer.
    enum WakeReason {
        /// A change was noted.
        case change
        /// Something to see to at once: someone waits for a commit, a snapshot or the stop.
        case due
    }
}

extension StateStore.Shared {
    /// The writer's next step, given the work and waiters recorded here, and the phase it sleeps in.
    mutating func nextStep(now: ContinuousClock.Instant, durability: Durability, relaxedDelay: Duration)
        -> StateStore.Next
    {
        if stopping { return .stop }
        let hasWork = !pending.isEmpty || snapshotWanted || lastError != nil
        guard hasWork else {
            writer = .idle
            return .idle
        }
        if let retryAt, now < retryAt {
            writer = .napping
            return .wait(now.duration(to: retryAt))
        }
        if durability == .relaxed, waiters.isEmpty, !snapshotWanted, lastError == nil, let since = pendingSince,
            now < since + relaxedDelay
        {
            // Relaxed: let changes gather. Full: commit at once; what is noted while a commit is under way goes
            // into the next one together.
            writer = .napping
            return .wait(now.duration(to: since + relaxedDelay))
        }
        return .commit
    }

    /// Whether the writer must be woken for `reason`; if so it counts as awake from now, so that one wake-up
    /// serves everyone until it sleeps again.
    mutating func wakeWriter(for reason: StateStore.WakeReason) -> Bool {
        switch (writer, reason) {
        case (.idle, _), (.napping, .due):
            writer = .working
            writerWakeups += 1
            return true
        case (.working, _), (.napping, .change):
            return false
        }
    }
}
