import Foundation
import LumenClient
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// A peer that answers the first request after the client's hello with the lines given, in one write: what a daemon does when a
/// value changes right after it answered a `subscribe`.
final class ScriptedPeer: Sendable {
    let directory = TemporaryDirectory()
    var path: String { directory.file("peer.sock") }

    init(answer: @escaping @Sendable (Int) -> String) throws {
        let listener = try UnixSocket.listen(at: directory.file("peer.sock"))
        Thread {
            let fd = accept(listener, nil, nil)
            var reader = LineReader(fd: fd)
            var request: JSONValue?
            // The client's hello, which it says as it connects, is answered first.
            repeat {
                guard let line = try? reader.next() else { return }
                request = try? JSONParser.parse(line)
                if request?["method"] == "hello" {
                    let id = request?["id"]?.intValue ?? 0
                    UnixSocket.sendAll(
                        fd, Array(#"{"jsonrpc":"2.0","id":\#(id),"result":{"server":"lumend"}}"#.utf8 + [10]))
                }
            } while request?["method"] == "hello"
            UnixSocket.sendAll(fd, Array(answer(request?["id"]?.intValue ?? 0).utf8))
            // Keep the connection open until the test is done with it.
            _ = try? reader.next()
            UnixSocket.close(fd)
            UnixSocket.close(listener)
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
