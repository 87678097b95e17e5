import Foundation

/// Time source injected into the SDK.
///
/// Every expiry decision reads `now` from here, never from `Date()`, and every wait (a request
/// deadline) goes through `sleep(until:)`, so tests and flow specs can move a virtual clock by
/// hand ("61 minutes later" costs nothing, and a 30-second timeout fires without 30 seconds
/// passing). It is not named `Clock` because that would collide with `Swift.Clock`.
public protocol TimeSource: Sendable {
    /// The current instant as this time source sees it.
    var now: Date { get }

    /// Suspends until this time source reaches `deadline`.
    ///
    /// A requirement with a default (a real `Task.sleep`), so a time source that only tells the
    /// time still conforms; a virtual clock implements it so that a wait ends when the clock is
    /// moved past `deadline`, not when real time passes.
    /// - Parameter deadline: The instant to wait for; one already reached returns at once.
    /// - Throws: `CancellationError` when the calling task is cancelled before the deadline.
    func sleep(until deadline: Date) async throws

    /// Waits until `deadline` because the SDK chose to wait (a server's `Retry-After`, a
    /// backoff), as opposed to ``sleep(until:)``, which bounds something else (a request's
    /// deadline) and ends when time passes for other reasons.
    ///
    /// A requirement with a default (``sleep(until:)``), so the wall clock waits real seconds.
    /// A virtual clock that runs a flow lets its time pass at once instead, as far as the flow
    /// allows: the wait is the SDK's own, so nothing else has to move the clock for it.
    /// - Parameter deadline: The instant to wait for; one already reached returns at once.
    /// - Throws: `CancellationError` when the calling task is cancelled; a virtual clock may
    ///   throw its own error when it refuses to let that much time pass.
    func pause(until deadline: Date) async throws
}

extension TimeSource {
    /// Waits as ``sleep(until:)`` does: right for the wall clock, where a chosen wait and a
    /// deadline both pass in real time.
    public func pause(until deadline: Date) async throws {
        try await sleep(until: deadline)
    }

    /// Sleeps on the wall clock for the interval between `now` and `deadline`, measured once.
    ///
    /// Right for `SystemTimeSource`. A time source whose `now` does not follow the wall clock
    /// (frozen, manual, scaled) should implement its own: this one waits real seconds, and it
    /// does not recheck `now` when it wakes, so a frozen clock still wakes instead of waiting
    /// forever.
    /// - Parameter deadline: The instant to wait for; one already reached returns at once.
    /// - Throws: `CancellationError` when the calling task is cancelled, before or during the
    ///   wait.
    public func sleep(until deadline: Date) async throws {
        let remaining = deadline.timeIntervalSince(now)
        guard remaining > 0 else {
            try Task.checkCancellation()
            return
        }
        // Clamped so a far-future deadline (distantFuture, an infinite timeout) cannot overflow
        // the nanosecond count: about 292 years is "never" for a request.
        let nanoseconds = remaining < Double(Int64.max) / 1e9 ? UInt64(remaining * 1e9) : UInt64(Int64.max)
        try await Task.sleep(nanoseconds: nanoseconds)
    }
}
