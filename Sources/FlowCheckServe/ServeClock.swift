import Foundation
import FlowCheckFakeServer

/// The virtual clock of `flowcheck serve`: it starts at the wall time and moves only when the
/// control API (or a `stall` fault's `clockAdvance`) moves it, so a person can put the fakes
/// past a token's expiry the way a spec's `advanceClock` step does. Every fake reads its time
/// from it: the personas take the time only as the `now` their server passes them.
public final class ServeClock: Sendable {
    private let current: Locked<Date>

    public init(start: Date) {
        current = Locked(start)
    }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock by `seconds` (the control API refuses to move it back).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
