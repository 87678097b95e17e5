import Foundation
import FlowCheckFakeServer

/// The virtual clock of `flowcheck serve`: it starts at the wall time and moves only when the
/// control API (or a `stall` fault's `clockAdvance`) moves it, so a person can put the fakes
/// past a token's expiry the way a spec's `advanceClock` step does. Every fake reads its time
/// from it: the personas take the time only as the `now` their server passes them.
public final class ServeClock: Sendable {
    private let current: Locked<Date>
    /// The latest time the clock reaches: a hundred years after its start. Each move is at most
    /// ten years (the control API refuses more), but moves add up, and a clock a thousand years
    /// ahead dates every token past what ISO 8601 dates and the personas' arithmetic hold.
    public let horizon: Date

    /// How far past its start the clock may go.
    public static let span: TimeInterval = 100 * 365 * 86_400

    public init(start: Date) {
        current = Locked(start)
        horizon = start.addingTimeInterval(Self.span)
    }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds` if the whole move stays within ``horizon``,
    /// checked and made under one lock (two moves at once cannot both pass the check); it never
    /// goes back. - Returns: whether it moved (a move that is not a positive number of seconds,
    /// or would pass the horizon, leaves the clock where it was).
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Bool {
        guard seconds.isFinite, seconds > 0 else { return false }
        return current.withLock { now in
            let next = now.addingTimeInterval(seconds)
            guard next <= horizon else { return false }
            now = next
            return true
        }
    }

    /// Whether a move by `seconds` from now would stay within ``horizon`` (a stall's move, checked
    /// when it is armed and made when the stall begins).
    public func canAdvance(by seconds: TimeInterval) -> Bool {
        seconds.isFinite && seconds > 0 && now.addingTimeInterval(seconds) <= horizon
    }
}
