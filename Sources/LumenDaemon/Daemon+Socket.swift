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
    /// The listening sockets: the scope protocol's Unix socket, systemd's or one bound at `--socket` in a
    /// directory checked as the state directory is, and the HTTP listener's, when there is one (systemd's TCP
    /// socket, or one bound at `--http`). Returns them and the path lumend owns (and removes at stop), if it
    /// bound one.
    static func openSocket(options: DaemonOptions, logger: Logger) throws -> (
        fd: Int32, ownedPath: String?, httpFD: Int32?
    ) {
        let listenFD: Int32
        let ownedPath: String?
        // systemd may pass the Unix socket and the HTTP one (lumend-http.socket): each is told by its family.
        let passed = SystemdNotifier.listenFileDescriptors()
        let httpPassed = passed.first { TCPListener.isTCP($0) }
        let inherited = passed.filter { $0 != httpPassed }
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
        var httpFD = httpPassed
        if httpFD == nil, let address = options.httpAddress {
            do { httpFD = try TCPListener.listen(on: address) } catch {
                throw StartupError(description: "cannot listen for HTTP on \(address): \(error)")
            }
        }
        return (listenFD, ownedPath, httpFD)
    }
}
