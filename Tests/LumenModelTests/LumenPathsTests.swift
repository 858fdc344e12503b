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

    @Test func aStickyWorldWritableDirectoryIsTrusted() throws {
        let (parent, path) = try directory(mode: 0o1777)
        #expect(LumenPaths.unsafeDirectoryReason(path) == nil)
        withExtendedLifetime(parent) {}
    }

    @Test func aDirectoryOthersMayWriteIsNot() throws {
        let (parent, path) = try directory(mode: 0o777)
        let reason = try #require(LumenPaths.unsafeDirectoryReason(path))
        #expect(reason.contains("writable by other users (mode 777)"))
        #expect(reason.contains("chmod go-w \(path)"))
        withExtendedLifetime(parent) {}
    }

    @Test func aDirectoryAnotherUserOwnsIsNot() throws {
        guard geteuid() == 0 else {
            print("SKIPPED: a directory another user owns: making one needs root")
            return
        }
        let (parent, path) = try directory(mode: 0o700, owner: 65_534)
        let reason = try #require(LumenPaths.unsafeDirectoryReason(path + "/lumend.sock.d"))
        #expect(reason.contains("belongs to uid 65534"))
        withExtendedLifetime(parent) {}
    }
}
