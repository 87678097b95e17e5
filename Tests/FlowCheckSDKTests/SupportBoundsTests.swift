import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The test helpers' own bounds: a wait nobody ends fails the test by name, never hangs it.
@Suite("Test helpers fail by name at their bounds", .timeLimit(.minutes(5)))
struct SupportBoundsTests {
    @Test("a gate nobody opens fails the test naming the gate, and throws WaitTimedOut")
    func gateBound() async throws {
        let gate = Gate("never opened")
        let thrown = Locked<(any Error)?>(nil)
        await withKnownIssue("the gate records its own timeout") {
            do {
                try await gate.wait(within: .milliseconds(50))
            } catch {
                thrown.set(error)
            }
        } matching: { issue in
            issue.description.contains("Gate 'never opened': not opened within 0.05 s")
        }
        #expect((thrown.value as? WaitTimedOut)?.description == "Gate 'never opened': not opened within 0.05 s")
        // Opened afterwards, it lets the next waiter through at once.
        gate.open()
        try await gate.wait(within: .milliseconds(50))
    }

    @Test("a held send nobody answers or cancels throws WaitTimedOut naming the send")
    func heldTransportBound() async throws {
        let held = HeldTransport(limit: .milliseconds(50))
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let error = await #expect(throws: WaitTimedOut.self) { try await held.send(TransportRequest(url: url)) }
        #expect(error?.description == "HeldTransport: send #1 neither answered nor cancelled within 0.05 s")
        #expect(held.cancelledCount == 0)
        // The timed-out send no longer waits: an answer now goes to the next send.
        held.answer(TransportResponse(status: 204))
        #expect(try await held.send(TransportRequest(url: url)).status == 204)
    }

    @Test("a bounded wait that is answered in time returns the answer")
    func boundedWaitAnswered() async throws {
        let value = try await boundedWait("answer", within: .seconds(30)) { resume in
            DispatchQueue.global().async { resume(.success(42)) }
        }
        #expect(value == 42)
    }
}

/// A value shared with a closure that may run elsewhere.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func set(_ value: Value) {
        lock.lock()
        stored = value
        lock.unlock()
    }
}
