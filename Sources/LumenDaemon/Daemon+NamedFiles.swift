import LumenService
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// A stop signal came while start-up waited on a file the user named (a FIFO's writer, or what it
    /// writes): a stop during start-up, which ends it cleanly.
    struct StoppedWhileWaiting: Error, CustomStringConvertible {
        /// The stop signal's number.
        var signal: Int32
        /// The file waited on.
        var path: String

        var description: String { "stopped by signal \(signal) while waiting for \(path) to be written" }
    }

    /// The contents of a file the user named, and whether it is a regular file; `nil` when it does not exist.
    ///
    /// A FIFO, a pipe or a device is read as it comes, and may keep lumend waiting for a writer or for its
    /// bytes; SIGTERM or SIGINT ends the wait, however early it came.
    /// - Parameters:
    ///   - fileSystem: what reads it, and its bound on what it reads.
    ///   - limit: read at most this many bytes (the first of a longer file).
    /// - Throws: ``StoppedWhileWaiting`` when a stop signal ended the wait; the `FileSystemError` of a read
    ///   that failed otherwise.
    static func readNamedFile(_ path: String, fileSystem: PosixFileSystem = PosixFileSystem(), atMost limit: Int? = nil)
        throws -> (bytes: [UInt8], isRegularFile: Bool)?
    {
        do throws(FileSystemError) {
            return try fileSystem.readAnyFile(path, atMost: limit, stop: stopSignalsEndWaits)
        } catch {
            if error.errno == ECANCELED, let signal = StopSignals.stopSignal {
                throw StoppedWhileWaiting(signal: signal, path: path)
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
