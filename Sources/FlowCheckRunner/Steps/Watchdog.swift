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
        case realTime
        case waiting(@Sendable (Duration) async -> Void)
    }

    let mode: Mode

    /// Fires after the time limit of real time, from a dedicated thread.
    public static let realTime = Watchdog(mode: .realTime)

    /// Fires when `wait` returns (given the flow's time limit) unless the flow ended first.
    /// `wait` runs in a task of its own and is cancelled when the flow ends.
    public static func waiting(_ wait: @escaping @Sendable (Duration) async -> Void) -> Watchdog {
        Watchdog(mode: .waiting(wait))
    }

    /// Starts watching: `fire` runs once when the limit is reached, unless the returned
    /// ``Armed`` is disarmed first.
    ///
    /// The real-time watch measures the limit from the flow's last progress: when the limit
    /// passes and `progress` has moved since, it watches one more limit from now. A flow that
    /// is slow because the machine is overloaded moves from step to step, slowly, and is not
    /// called hung; a flow stuck in one step is, a limit after it got there. However it moves,
    /// it gets at most ``progressLimits`` limits in all.
    func arm(_ limit: Duration, progress: @escaping @Sendable () -> Int = { 0 }, fire: @escaping @Sendable () -> Void) -> Armed {
        switch mode {
        case .realTime:
            let disarmed = DispatchSemaphore(value: 0)
            let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
            let thread = Thread {
                var seen = progress()
                for _ in 0..<Self.progressLimits {
                    if disarmed.wait(timeout: .now() + seconds) == .success { return }
                    let now = progress()
                    if now == seen { break }
                    seen = now
                }
                fire()
            }
            thread.name = "flowcheck watchdog"
            thread.stackSize = 64 * 1024
            thread.start()
            return Armed { disarmed.signal() }
        case .waiting(let wait):
            let task = Task {
                await wait(limit)
                if !Task.isCancelled { fire() }
            }
            return Armed { task.cancel() }
        }
    }

    /// How many limits a flow that keeps moving may take in all (4: two minutes at 30 s).
    static let progressLimits = 4

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
