import LumenModel
import LumenProtocol
import LumenScopes
import LumenTestSupport
import Testing

@testable import LumenServer
@testable import LumenSimulation

@Suite("In-process sessions", .timeLimit(.minutes(1)))
struct InProcessSessionTests {
    static func line(_ id: Int, _ method: String, _ params: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{\#(params)}}"#.utf8) + [0x0A]
    }

    /// A session with no socket hears of changes to what it subscribed to, as a connection's session does.
    @Test func aSubscriptionHearsOfAChange() async throws {
        let home = Home(fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .real)
        let session = InProcessSession(scopeContext: ScopeContext(home: home))
        _ = await session.feed(Self.line(1, "open", #""scope":0,"connection":"room","configuration":"lab""#))
        _ = await session.feed(Self.line(2, "open", #""scope":1,"connection":"light","configuration":"lab.plug""#))
        let subscribed = String(
            decoding: await session.feed(Self.line(3, "subscribe", #""scope":2,"connection":"isOn""#)), as: UTF8.self)
        #expect(subscribed.contains(#""value":false"#), "\(subscribed)")
        // The light is instant: its change is made, and its notice queued, before the write is answered.
        let output = String(
            decoding: await session.feed(Self.line(4, "set", #""scope":2,"connection":"isOn","value":true"#)),
            as: UTF8.self)
        #expect(output.contains(#""method":"changed""#), "\(output)")
        #expect(output.contains(#""value":true"#), "\(output)")
        await session.close()
        await home.shutDown()
    }

    /// A closed session is no longer told of the home's changes.
    @Test func closingASessionStopsItsWatching() async throws {
        let home = Home(fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .real)
        let session = InProcessSession(scopeContext: ScopeContext(home: home))
        _ = await session.feed(Self.line(1, "hello", ""))
        #expect(await home.listeners.watcherCount == 1)
        await session.close()
        #expect(await home.listeners.watcherCount == 0)
        await home.shutDown()
    }
}
