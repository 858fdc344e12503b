import LumenHue
import LumenServer
import LumenService
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// lumend's own certificate and key in the state directory, for HTTPS when none is given.
    static let certificateFileName = "tls-certificate.pem"
    static let keyFileName = "tls-key.pem"

    /// The certificate and key HTTPS presents: the files `--tls-certificate` and `--tls-key` name, else lumend's
    /// own in the state directory, made at first start (self-signed, its subject the bridge ID in lower case, as
    /// a Hue bridge's is) and kept for later starts; made anew when the bridge ID is no longer its subject (the
    /// home's fixture changed) or the pair cannot be used.
    /// - Throws: ``StartupError`` when the given files cannot be read or are not a certificate and its key, or
    ///   lumend's own cannot be made or saved.
    static func tlsCredentials(options: DaemonOptions, state: OpenedState, logger: Logger) throws -> TLSCredentials {
        if let certificatePath = options.tlsCertificateFile, let keyPath = options.tlsKeyFile {
            let certificate = try readTLSFile(certificatePath, what: "certificate (--tls-certificate)")
            let key = try readTLSFile(keyPath, what: "key (--tls-key)")
            warnIfOthersCanRead(key: keyPath, logger: logger)
            do { return try TLSCredentials(certificatePEM: certificate, keyPEM: key) } catch {
                throw StartupError(
                    description: "cannot use the certificate \(certificatePath) with the key \(keyPath): \(error)")
            }
        }
        let bridgeID = HueBridge.bridgeID(homeID: state.home.fixtureID).lowercased()
        let directory = options.stateDirectory
        let fileSystem = PosixFileSystem(anchor: (directory, state.directory.descriptor))
        let certificatePath = "\(directory)/\(certificateFileName)"
        let keyPath = "\(directory)/\(keyFileName)"
        var why = "there was none"
        do {
            if let certificate = try fileSystem.readFile(certificatePath), let key = try fileSystem.readFile(keyPath) {
                let credentials = try TLSCredentials(certificatePEM: certificate, keyPEM: key)
                if credentials.commonName == bridgeID {
                    warnIfOthersCanRead(key: keyPath, logger: logger)
                    return credentials
                }
                why = "the one there names \(credentials.commonName), not this bridge"
            }
        } catch {
            // lumend's own files, which no one is meant to edit: a pair that cannot be used is replaced.
            why = "the one there cannot be used (\(error))"
        }
        let certificate: [UInt8]
        let key: [UInt8]
        let credentials: TLSCredentials
        do {
            (certificate, key) = try TLSCredentials.selfSigned(commonName: bridgeID)
            credentials = try TLSCredentials(certificatePEM: certificate, keyPEM: key)
        } catch {
            throw StartupError(description: "cannot make a TLS certificate for HTTPS: \(error)")
        }
        do {
            // Each written whole under a temporary name and renamed into place, so that a crash leaves either
            // file old or new, never torn; the key readable by lumend's user alone. A crash between the renames
            // leaves a pair that does not match, which the next start replaces.
            for (path, bytes, mode) in [(keyPath, key, UInt32(0o600)), (certificatePath, certificate, 0o644)] {
                try fileSystem.writeDurably(bytes, to: path + ".new", mode: mode)
                try fileSystem.rename(path + ".new", to: path)
            }
            try fileSystem.fsyncDirectory(directory)
        } catch {
            throw StartupError(description: "cannot save the TLS certificate for HTTPS in \(directory): \(error)")
        }
        logger.notice(
            "made a self-signed TLS certificate for HTTPS, its subject the bridge ID \(bridgeID) (\(why))",
            [("certificate", certificatePath)])
        return credentials
    }

    /// Warns, as sshd does of its host keys, when the private key's file may be read by its group or by anyone:
    /// whoever reads it can pose as the bridge to its apps.
    static func warnIfOthersCanRead(key path: String, logger: Logger) {
        guard let mode = keyFileMode(path), mode & 0o077 != 0 else { return }
        logger.warning(
            "the TLS key \(path) can be read by its group or others (mode \(String(mode & 0o777, radix: 8))): "
                + "whoever reads it can pose as this bridge; chmod 600 it",
            [("key", path)])
    }

    /// The permission bits of the file at `path`; `nil` when it cannot be looked at.
    static func keyFileMode(_ path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt32(status.st_mode) & 0o7777
    }

    /// The whole of a certificate or key file someone gave.
    private static func readTLSFile(_ path: String, what: String) throws -> [UInt8] {
        let bytes: [UInt8]?
        do { bytes = try readNamedFile(path, fileSystem: PosixFileSystem(maxReadBytes: 1 << 20))?.bytes } catch let
            error as FileSystemError
        {
            throw StartupError(description: "cannot read the TLS \(what) \(path): \(error)")
        }
        guard let bytes else { throw StartupError(description: "the TLS \(what) \(path) does not exist") }
        return bytes
    }
}
