import Foundation
import LumenClient
import LumenModel
import LumenTestSupport
import Testing

/// A peer that answers the first request with the lines given, in one write: what a daemon does when a
/// value changes right after it answered a `subscribe`.
final class ScriptedPeer: Sendable {
    let directory = TemporaryDirectory()
    var path: String { directory.file("peer.sock") }

    init(answer: @escaping @Sendable (Int) -> String) throws {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress.with(directory.file("peer.sock")) { bind(listener, $0, $1) }
        listen(listener, 1)
        Thread {
            let fd = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 4_096)
            var received: [UInt8] = []
            while !received.contains(0x0A) {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { return }
                received += buffer[0..<count]
            }
            let request = try? JSONParser.parse(Array(received.prefix { $0 != 0x0A }))
            let lines = Array(answer(request?["id"]?.intValue ?? 0).utf8)
            _ = lines.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // Keep the connection open until the test is done with it.
            _ = read(fd, &buffer, buffer.count)
            close(fd)
            close(listener)
        }.start()
    }
}

@Suite("LumenClient subscriptions", .timeLimit(.minutes(1)))
struct ClientSubscriptionTests {
    @Test func aChangeRightBehindTheSubscribeReplyIsNotDropped() async throws {
        for _ in 0..<20 {
            let peer = try ScriptedPeer { id in
                #"{"jsonrpc":"2.0","id":\#(id),"result":{"subscription":7,"value":1,"seq":1}}"# + "\n"
                    + #"{"jsonrpc":"2.0","method":"changed","params":{"subscription":7,"value":2,"seq":2}}"# + "\n"
            }
            let client = try await LumenClient.connect(to: peer.path)
            let subscription = try await client.subscribe("brightness", in: .root)
            var iterator = subscription.makeAsyncIterator()
            #expect(try await iterator.next() == 1)
            #expect(try await iterator.next() == 2)
            client.disconnect()
        }
    }
}
