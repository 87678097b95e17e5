import Dispatch
import Foundation
import FlowCheckFakeServer

/// Decides when a flow has run out of real time.
///
/// The real-time watchdog waits on a thread of its own, never on the cooperative pool the
/// flows run on: a flow that occupies every pool thread (a synchronous SDK call that spins, a
/// check that never ends) cannot keep its own watchdog from firing. When it fires, the flow is
/// settled from that thread: its verdict is recorded and its steps are cancelled.
///
/// Tests pass ``waiting(_:)`` with a wait that returns when the flow under test is known to
/// hang, so no test depends on real time.
public struct Watchdog: Sendable {
    enum Mode: Sendable {
        /// `starvedTime`: see ``starvedTime``.
        case realTime(starvedTime: Double)
        case waiting(@Sendable (Duration) async -> Void)
    }

    let mode: Mode

    /// Fires after the time limit of real time, from a dedicated thread.
    public static let realTime = Watchdog(mode: .realTime(starvedTime: starvedTime))

    /// The same, excusing a starved harness for `starvedTime` seconds of real time (at least
    /// ``starvedLimits`` rounds): tests that starve the pool on purpose pass 0.
    static func realTime(starvedTime: Double) -> Watchdog {
        Watchdog(mode: .realTime(starvedTime: starvedTime))
    }

    /// Fires when `wait` returns (given the flow's time limit) unless the flow ended first.
    /// `wait` runs in a task of its own and is cancelled when the flow ends.
    public static func waiting(_ wait: @escaping @Sendable (Duration) async -> Void) -> Watchdog {
        Watchdog(mode: .waiting(wait))
    }

    /// Starts watching: `fire` runs once when the limit is reached, unless the returned
    /// ``Armed`` is disarmed first.
    ///
    /// The real-time watch judges progress, not elapsed time. Each time a limit passes it
    /// reads `progress` (steps begun, bytes the fake read, answers it wrote, driver lines,
    /// pages opened): if it moved, the flow is slow, not stuck, and gets another limit. If it
    /// did not move, the watch asks whether the harness itself could run meanwhile: it
    /// schedules a probe task on the cooperative pool the flows run on and waits up to one
    /// more limit for it. A probe that does not run means the whole process was starved (a
    /// loaded machine, or other work holding every pool thread): that is not the flow's fault,
    /// and it gets another limit. Only a flow that made no progress while the probe ran is
    /// hung, about one limit after it stopped moving.
    ///
    /// However it moves, a flow gets at most ``progressLimits`` limits of movement: a flow that
    /// keeps the server busy for ever (an SDK in a request loop) is stopped, as hung. And a
    /// starved harness excuses a still flow at most ``starvedAllowance(for:)`` times in a row.
    func arm(_ limit: Duration, progress: @escaping @Sendable () -> Int = { 0 }, fire: @escaping @Sendable (Firing) -> Void) -> Armed {
        switch mode {
        case .realTime(let starvedTime):
            // The probe runs at the flow's own priority (read here, in the flow's task), so it
            // queues behind the flow's work rather than jumping it: if it ran, the flow could have.
            let priority = Task.currentPriority
            let disarmed = DispatchSemaphore(value: 0)
            let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
            let allowance = Self.starvedAllowance(for: limit, starvedTime: starvedTime)
            let watch: @Sendable () -> Void = {
                var seen = progress()
                var starved = 0
                var moves = 0
                let why: Firing
                while true {
                    if disarmed.wait(timeout: .now() + seconds) == .success { return }
                    let now = progress()
                    if now != seen {
                        seen = now
                        moves += 1
                        starved = 0
                        if moves >= Self.progressLimits {
                            why = .keptMoving
                            break
                        }
                        continue
                    }
                    // No progress: was the harness able to run at all?
                    let probe = DispatchSemaphore(value: 0)
                    Task.detached(priority: priority) { probe.signal() }
                    let ran = probe.wait(timeout: .now() + seconds) == .success
                    if disarmed.wait(timeout: .now()) == .success { return }
                    let after = progress()
                    if after != seen {
                        seen = after
                        moves += 1
                        starved = 0
                        if moves >= Self.progressLimits {
                            why = .keptMoving
                            break
                        }
                        continue
                    }
                    if ran {
                        why = .still
                        break
                    }
                    starved += 1
                    if starved > allowance {
                        why = .starved(rounds: starved)
                        break
                    }
                }
                fire(why)
            }
            // A waiting thread if there is one (every flow arms a watch); Foundation's otherwise.
            if !ConnectionThread.start(watch) {
                let thread = Thread(block: watch)
                thread.name = "flowcheck watchdog"
                thread.stackSize = 64 * 1024
                thread.start()
            }
            return Armed { disarmed.signal() }
        case .waiting(let wait):
            let task = Task {
                await wait(limit)
                if !Task.isCancelled { fire(.still) }
            }
            return Armed { task.cancel() }
        }
    }

    /// Why the watch fired, so the flow's error says what was seen.
    enum Firing: Sendable, Equatable {
        /// No progress for a limit while the probe ran: the flow is stuck.
        case still
        /// It kept moving, but for ``progressLimits`` limits in all: it never finishes.
        case keptMoving
        /// Nothing moved, and the probe never ran either, `rounds` times in a row.
        case starved(rounds: Int)
    }

    /// How many limits a flow that keeps moving may take in all: 20, ten minutes at the
    /// default 30 s, a hang detector far above any honest flow (they take milliseconds of work).
    static let progressLimits = 20

    /// How many times a flow without progress is excused because the probe did not run either
    /// (the process was starved), at the least: 4. Beyond that the flow itself is what holds
    /// the pool (a synchronous SDK call that never returns on every pool thread), and it is
    /// hung: at the default 30 s, about five minutes after it stopped moving.
    static let starvedLimits = 4

    /// The real time a starved process is excused for, whatever the limit: 4 minutes. How
    /// long a loaded machine starves a process does not shrink with a flow's limit: under 16
    /// busy loops a test's 3 s limit saw the probe miss five rounds in a row (30 s), and the
    /// flow was called starved, not hung.
    static let starvedTime: Double = 240

    /// How many rounds in a row a still flow is excused for a starved harness under `limit`:
    /// ``starvedLimits``, or as many as `starvedTime` seconds hold (each round is two limits:
    /// the limit itself and the probe's wait), whichever is more.
    static func starvedAllowance(for limit: Duration, starvedTime: Double = starvedTime) -> Int {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        guard seconds > 0 else { return starvedLimits }
        return max(starvedLimits, Int((starvedTime / (2 * seconds)).rounded(.up)))
    }

    /// A running watch; ``disarm()`` stops it (idempotent, and harmless after it fired).
    struct Armed: Sendable {
        private let stop: @Sendable () -> Void
        private let once = Locked(false)

        init(_ stop: @escaping @Sendable () -> Void) {
            self.stop = stop
        }

        func disarm() {
            if once.withLock({ done in defer { done = true }; return !done }) { stop() }
        }
    }
}
