import LumenService
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// Start-up was stopped while it waited on a file the user named (a FIFO's writer, or what it writes): a
    /// stop signal came, or with `--exit-with-parent` the process that started lumend exited. A stop during
    /// start-up, which ends it cleanly.
    struct StoppedWhileWaiting: Error, CustomStringConvertible {
        /// What ended the wait.
        enum Cause {
            /// A stop signal, by its number.
            case signal(Int32)
            /// The exit of the process that started lumend, by its process ID.
            case parentExited(pid_t)
        }

        /// What ended the wait.
        var cause: Cause
        /// The file waited on.
        var path: String

        /// What ended the wait, in words: "stopped by signal 15".
        var stoppedBy: String {
            switch cause {
            case .signal(let number): "stopped by signal \(number)"
            case .parentExited(let pid): "stopped as the process that started lumend (pid \(pid)) exited"
            }
        }

        var description: String { "\(stoppedBy) while waiting for \(path) to be written" }
    }

    /// The contents of a file the user named, and whether it is a regular file; `nil` when it does not exist.
    ///
    /// A FIFO, a pipe or a device is read as it comes, and may keep lumend waiting for a writer or for its
    /// bytes; SIGTERM or SIGINT ends the wait, however early it came, and so does the exit of the process that
    /// started lumend when its ``ParentWatch`` runs: the wait holds the main loop's thread, where that watch
    /// would otherwise act.
    /// - Parameters:
    ///   - fileSystem: what reads it, and its bound on what it reads.
    ///   - limit: read at most this many bytes (the first of a longer file).
    /// - Throws: ``StoppedWhileWaiting`` when a stop signal or the parent's exit ended the wait; the
    ///   `FileSystemError` of a read that failed otherwise.
    static func readNamedFile(_ path: String, fileSystem: PosixFileSystem = PosixFileSystem(), atMost limit: Int? = nil)
        throws -> (bytes: [UInt8], isRegularFile: Bool)?
    {
        let parentWatch = ParentWatch.current.withLock { $0 }
        let stop = WaitStop(anyOf: [stopSignalsEndWaits] + (parentWatch.map { [$0.waitStop] } ?? []))
        do throws(FileSystemError) {
            return try fileSystem.readAnyFile(path, atMost: limit, stop: stop)
        } catch {
            if error.errno == ECANCELED {
                if let signal = StopSignals.stopSignal {
                    throw StoppedWhileWaiting(cause: .signal(signal), path: path)
                }
                if let parentWatch, parentWatch.hasExited {
                    throw StoppedWhileWaiting(cause: .parentExited(parentWatch.parent), path: path)
                }
            }
            throw error
        }
    }

    /// A wait that the stop signals end: their pipe becomes readable when one comes. What is read from it is
    /// only needed to know that the wait is over (the stop signal itself is kept apart); a SIGHUP read with it
    /// is one lumend ignores anyway.
    static var stopSignalsEndWaits: WaitStop {
        WaitStop(descriptor: StopSignals.readEnd) {
            _ = StopSignals.drain()
            return StopSignals.stopSignal != nil
        }
    }
}
