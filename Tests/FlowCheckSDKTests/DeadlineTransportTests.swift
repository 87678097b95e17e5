import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// Request deadlines on the injected clock: every wait here is on a `ManualClock`, moved by hand,
/// so nothing waits in real time and nothing depends on how fast the machine is.
@Suite("DeadlineTransport", .integration, .timeLimit(.minutes(20)))
struct DeadlineTransportTests {
    /// A request whose URL and body hold values no error may repeat.
    static let request = TransportRequest(
        method: "POST",
        url: URL(string: "http://127.0.0.1:9/oauth/access_token?code=C0DE-SECRET")!,
        body: Data("client_secret=S3CRET".utf8)
    )

    @Test("a server that never answers: .transport once the clock passes the deadline, and the send is cancelled")
    func neverAnswers() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock)
        let request = Task { try await transport.send(Self.request) }

        try await clock.waitForSleepers(count: 1)
        clock.advance(by: 31)

        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: request, waitingFor: "the request past its deadline")
        }
        #expect(error == OAuthError(code: .transport, message: "the server did not answer within 30 s"))
        for secret in ["C0DE-SECRET", "S3CRET", "127.0.0.1", "access_token"] {
            #expect(error?.description.contains(secret) == false)
        }
        // The race is structured: by the time send throws, the base send has ended by cancellation.
        #expect(held.sendCount == 1)
        #expect(held.cancelledCount == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test("the deadline fires exactly when the clock reaches it, not a moment before")
    func firesAtTheDeadline() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
        let request = Task { try await transport.send(Self.request) }

        try await clock.waitForSleepers(count: 1)
        clock.advance(by: 29)
        clock.advance(by: 0.999)
        // `advance` wakes due sleepers synchronously: one still pending means nothing fired.
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 0.001)

        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: request, waitingFor: "the request at its deadline")
        }
        #expect(error?.code == .transport)
        #expect(held.cancelledCount == 1)
    }

    @Test("advancing less than the timeout does not fire: a late answer still wins")
    func lessThanTheTimeout() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
        let request = Task { try await transport.send(Self.request) }

        try await clock.waitForSleepers(count: 1)
        clock.advance(by: 20)
        clock.advance(by: 9)
        #expect(clock.sleeperCount == 1)
        held.answer(.json(200, #"{"ok":true}"#))

        let response = try await boundedValue(of: request, waitingFor: "the request answered late")
        #expect(response.status == 200)
        #expect(response.body == Data(#"{"ok":true}"#.utf8))
        #expect(held.cancelledCount == 0)
        #expect(clock.sleeperCount == 0, "the deadline's sleep was cancelled and removed")
    }

    @Test("an answer before the deadline wins, and moving the clock afterwards changes nothing")
    func answerWins() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock)
        held.answer(.json(201, "{}"))

        let response = try await transport.send(Self.request)
        #expect(response.status == 201)
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 3600)
        #expect(held.sendCount == 1)
        #expect(held.cancelledCount == 0)
    }

    @Test("the base transport's own failure passes through unchanged")
    func baseFailurePassesThrough() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock)
        let refused = OAuthError(code: .transport, message: "could not connect to the server (URLError -1004)")
        held.answer(.failure(refused))

        let error = await #expect(throws: OAuthError.self) { try await transport.send(Self.request) }
        #expect(error == refused)
        #expect(clock.sleeperCount == 0)
    }

    @Test("cancelling the caller cancels the send and the deadline, and throws CancellationError")
    func callerCancellation() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock)
        let request = Task { try await transport.send(Self.request) }

        try await clock.waitForSleepers(count: 1)
        request.cancel()

        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: request, waitingFor: "the cancelled request")
        }
        #expect(clock.sleeperCount == 0)
        #expect(held.cancelledCount == held.sendCount, "a started send was cancelled, not left running")
    }

    struct TimeoutCase: CustomTestStringConvertible, Sendable {
        let timeout: TimeInterval
        let message: String
        var testDescription: String { "timeout \(timeout)" }
    }

    @Test("a timeout of zero or less has already passed: no clock movement needed", arguments: [
        TimeoutCase(timeout: 0, message: "the server did not answer within 0 s"),
        TimeoutCase(timeout: -5, message: "the server did not answer within 0 s"),
    ])
    func alreadyPassed(_ testCase: TimeoutCase) async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock, timeout: testCase.timeout)
        let error = await #expect(throws: OAuthError.self) { try await transport.send(Self.request) }
        #expect(error == OAuthError(code: .transport, message: testCase.message))
        #expect(held.cancelledCount == held.sendCount)
    }

    @Test("a fractional timeout is reported as written")
    func fractionalTimeout() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock, timeout: 2.5)
        let request = Task { try await transport.send(Self.request) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: 2.5)
        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: request, waitingFor: "the request past its 2.5 s deadline")
        }
        #expect(error?.message == "the server did not answer within 2.5 s")
    }

    @Test("concurrent requests each get their own deadline, measured from their own start")
    func concurrentRequests() async throws {
        let clock = ManualClock()
        let held = HeldTransport()
        let transport = DeadlineTransport(base: held, clock: clock, timeout: 30)
        let first = Task { try await transport.send(Self.request) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: 20)
        let second = Task { try await transport.send(Self.request) }
        try await clock.waitForSleepers(count: 2)

        clock.advance(by: 10)  // t = 30: only the first request's deadline
        await #expect(throws: OAuthError.self) {
            try await boundedValue(of: first, waitingFor: "the first request past its deadline")
        }
        #expect(clock.sleeperCount == 1)

        clock.advance(by: 20)  // t = 50: the second's
        await #expect(throws: OAuthError.self) {
            try await boundedValue(of: second, waitingFor: "the second request past its deadline")
        }
        #expect(clock.sleeperCount == 0)
        #expect(held.cancelledCount == 2)
    }

    /// The real fake stalls the products request (`FaultKind.stall`): no answer ever comes, and
    /// the deadline ends it, socket-free and over loopback.
    @Test("an OAuth client behind it gets .transport and keeps its token", arguments: FakeTransportMode.allCases)
    func clientBehindDeadline(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode, deadline: 30)
        let token = try await world.authenticate()
        world.server.inject(Fault(kind: .stall, path: FakeMoltin.productsPath, times: 1))

        let client = world.client
        let products = Task { try await client.products() }
        try await world.clock.waitForSleepers(count: 1)
        try await world.wiring.stalled.wait()
        world.clock.advance(by: 31)

        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: products, waitingFor: "products() on a stalled request past its deadline")
        }
        #expect(error?.code == .transport)
        #expect(error?.message == "the server did not answer within 30 s")
        #expect(try await client.currentToken() == token)
        world.server.clearFaults()
    }
}

/// The protocol's default `sleep(until:)`, as a time source that only tells the time gets it.
@Suite("TimeSource default sleep", .integration, .timeLimit(.minutes(20)))
struct TimeSourceDefaultSleepTests {
    /// A time source written before `sleep(until:)` existed: it still conforms.
    struct FrozenClock: TimeSource {
        let now: Date
    }

    @Test("a deadline already reached returns at once")
    func reachedDeadline() async throws {
        let clock = FrozenClock(now: Date(timeIntervalSince1970: 1_000))
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: Date(timeIntervalSince1970: 0))
        try await SystemTimeSource().sleep(until: .distantPast)
    }

    @Test("cancellation ends a wait for a far deadline with CancellationError")
    func cancellation() async throws {
        let clock = FrozenClock(now: Date(timeIntervalSince1970: 1_000))
        let wait = Task { try await clock.sleep(until: .distantFuture) }
        wait.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: wait, waitingFor: "a cancelled sleep until .distantFuture")
        }
    }

    @Test("a task already cancelled does not wait, even for a reached deadline")
    func alreadyCancelled() async throws {
        let clock = SystemTimeSource()
        let wait = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: .distantPast)
        }
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: wait, waitingFor: "a sleep in an already cancelled task")
        }
    }
}
