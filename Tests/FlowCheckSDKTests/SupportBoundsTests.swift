import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
@testable import FlowCheckTestSupport

/// The test helpers' own bounds: a wait nobody ends fails the test by name, never hangs it.
@Suite("Test helpers fail by name at their bounds", .fast, .timeLimit(.minutes(20)))
struct SupportBoundsTests {
    @Test("a gate nobody opens fails the test naming the gate, and throws WaitTimedOut")
    func gateBound() async throws {
        let gate = Gate("never opened")
        let thrown = Locked<(any Error)?>(nil)
        await withKnownIssue("the gate records its own timeout") {
            do {
                try await gate.wait(within: .milliseconds(50))
            } catch {
                thrown.withLock { $0 = error }
            }
        } matching: { issue in
            issue.description.contains("Gate 'never opened': not opened within 0.05 s")
        }
        #expect((thrown.withLock { $0 } as? WaitTimedOut)?.description == "Gate 'never opened': not opened within 0.05 s")
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
            Thread.detachNewThread { resume(.success(42)) }
        }
        #expect(value == 42)
    }

    @Test("boundedValue returns a finished task's value, and rethrows its error unchanged")
    func boundedValueFinished() async throws {
        let answered = Task { 42 }
        #expect(try await boundedValue(of: answered, waitingFor: "answer") == 42)
        let failing = Task { throw OAuthError(code: .transport, message: "refused") }
        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: failing, waitingFor: "failure")
        }
        #expect(error == OAuthError(code: .transport, message: "refused"))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try Task.checkCancellation()
        }
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: cancelled, waitingFor: "cancelled")
        }
    }

    /// The case `await task.value` cannot handle: a task that never finishes on its own.
    @Test("boundedValue of a task that never finishes throws WaitTimedOut naming it, and cancels it")
    func boundedValueBound() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .distantFuture) }
        try await clock.waitForSleepers(count: 1)
        let error = await #expect(throws: WaitTimedOut.self) {
            try await boundedValue(of: sleeper, within: .milliseconds(50), waitingFor: "a sleep nobody ends")
        }
        #expect(error?.description == "Task 'a sleep nobody ends': not finished within 0.05 s")
        #expect(sleeper.isCancelled, "the task the wait gave up on is cancelled")
        // The cancel reached the sleeper: it is gone from the clock, having thrown.
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: sleeper, waitingFor: "the sleeper after its cancel")
        }
        #expect(clock.sleeperCount == 0)
    }

    /// What a Swift Testing time limit does: it cancels the test's task, and the wait must end.
    @Test("boundedValue ends when its caller is cancelled, and cancels the task it awaited")
    func boundedValueCallerCancelled() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .distantFuture) }
        try await clock.waitForSleepers(count: 1)
        let caller = Task {
            try await boundedValue(of: sleeper, waitingFor: "a sleep nobody ends")
        }
        caller.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: caller, waitingFor: "the cancelled caller")
        }
        #expect(sleeper.isCancelled)
    }

    // MARK: - Where the waiting happens

    /// The point of the deadline thread: a timer on Dispatch's global queues (the pool's own
    /// threads on Linux) would not fire while tests block the pool.
    @Test("deadlines fire on the timer's own thread, earliest first, and a cancelled one never")
    func deadlinesFireOnTheirOwnThread() async throws {
        let fired = Locked<[(name: String, onTimerThread: Bool)]>([])
        let done = OneShot<Void>()
        let timer = DeadlineTimer.shared
        // Every deadline from one instant, half a second apart: however slowly this task is
        // scheduled, the order is the deadlines' (only a pause of half a second between two
        // lines could let one fire before the next is scheduled).
        let now = ContinuousClock.now
        _ = timer.schedule(at: now + .milliseconds(1500)) {
            fired.withLock { $0.append(("third", Thread.current === timer.thread)) }
            done.fulfil(.success(()))
        }
        let cancelled = timer.schedule(at: now + .milliseconds(750)) { fired.withLock { $0.append(("cancelled", Thread.current === timer.thread)) } }
        _ = timer.schedule(at: now + .milliseconds(500)) { fired.withLock { $0.append(("first", Thread.current === timer.thread)) } }
        _ = timer.schedule(at: now + .milliseconds(1000)) { fired.withLock { $0.append(("second", Thread.current === timer.thread)) } }
        timer.cancel(cancelled)
        try await done.value("the last deadline: not fired")
        let record = fired.withLock { $0 }
        #expect(record.map(\.name) == ["first", "second", "third"])
        #expect(record.allSatisfy { $0.onTimerThread }, "\(record)")
    }

    /// Blocking jobs that wait for each other finish only if each has a thread at once: more
    /// of them than the pool has threads would deadlock a pool, or any bounded set of threads.
    @Test("offThePool gives every job a thread of its own at once, never a queue")
    func offThePoolNeverQueues() async throws {
        let count = 4 * ProcessInfo.processInfo.activeProcessorCount + 2
        let arrived = DispatchGroup()
        for _ in 0..<count { arrived.enter() }
        let jobs = Task {
            try await withThrowingTaskGroup(of: ObjectIdentifier?.self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await offThePool("job \(index)") {
                            arrived.leave()
                            // Each job waits until every job has started.
                            guard arrived.wait(timeout: .now() + HangBound.seconds) == .success else { return nil }
                            return ObjectIdentifier(Thread.current)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let names = try await boundedValue(of: jobs, waitingFor: "\(count) jobs that wait for each other")
        #expect(names.count == count)
        #expect(!names.contains(nil), "a job gave up waiting for the others")
        #expect(Set(names).count == count, "jobs shared a thread")
    }
}
