import Foundation

/// Since when a connection has waited for the first byte of its next request (nil while a
/// request is under way): how the server finds the longest-idle connection to close when a new
/// one arrives at its cap. Written by the connection's thread, read under the server's lock.
final class IdleMark: Sendable {
    private let since = Locked<ContinuousClock.Instant?>(nil)
    /// Set once the server has chosen this connection to close; it is never chosen twice.
    private let evicted = Locked(false)

    /// The connection waits for a request's first byte from now (from earlier, if it already
    /// did).
    func idle() { since.withLock { if $0 == nil { $0 = .now } } }

    /// A request is under way.
    func busy() { since.withLock { $0 = nil } }

    /// Since when the connection has been idle, unless it is already being closed.
    var idleSince: ContinuousClock.Instant? {
        evicted.withLock { $0 } ? nil : since.withLock { $0 }
    }

    /// Marks the connection as chosen; false if it was already.
    func evict() -> Bool {
        evicted.withLock { chosen in
            defer { chosen = true }
            return !chosen
        }
    }
}
