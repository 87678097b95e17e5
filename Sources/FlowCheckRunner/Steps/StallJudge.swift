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
/// is still waiting ``grace`` of an idle machine's time later, after a probe task shows the
/// harness itself could run meanwhile, has a timeout on some other clock: the stall is then
/// ended (the client sees a dropped connection) and the step fails, naming it, instead of the
/// flow waiting for a wall-clock timer or the watchdog.
///
/// Only the client's own lateness can make it overdue. Giving up takes the client a chain of
/// threads (its clock task, its HTTP stack's, the fake's event loop), and a busy machine
/// stretches every hop: so the grace is stretched by how crowded the processors are, measured
/// each time the judge looks (``cpuStretch()``, up to ``maxStretch``). A starved process is
/// excused too (up to ``starvedLimit`` times), as the flow watchdog excuses it.
package enum StallJudge {
    /// Time an idle machine gives a client to give up once the flow's clock is past its
    /// deadline. Stretched on a busy machine, up to `grace * maxStretch` (10 s), and the
    /// verdict comes at most a probe's wait after that: well before a 30 s wall-clock timeout
    /// (the one FLT-STALL's clock move stands for, and our own transport's backstop) could end
    /// the request and pass the step.
    package static let grace: TimeInterval = 2
    /// The most the grace is stretched by a crowded machine: our SDK core took 3.6 s to end a
    /// stalled request under 16 busy loops on two cores.
    package static let maxStretch: Double = 5
    /// How many graces a starved harness (the probe did not run) may add.
    package static let starvedLimit = 4

    /// Watches `handle` on a thread of its own; `overdue` gets the real seconds waited when
    /// the client is judged overdue, just before the stall is ended.
    package static func watch(_ handle: StallHandle, priority: TaskPriority, overdue: @escaping @Sendable (TimeInterval) -> Void) {
        let thread = Thread {
            let started = DispatchTime.now()
            let pause = DispatchSemaphore(value: 0)
            var starved = 0
            var allowed = grace
            while true {
                // Never past the time allowed: the verdict is due then, not a whole grace later.
                // Once it is due, only a starved probe brings the judge back here: it waits a
                // whole grace then, the starved harness's excuse.
                let left = allowed - seconds(since: started)
                _ = pause.wait(timeout: .now() + (left > 0 ? min(grace, left) : grace))
                guard handle.isWaiting else { return }
                // How much slower than an idle machine is everything running now? (No need to
                // measure again once the grace is stretched all it may be.)
                if allowed < grace * maxStretch {
                    allowed = max(allowed, grace * min(cpuStretch(), maxStretch))
                }
                if seconds(since: started) < allowed { continue }
                // Could the harness (and so the client's clock task) run meanwhile?
                let probe = DispatchSemaphore(value: 0)
                // At the flow's own priority: it queues behind the client's clock task.
                Task.detached(priority: priority) { probe.signal() }
                let ran = probe.wait(timeout: .now() + grace) == .success
                guard handle.isWaiting else { return }
                if ran || starved >= starvedLimit { break }
                starved += 1
            }
            overdue(seconds(since: started))
            handle.release()
        }
        thread.name = "flowcheck stall judge"
        thread.stackSize = 64 * 1024
        thread.start()
    }

    /// Real time over processor time for short spins on this thread, the middle of three
    /// (5 ms of CPU each; one spin alone is noisy on a virtual machine): about 1 on an idle
    /// machine, about the number of runnable threads per core on a crowded one. Each thread of
    /// the client's chain waits about that much longer for its turn.
    static func cpuStretch() -> Double {
        let spins = (0..<3).map { _ in spinStretch(nanoseconds: 5_000_000) }.sorted()
        return spins[1]
    }

    private static func spinStretch(nanoseconds spin: UInt64) -> Double {
        let wallStart = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadCPUNanoseconds()
        var sink: UInt64 = 0
        while threadCPUNanoseconds() &- cpuStart < spin {
            for index in 0..<1_000 { sink = sink &+ UInt64(index) &* 2_654_435_761 }
        }
        let cpu = Double(threadCPUNanoseconds() &- cpuStart)
        let wall = Double(DispatchTime.now().uptimeNanoseconds &- wallStart)
        withExtendedLifetime(sink) {}
        return cpu > 0 ? max(1, wall / cpu) : 1
    }

    private static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    private static func seconds(since start: DispatchTime) -> TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
