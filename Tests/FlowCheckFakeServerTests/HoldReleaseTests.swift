import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer
import FlowCheckTestSupport

/// Held requests are numbered in holding order and answered one at a time, in any order
/// (`releaseHold(number:)`, a spec's `"release": LABEL`), while `clearFaults()` answers all.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HoldReleaseTests {
    /// The hold numbers the server told of, and those it is done with.
    final class Holds: Sendable {
        private let state = Locked<(held: [Int], ended: [Int], waiters: [(Int, @Sendable () -> Void)])>(([], [], []))

        func held(_ number: Int) { note { $0.held.append(number) } }
        func ended(_ number: Int) { note { $0.ended.append(number) } }
        var heldNumbers: [Int] { state.withLock { $0.held } }
        var endedNumbers: [Int] { state.withLock { $0.ended } }

        private func note(_ change: (inout (held: [Int], ended: [Int], waiters: [(Int, @Sendable () -> Void)])) -> Void) {
            let ready = state.withLock { state -> [@Sendable () -> Void] in
                change(&state)
                let count = state.held.count
                let due = state.waiters.filter { $0.0 <= count }.map(\.1)
                state.waiters.removeAll { $0.0 <= count }
                return due
            }
            ready.forEach { $0() }
        }

        /// Returns once `count` requests are held.
        func waitForHeld(_ count: Int) async throws {
            try await boundedWait("\(count) requests held", within: HangBound.standard) { (resume: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                let now = state.withLock { state -> Bool in
                    if state.held.count >= count { return true }
                    state.waiters.append((count, { resume(.success(())) }))
                    return false
                }
                if now { resume(.success(())) }
            }
        }
    }

    let clock = ManualClock()
    let holds = Holds()
    let world: FakeProviderServer

    init() {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [.init(id: "id", secret: "secret")]))
        world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now }, limits: .hangBounded,
                                   holdObserver: { [holds] _, number in holds.held(number) }, holdEndObserver: { [holds] in holds.ended($0) })
    }

    /// Sends the products request `n` on a connection of its own and returns once `n`
    /// requests are held.
    func held(_ n: Int) async throws -> RawConnection {
        let client = try await RawConnection.connect(port: world.port)
        try await client.send("GET /v1/products?n=\(n) HTTP/1.1\r\nHost: x\r\n\r\n")
        try await holds.waitForHeld(n)
        return client
    }

    @Test func heldRequestsAreAnsweredOneAtATimeInAnyOrder() async throws {
        try await world.serving {
            world.inject(Fault(.hold, path: "/v1/products", times: 2))
            let first = try await held(1)
            let second = try await held(2)
            #expect(holds.heldNumbers == [0, 1])
            #expect(world.exchanges.isEmpty, "a held request is recorded when it is answered")

            // The second first: only it is answered; the first stays held.
            #expect(world.releaseHold(number: 1))
            #expect(try await second.readResponse()?.status == 400)
            #expect(!(try await first.isReadable(within: .zero)))
            #expect(world.exchanges.map(\.request.target) == ["/v1/products?n=2"])

            #expect(world.releaseHold(number: 0))
            #expect(try await first.readResponse()?.status == 400)
            #expect(world.exchanges.map(\.request.target) == ["/v1/products?n=2", "/v1/products?n=1"])
            #expect(world.exchanges.allSatisfy { $0.fault == "hold" })
            // No such hold: nothing to answer.
            #expect(!world.releaseHold(number: 2))
        }
    }

    @Test func holdsKeepTheirNumbersWhenAnsweredOnesAreForgotten() async throws {
        try await world.serving {
            world.inject(Fault(.hold, path: "/v1/products", times: 2))
            let first = try await held(1)
            #expect(world.releaseHold(number: 0))
            #expect(try await first.readResponse()?.status == 400)
            // Done with: forgotten when the next request is held, its number still counted.
            let deadline = ContinuousClock.now + HangBound.standard
            while !holds.endedNumbers.contains(0), ContinuousClock.now < deadline { await Task.yield() }
            #expect(holds.endedNumbers == [0])
            let second = try await held(2)
            #expect(holds.heldNumbers == [0, 1])
            // Only the open hold is kept: the one done with was forgotten when this one was taken.
            #expect((world.responder as? ProviderResponder)?.holdsKept == 1)
            // The answered hold is known and has nothing left to answer; the held one waits.
            #expect(world.releaseHold(number: 0))
            #expect(!(try await second.isReadable(within: .zero)))
            #expect(world.releaseHold(number: 1))
            #expect(try await second.readResponse()?.status == 400)
            #expect(world.exchanges.map(\.request.target) == ["/v1/products?n=1", "/v1/products?n=2"])
            #expect(!world.releaseHold(number: 2))
            #expect(!world.releaseHold(number: -1))
        }
    }
}
