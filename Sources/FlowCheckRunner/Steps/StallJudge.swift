import Dispatch
import FlowCheckFakeServer
import Foundation

/// A stalled request the client was still waiting on after the flow's clock had passed its
/// request timeout: its timeout follows some other clock (the wall clock), or it has none.
package struct OverdueStall: Sendable, Equatable {
    package var method: String
    package var path: String
    /// How far the `stall` fault moved the flow's clock when the request arrived.
    package var clockAdvance: TimeInterval
    /// Real seconds the client went on waiting after that, while the harness could run.
    package var waited: TimeInterval
}

/// Judges a client's request timeout by the flow's clock, without racing it.
///
/// A `stall` fault with `clockAdvance` moves the flow's virtual clock past the client's
/// request timeout the moment the request arrives. A client whose timeout follows that clock
/// gives up at once (milliseconds: the SDK core's deadline is a task on the clock). One that
/// is still waiting ``grace`` of real time later, after a probe task shows the harness itself
/// could run meanwhile, has a timeout on some other clock: the stall is then ended (the client
/// sees a dropped connection) and the step fails, naming it, instead of the flow waiting for
/// a wall-clock timer or the watchdog. Only the client's own lateness can make it overdue: a
/// starved process is excused (up to ``starvedLimit`` times), as the flow watchdog excuses it.
package enum StallJudge {
    /// Real time a client may take to give up once the flow's clock is past its deadline.
    package static let grace: TimeInterval = 2
    /// How many graces a starved harness (the probe did not run) may add.
    package static let starvedLimit = 4

    /// Watches `handle` on a thread of its own; `overdue` gets the real seconds waited when
    /// the client is judged overdue, just before the stall is ended.
    package static func watch(_ handle: StallHandle, priority: TaskPriority, overdue: @escaping @Sendable (TimeInterval) -> Void) {
        let thread = Thread {
            let started = DispatchTime.now()
            let pause = DispatchSemaphore(value: 0)
            var starved = 0
            while true {
                _ = pause.wait(timeout: .now() + grace)
                guard handle.isWaiting else { return }
                // Could the harness (and so the client's clock task) run meanwhile?
                let probe = DispatchSemaphore(value: 0)
                // At the flow's own priority: it queues behind the client's clock task.
                Task.detached(priority: priority) { probe.signal() }
                let ran = probe.wait(timeout: .now() + grace) == .success
                guard handle.isWaiting else { return }
                if ran || starved >= starvedLimit { break }
                starved += 1
            }
            let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            overdue(waited)
            handle.release()
        }
        thread.name = "flowcheck stall judge"
        thread.stackSize = 64 * 1024
        thread.start()
    }
}
