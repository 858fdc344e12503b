import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

@Suite("Command tickets")
struct CommandTicketTests {
    /// Whoever reads a ticket on another thread finds it settled only once every observer told of it has run, so
    /// what an observer makes (a reply, say) is there for them; an observer added meanwhile is told after the others.
    @Test func aTicketReadsAsSettledOnlyOnceEveryObserverWasTold() {
        let ticket = CommandTicket()
        let seen = Locked<[String]>([])
        ticket.whenSettled { _ in
            seen.withLock { $0.append(ticket.settledResult == nil ? "told, not yet settled" : "told, settled") }
            ticket.whenSettled { _ in seen.withLock { $0.append("added while telling") } }
        }
        ticket.whenSettled { _ in seen.withLock { $0.append("told second") } }
        ticket.settle(.success(.factoryDefault))
        #expect(seen.withLock { $0 } == ["told, not yet settled", "told second", "added while telling"])
        #expect(ticket.settledResult != nil)
        // Settled: one added now is told at once, and a second settling is ignored.
        ticket.whenSettled { _ in seen.withLock { $0.append("told at once") } }
        ticket.settle(.failure(LumenError(.unreachable, "late")))
        #expect(seen.withLock { $0 }.last == "told at once")
        #expect((try? ticket.settledResult?.get()) == .factoryDefault)
    }
}
