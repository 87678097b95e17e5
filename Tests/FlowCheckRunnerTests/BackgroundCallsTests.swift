import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckTestLanes
@testable import FlowCheckRunner

/// An `async` step goes on only once its call is on its way to the SDK: a driver process reads
/// its stdin in order, so a question the next step asks (MLT-SHARED-RENEWAL's `store` check)
/// must be written after the call, or the held renewal it guards could be answered before the
/// driver has even read the call, and a client that renews twice would pass.
@Suite(.fast, .timeLimit(.minutes(20)))
struct BackgroundCallsTests {
    @Test func anAsyncStepGoesOnOnlyOnceItsCallIsUnderWay() async throws {
        let calls = BackgroundCalls()
        let gate = Locked<CheckedContinuation<Void, Never>?>(nil)
        let opened = Locked(false)
        let returned = Locked(false)
        let starter = Task {
            await calls.start("second", firstExchange: 0, waitForHold: false) { underway in
                // The call task has begun, but its message is not written yet.
                await withCheckedContinuation { continuation in
                    let openNow = gate.withLock { waiting -> Bool in
                        if opened.withLock({ $0 }) { return true }
                        waiting = continuation
                        return false
                    }
                    if openNow { continuation.resume() }
                }
                underway()
                return .ok([:])
            }
            returned.withLock { $0 = true }
        }
        // However long the call takes to get under way, the step waits for it.
        for _ in 0..<200 { await Task.yield() }
        #expect(!returned.withLock { $0 }, "the async step went on before its call was under way")
        opened.withLock { $0 = true }
        gate.withLock { waiting -> CheckedContinuation<Void, Never>? in
            defer { waiting = nil }
            return waiting
        }?.resume()
        await starter.value
        #expect(returned.withLock { $0 })
        let joined = try await calls.join("second")
        #expect(joined?.outcome == .ok([:]))
    }
}
