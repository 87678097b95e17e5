import Foundation

/// Since when a connection has waited for the first byte of its next request (nil while a
/// request is under way): how the server finds the longest-idle connection to close when a new
/// one arrives at its cap. Written by the connection's thread, read under the server's lock.
final class IdleMark: Sendable {
    /// Since when it has been idle, and whether the server has chosen it to close (it is
    /// never chosen twice).
    private let state = Locked<(since: ContinuousClock.Instant?, evicted: Bool)>((nil, false))

    /// The connection waits for a request's first byte from now (from earlier, if it already
    /// did).
    func idle() { state.withLock { if $0.since == nil { $0.since = .now } } }

    /// A request is under way.
    func busy() { state.withLock { $0.since = nil } }

    /// Since when the connection has been idle, unless it is already being closed.
    var idleSince: ContinuousClock.Instant? {
        state.withLock { $0.evicted ? nil : $0.since }
    }

    /// Marks the connection as chosen, if it is still idle and not chosen already: its thread
    /// marks it busy before it takes a byte of a request, so a connection chosen here has taken
    /// none.
    func evict() -> Bool {
        state.withLock { state in
            guard state.since != nil, !state.evicted else { return false }
            state.evicted = true
            return true
        }
    }
}
