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
    /// The listening socket: the one systemd passed, or one bound at `--socket` in a directory checked as the
    /// state directory is. Returns it and the path lumend owns (and removes at stop), if it bound one.
    static func openSocket(options: DaemonOptions, logger: Logger) throws -> (fd: Int32, ownedPath: String?) {
        let listenFD: Int32
        let ownedPath: String?
        let inherited = SystemdNotifier.listenFileDescriptors()
        if let fd = inherited.first {
            guard UnixSocket.isListeningStreamSocket(fd) else {
                throw StartupError(description: "systemd passed fd \(fd), which is not a listening stream socket")
            }
            listenFD = fd
            ownedPath = nil
            logger.info("serving on the socket systemd passed", [("fd", String(fd))])
        } else {
            // Created and checked as the state directory is; the socket is bound by its path, which only this
            // user and root can change once the check has passed.
            do { _ = try TrustedDirectory(opening: PosixFileSystem.directory(of: options.socketPath)) } catch {
                throw StartupError(description: "will not listen on \(options.socketPath): \(error)")
            }
            do {
                listenFD = try UnixSocket.listen(at: options.socketPath)
            } catch {
                throw StartupError(description: error.description)
            }
            ownedPath = options.socketPath
        }
        return (listenFD, ownedPath)
    }
}
