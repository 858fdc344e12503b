import LumenLoop
import LumenService

/// lumend's main loop watches the stop signals' pipe too, so that no other thread waits for them.
extension EventLoop: ReadableWatcher {}
