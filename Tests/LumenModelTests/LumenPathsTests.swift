import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@Suite("Directories lumend may trust")
struct LumenPathsTests {
    func directory(mode: Int, owner: UInt32? = nil) throws -> (TemporaryDirectory, String) {
        let parent = TemporaryDirectory()
        let path = parent.file("runtime")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, mode_t(mode))
        if let owner { chown(path, owner, gid_t(owner)) }
        return (parent, path)
    }

    @Test func aPrivateDirectoryIsTrusted() throws {
        let (parent, path) = try directory(mode: 0o700)
        #expect(LumenPaths.unsafeDirectoryReason(path) == nil)
        #expect(LumenPaths.unsafeDirectoryReason(path + "/not/made/yet") == nil)
        withExtendedLifetime(parent) {}
    }

    @Test func aStickyWorldWritableDirectoryIsTrustedAboveButNotItself() throws {
        let (parent, path) = try directory(mode: 0o1777)
        #expect(LumenPaths.unsafeDirectoryReason(path + "/mine") == nil)
        let reason = try #require(LumenPaths.unsafeDirectoryReason(path))
        #expect(reason.contains("even sticky"))
        withExtendedLifetime(parent) {}
    }

    @Test func aDirectoryOthersMayWriteIsNot() throws {
        let (parent, path) = try directory(mode: 0o777)
        let reason = try #require(LumenPaths.unsafeDirectoryReason(path))
        #expect(reason.contains("writable by other users (mode 777)"))
        #expect(reason.contains("chmod go-w \(path)"))
        withExtendedLifetime(parent) {}
    }

    @Test(.enabled(if: geteuid() == 0, "making a directory another user owns needs root"))
    func aDirectoryAnotherUserOwnsIsNot() throws {
        let (parent, path) = try directory(mode: 0o700, owner: 65_534)
        let reason = try #require(LumenPaths.unsafeDirectoryReason(path + "/lumend.sock.d"))
        #expect(reason.contains("belongs to uid 65534"))
        withExtendedLifetime(parent) {}
    }
}

@Suite("One set of paths")
struct DefaultPathTests {
    @Test func rootUsesTheSystemsDirectoriesAndAUserTheirOwn() {
        let environment = [
            "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/home/ann/.state", "HOME": "/home/ann",
        ]
        #expect(LumenPaths(environment: environment, uid: 0) == .system)
        #expect(LumenPaths.system.socketPath == "/run/lumend/lumend.sock")
        #expect(LumenPaths.system.stateDirectory == "/var/lib/lumend")
        let user = LumenPaths(environment: environment, uid: 1_000)
        #expect(user.socketPath == "/run/user/1000/lumend/lumend.sock")
        #expect(user.stateDirectory == "/home/ann/.state/lumend")
        let bare = LumenPaths(environment: ["HOME": "/home/ann"], uid: 1_000)
        #expect(bare.stateDirectory == "/home/ann/.local/state/lumend")
        #expect(bare.socketPath == "/tmp/lumend-1000/lumend.sock")
    }

    @Test func systemdsDirectoriesComeFirstForEveryone() {
        let environment = ["STATE_DIRECTORY": "/var/lib/lumend-lab:/other", "RUNTIME_DIRECTORY": "/run/lumend-lab"]
        for uid: UInt32 in [0, 1_000] {
            let paths = LumenPaths(environment: environment, uid: uid)
            #expect(paths.stateDirectory == "/var/lib/lumend-lab")
            #expect(paths.socketPath == "/run/lumend-lab/lumend.sock")
        }
    }

    @Test func aClientTriesItsOwnSocketThenTheSystemsUnlessOneIsNamed() {
        let user = LumenPaths.socketCandidates(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1_000)
        #expect(user.map(\.path) == ["/run/user/1000/lumend/lumend.sock", "/run/lumend/lumend.sock"])
        #expect(user.map(\.origin) == [.user, .system])
        let named = LumenPaths.socketCandidates(environment: ["LUMEN_SOCKET": "/srv/l.sock"], uid: 1_000)
        #expect(named == [.init(path: "/srv/l.sock", origin: .environment)])
        // Root without a session of its own has the one, system, socket.
        #expect(LumenPaths.socketCandidates(environment: [:], uid: 0).map(\.path).contains("/run/lumend/lumend.sock"))
    }

    @Test func theSystemsSocketMayBelongToASystemAccountAUsersMayNot() {
        #expect(LumenPaths.isSystemAccount(0) && LumenPaths.isSystemAccount(999) && LumenPaths.isSystemAccount(61_184))
        #expect(!LumenPaths.isSystemAccount(1_000) && !LumenPaths.isSystemAccount(65_534))
    }
}
