import Dispatch
import Foundation
import FlowCheckFakeServer
import Testing

/// Collects `stallObserver` calls and lets a test wait for the next one.
///
/// Usage:
/// ```swift
/// let stalls = StallLog()
/// let world = FakeProviderServer(provider: p, now: { clock.now }, stallObserver: { stalls.record($0) })
/// // ... send a request that stalls ...
/// #expect(stalls.waitForStall())
/// ```
final class StallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [HTTPRequest] = []
    private let arrivals = DispatchSemaphore(value: 0)

    func record(_ request: HTTPRequest) {
        lock.lock()
        requests.append(request)
        lock.unlock()
        arrivals.signal()
    }

    /// Paths of the stalled requests, in order.
    var paths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return requests.map(\.path)
    }

    /// Waits until one more stall has begun; false, with an issue naming this wait at the
    /// test's line, if none began within `seconds`. The bound only keeps a broken run from
    /// hanging; a passing run never comes near it.
    func waitForStall(within seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard arrivals.wait(timeout: .now() + seconds) == .success else {
            Issue.record("StallLog.waitForStall: no stall began within \(seconds) s", sourceLocation: sourceLocation)
            return false
        }
        return true
    }
}
