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
    /// directory checked as the state directory is, and the HTTP and HTTPS listeners', when there are (systemd's
    /// TCP sockets, every one of them, or ones bound at `--http` and `--https`). Returns them and the path lumend
    /// owns (and removes at stop), if it bound one.
    static func openSocket(options: DaemonOptions, logger: Logger) throws -> (
        fd: Int32, ownedPath: String?, httpFDs: [Int32], httpsFDs: [Int32]
    ) {
        let listenFD: Int32
        let ownedPath: String?
        // systemd may pass the Unix socket, the HTTP one (lumend-http.socket) and the HTTPS one
        // (lumend-https.socket): the Unix one is told by its family, HTTPS from HTTP by its name. A unit with
        // more than one ListenStream= passes each: every one is served.
        let passed = SystemdNotifier.namedListenFileDescriptors()
        let tcp = passed.filter { TCPListener.isTCP($0.fd) }
        let httpsPassed = tcp.filter { Self.namesHTTPS($0.name) }.map(\.fd)
        let httpPassed = tcp.filter { !Self.namesHTTPS($0.name) }.map(\.fd)
        let inherited = passed.map(\.fd).filter { !httpPassed.contains($0) && !httpsPassed.contains($0) }
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
        var httpFDs = httpPassed
        var httpsFDs = httpsPassed
        do {
            if httpFDs.isEmpty, let address = options.httpAddress {
                do { httpFDs = [try TCPListener.listen(on: address)] } catch {
                    throw StartupError(description: "cannot listen for HTTP on \(address): \(error)")
                }
            }
            if httpsFDs.isEmpty, let address = options.httpsAddress {
                do { httpsFDs = [try TCPListener.listen(on: address)] } catch {
                    throw StartupError(description: "cannot listen for HTTPS on \(address): \(error)")
                }
            }
        } catch {
            // Nothing will be served: the socket file lumend bound goes (one systemd passed is systemd's).
            if let ownedPath { unlink(ownedPath) }
            throw error
        }
        return (listenFD, ownedPath, httpFDs, httpsFDs)
    }

    /// Whether a socket systemd passed under `name` is for HTTPS: `FileDescriptorName=https`, as
    /// lumend-https.socket sets, or a socket unit named for it that does not set one.
    static func namesHTTPS(_ name: String) -> Bool { name == "https" || name.hasSuffix("-https.socket") }
}
