import FlowCheckFakeServer
import Foundation
import FlowCheckSDK

/// A clock that moves only when told (model: pointfreeco/swift-clocks `TestClock`).
///
/// Inject it wherever the SDK takes a `TimeSource`; expiry logic then sees exactly the time the
/// test sets, so "61 minutes later" costs nothing and never flakes. Waits (`sleep(until:)`, which
/// `DeadlineTransport` uses for request deadlines) end when the clock is moved past their
/// deadline, never by real time passing.
///
/// ```swift
/// let clock = ManualClock()                     // 2026-01-01T00:00:00Z
/// let client = MoltinClient(configuration: configuration, transport: transport,
///                           store: InMemoryTokenStore(), clock: clock)
/// try await client.auth(clientId: "id", clientSecret: "secret")
/// clock.advance(by: 61 * 60)                    // the one-hour token is now expired
/// _ = try await client.products()               // refreshes before sending
/// ```
///
/// A request deadline, with no real waiting:
///
/// ```swift
/// let transport = DeadlineTransport(base: silentServer, clock: clock, timeout: 30)
/// let request = Task { try await transport.send(request) }
/// try await clock.waitForSleepers(count: 1)     // the deadline is registered
/// clock.advance(by: 31)                         // request throws .transport at once
/// ```
public final class ManualClock: TimeSource, Sendable {
    // The harness's one lock is enough: waits are continuations resumed outside it, never a
    // condition-style wait on the lock itself.
    private let state: Locked<State>

    /// A task suspended in `sleep(until:)`.
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A task suspended in `waitForSleepers(count:within:)`.
    private struct Watcher {
        let count: Int
        let resume: @Sendable (Result<Void, any Error>) -> Void
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
        var observers: [@Sendable (Date) -> Void] = []
        /// How much chosen waiting (`pause(until:)`) the current window allows; nil: any.
        var pauseBudget: TimeInterval?
        /// The chosen waiting granted in the current window so far.
        var paused: TimeInterval = 0
        /// Every pause asked for since the last `takePauses()`, granted or refused.
        var pauses: [Pause] = []

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Removes the sleepers whose deadline has been reached, earliest deadline first (ties
        /// in the order they went to sleep, as `TestClock` runs them).
        mutating func takeDueSleepers() -> [Sleeper] {
            let due = sleepers.filter { $0.deadline <= now }
            sleepers.removeAll { $0.deadline <= now }
            // `sleepers` is in registration order and the sort is stable on (deadline, id).
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }

        /// Removes the watchers whose count is now met.
        mutating func takeSatisfiedWatchers() -> [Watcher] {
            let pending = sleepers.count
            let satisfied = watchers.filter { pending >= $0.count }
            watchers.removeAll { pending >= $0.count }
            return satisfied
        }
    }

    /// Creates a clock stopped at `now`.
    /// - Parameter now: The starting instant; defaults to 2026-01-01T00:00:00Z so runs are
    ///   reproducible.
    public init(now: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Locked(State(now: now))
    }

    /// The clock's current instant.
    public var now: Date {
        withState { $0.now }
    }

    /// How many tasks are suspended in `sleep(until:)`, waiting for the clock to reach their
    /// deadline. For tests and harnesses: a request under `DeadlineTransport` counts once its
    /// deadline is registered.
    public var sleeperCount: Int {
        withState { $0.sleepers.count }
    }

    /// Calls `observer` with the new instant every time the clock is moved (`advance(by:)`,
    /// `set(_:)`), before any sleeper wakes, on the thread that moved it. For a driver whose SDK
    /// runs in another process and must be told the time (`ProcessDriver`'s `clock` message).
    /// Observers are kept for the clock's life.
    public func onChange(_ observer: @escaping @Sendable (Date) -> Void) {
        withState { $0.observers.append(observer) }
    }

    /// Moves the clock by `seconds` (negative values move it back), then wakes every sleeper
    /// whose deadline has been reached, earliest deadline first.
    /// - Parameter seconds: How far to move.
    public func advance(by seconds: TimeInterval) {
        let (due, now, observers) = withState { state -> ([Sleeper], Date, [@Sendable (Date) -> Void]) in
            state.now = state.now.addingTimeInterval(seconds)
            return (state.takeDueSleepers(), state.now, state.observers)
        }
        for observer in observers { observer(now) }
        wake(due)
    }

    /// Sets the clock to `date`, forwards or backwards, then wakes every sleeper whose deadline
    /// has been reached, earliest deadline first. Moving back wakes nobody.
    /// - Parameter date: The new current instant.
    public func set(_ date: Date) {
        let (due, observers) = withState { state -> ([Sleeper], [@Sendable (Date) -> Void]) in
            state.now = date
            return (state.takeDueSleepers(), state.observers)
        }
        for observer in observers { observer(date) }
        wake(due)
    }

    /// Suspends until the clock is moved to `deadline` or past it (`advance(by:)`, `set(_:)`);
    /// real time plays no part.
    /// - Parameter deadline: The instant to wait for; one already reached returns at once.
    /// - Throws: `CancellationError` when the calling task is cancelled, before or during the
    ///   wait; the sleeper is then removed at once (it no longer counts in `sleeperCount`).
    public func sleep(until deadline: Date) async throws {
        let id = withState { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = withState { state -> (resume: Result<Void, any Error>?, watchers: [Watcher]) in
                    // Checked under the lock: a cancellation either lands before this (the flag
                    // is set before the handler runs, and the handler takes the lock) or finds
                    // the sleeper registered and removes it. Never neither.
                    if Task.isCancelled {
                        return (.failure(CancellationError()), [])
                    }
                    if deadline <= state.now {
                        return (.success(()), [])
                    }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, state.takeSatisfiedWatchers())
                }
                if let resume = outcome.resume {
                    continuation.resume(with: resume)
                }
                for watcher in outcome.watchers {
                    watcher.resume(.success(()))
                }
            }
        } onCancel: {
            let cancelled = withState { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A wait the code under test chose (`pause(until:)`, a driver's `wait`): from when, until
    /// when, and whether the clock let that time pass.
    public struct Pause: Sendable, Equatable {
        /// The clock's instant when the pause was asked for.
        public var from: Date
        /// The instant it asked to wait for.
        public var until: Date
        /// False when the window's budget refused it (the clock did not move).
        public var granted: Bool

        /// How long it asked to wait; zero for an instant already reached.
        public var seconds: TimeInterval { max(0, until.timeIntervalSince(from)) }

        public init(from: Date, until: Date, granted: Bool) {
            self.from = from
            self.until = until
            self.granted = granted
        }
    }

    /// The error `pause(until:)` throws when the window's budget refuses the wait.
    public struct PauseRefused: Error, Sendable, Equatable, CustomStringConvertible {
        /// The refused pause.
        public var pause: Pause
        /// The budget of the window it was asked in.
        public var budget: TimeInterval
        public var description: String {
            "the clock refused to let \(Int(pause.seconds)) s pass: waits may let at most \(Int(budget)) s pass here"
        }
    }

    /// Starts a new window for chosen waits: from now on, `pause(until:)` may move the clock by
    /// at most `budget` seconds in all (nil: without limit) until the next window.
    public func startPauseWindow(budget: TimeInterval?) {
        withState { state in
            state.pauseBudget = budget
            state.paused = 0
        }
    }

    /// The pauses asked for since the previous call, oldest first.
    public func takePauses() -> [Pause] {
        withState { state in
            defer { state.pauses = [] }
            return state.pauses
        }
    }

    /// A wait the caller chose: lets the clock pass to `deadline` at once (observers are told,
    /// sleepers due by then wake), within the window's budget.
    ///
    /// Unlike `sleep(until:)`, which waits for somebody else to move the clock, this moves it:
    /// the caller's own wait is the only reason time passes, so nothing else would.
    /// - Parameter deadline: The instant to wait for; one already reached returns at once.
    /// - Throws: ``PauseRefused`` when the window's budget does not allow that much waiting
    ///   (the clock stays where it is); `CancellationError` when the task is cancelled.
    public func pause(until deadline: Date) async throws {
        try Task.checkCancellation()
        let pause = grantPause(until: deadline)
        if !pause.granted {
            throw PauseRefused(pause: pause, budget: withState { $0.pauseBudget } ?? 0)
        }
    }

    /// ``pause(until:)`` for a caller that cannot suspend (a driver's `wait` message): moves
    /// the clock to `deadline` if the window allows, and says what was decided.
    /// - Parameter deadline: The instant asked for.
    /// - Returns: The pause, granted or not.
    @discardableResult
    public func grantPause(until deadline: Date) -> Pause {
        let (pause, due, observers) = withState { state -> (Pause, [Sleeper], [@Sendable (Date) -> Void]) in
            var pause = Pause(from: state.now, until: deadline, granted: true)
            if let budget = state.pauseBudget, state.paused + pause.seconds > budget {
                pause.granted = false
            }
            state.pauses.append(pause)
            guard pause.granted, pause.seconds > 0 else { return (pause, [], []) }
            state.paused += pause.seconds
            state.now = deadline
            return (pause, state.takeDueSleepers(), state.observers)
        }
        for observer in observers { observer(deadline) }
        wake(due)
        return pause
    }

    /// Suspends until at least `count` tasks are sleeping on this clock, so a test can move the
    /// clock only once the waits it means to end are registered (no polling, no real waiting).
    ///
    /// The wait itself is bounded in real time: a sleeper that never registers (the code under
    /// test took another path) fails the test by name instead of hanging it.
    /// - Parameters:
    ///   - count: The number of sleepers to wait for; returns at once when already met.
    ///   - limit: The longest real time to wait; ``HangBound/standard`` unless the test checks
    ///     the bound itself.
    /// - Throws: ``WaitTimedOut`` ("ManualClock.waitForSleepers(count: N): not reached within
    ///   L s") when `limit` passes first; `CancellationError` when the calling task is
    ///   cancelled first.
    public func waitForSleepers(count: Int = 1, within limit: Duration = HangBound.standard) async throws {
        try await boundedWait("ManualClock.waitForSleepers(count: \(count)): not reached", within: limit) { resume in
            let met = withState { state -> Bool in
                if state.sleepers.count >= count {
                    return true
                }
                state.watchers.append(Watcher(count: count, resume: resume))
                return false
            }
            if met {
                resume(.success(()))
            }
        }
    }

    /// Resumes `sleepers` in order, outside the lock: a resumed task may read the clock at once.
    private func wake(_ sleepers: [Sleeper]) {
        for sleeper in sleepers {
            sleeper.continuation.resume()
        }
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        state.withLock(body)
    }
}
