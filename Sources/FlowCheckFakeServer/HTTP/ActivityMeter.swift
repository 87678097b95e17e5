import Foundation

/// Counts what a server has done (connections accepted, reads that brought bytes, answers
/// written), so a watchdog can tell a flow that is slow from one that is stuck: a count that
/// moves is progress, whatever the wall clock says. A deliberate stall or hold ticks nothing.
///
/// ```swift
/// let before = server.activity
/// // ... later, on the watchdog's thread
/// let moved = server.activity != before
/// ```
public final class ActivityMeter: Sendable {
    private let count = Locked(0)

    public init() {}

    /// Records one unit of progress.
    public func tick() {
        count.withLock { $0 &+= 1 }
    }

    /// How many units so far; only its changes mean anything.
    public var value: Int {
        count.withLock { $0 }
    }
}
