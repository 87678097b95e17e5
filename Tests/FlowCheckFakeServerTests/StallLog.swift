import Foundation
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Collects `stallObserver` calls and lets a test wait for the next one, holding no thread.
///
/// Usage:
/// ```swift
/// let stalls = StallLog()
/// let world = FakeProviderServer(provider: p, now: { clock.now }, stallObserver: { stalls.record($0) })
/// // ... send a request that stalls ...
/// try await stalls.waitForStall()
/// ```
final class StallLog: Sendable {
    private struct State {
        var requests: [HTTPRequest] = []
        /// Stalls a `waitForStall()` has returned for.
        var awaited = 0
        var waiters: [@Sendable (Result<Void, any Error>) -> Void] = []
    }

    private let state = Locked(State())

    func record(_ request: HTTPRequest) {
        let waiter = state.withLock { state -> (@Sendable (Result<Void, any Error>) -> Void)? in
            state.requests.append(request)
            guard !state.waiters.isEmpty else { return nil }
            state.awaited += 1
            return state.waiters.removeFirst()
        }
        waiter?(.success(()))
    }

    /// Paths of the stalled requests, in order.
    var paths: [String] {
        state.withLock { $0.requests.map(\.path) }
    }

    /// Returns once one more stall has begun than this has returned for before.
    /// - Throws: ``WaitTimedOut`` ("StallLog.waitForStall: no stall began within L s") when
    ///   none began within `limit`, a bound that only keeps a broken run from hanging.
    func waitForStall(within limit: Duration = HangBound.standard) async throws {
        try await boundedWait("StallLog.waitForStall: no stall began", within: limit) { resume in
            let began = state.withLock { state -> Bool in
                guard state.requests.count > state.awaited else {
                    state.waiters.append(resume)
                    return false
                }
                state.awaited += 1
                return true
            }
            if began { resume(.success(())) }
        }
    }
}
