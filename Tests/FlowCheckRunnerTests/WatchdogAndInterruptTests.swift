import Dispatch
import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckRunner
import FlowCheckSpec
import FlowCheckTestSupport

/// The watchdog cannot be starved by the flows it watches, and cancelling a run stops it: no
/// flow starts after that, and the flows cut short are left out of the results.
@Suite(.integration, .timeLimit(.minutes(20)))
struct WatchdogAndInterruptTests {
    /// Every cooperative thread is held by a synchronous wait that only the watchdog's firing
    /// ends. A watchdog that needed the pool to fire could never end them: each wait gives up
    /// after 30 s and the test fails naming it.
    @Test func theRealTimeWatchdogFiresWhileEveryPoolThreadIsBlocked() async throws {
        let blockers = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let release = DispatchSemaphore(value: 0)
        let started = Locked(0)
        let firedOn = Locked<pthread_t?>(nil)
        let blockerThreads = Locked<[pthread_t]>([])
        let armed = Locked<Watchdog.Armed?>(nil)
        let released = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<blockers {
                group.addTask {
                    blockerThreads.withLock { $0.append(pthread_self()) }
                    // The last blocker to start arms the watchdog: by then every blocker holds a thread.
                    if started.withLock({ count in count += 1; return count == blockers }) {
                        armed.withLock {
                            // Starved on purpose: excused the minimum, four rounds.
                            $0 = Watchdog.realTime(starvedTime: 0).arm(.milliseconds(20)) { _ in
                                firedOn.withLock { $0 = pthread_self() }
                                for _ in 0..<blockers { release.signal() }
                            }
                        }
                    }
                    return release.wait(timeout: .now() + 30) == .success
                }
            }
            var all: [Bool] = []
            for await one in group { all.append(one) }
            return all
        }
        armed.withLock { $0 }?.disarm()
        #expect(released == Array(repeating: true, count: blockers), "WatchdogAndInterruptTests: the watchdog did not fire within 30 s while the pool was blocked")
        let firing = try #require(firedOn.withLock { $0 })
        #expect(!blockerThreads.withLock { $0 }.contains { pthread_equal($0, firing) != 0 }, "the watchdog fired on a thread a flow held")
    }

    /// The real-time watch counts from the last progress: a flow that keeps moving (slowly, on
    /// an overloaded machine) is not called hung until it stops moving, or has had
    /// `progressLimits` limits in all. A still flow is read once more after the probe ran.
    /// (A still flow's probe may not run within 20 ms on a loaded machine: each such round is
    /// excused and costs two more reads, at most `starvedLimits` times in a row here.)
    @Test(arguments: [(2, 5...(5 + 2 * Watchdog.starvedLimits)), (Int.max, (1 + Watchdog.progressLimits)...(1 + Watchdog.progressLimits))])
    func theRealTimeWatchdogFiresWhenProgressStops(moves: Int, readsWhenFired: ClosedRange<Int>) async throws {
        let reads = Locked(0)
        let fired = DispatchSemaphore(value: 0)
        let readsAtFire = Locked(0)
        let firing = Locked<Watchdog.Firing?>(nil)
        let armed = Watchdog.realTime(starvedTime: 0).arm(.milliseconds(20), progress: {
            reads.withLock { count in
                defer { count += 1 }
                return min(count, moves)
            }
        }) { why in
            readsAtFire.withLock { $0 = reads.withLock { $0 } }
            firing.withLock { $0 = why }
            fired.signal()
        }
        defer { armed.disarm() }
        let didFire = try await offThePool("the real-time watchdog's firing") { fired.wait(timeout: .now() + 30) == .success }
        #expect(didFire, "WatchdogAndInterruptTests: the watchdog did not fire within 30 s")
        #expect(readsWhenFired.contains(readsAtFire.withLock { $0 }))
        // Why it fired: a flow that never stops moving is not called still.
        if moves == Int.max { #expect(firing.withLock { $0 } == .keptMoving) } else { #expect(firing.withLock { $0 } != .keptMoving) }
    }

    /// A run whose task is cancelled while flow 2 of 3 hangs returns promptly with flow 1 only:
    /// flow 2 is left out (it did not finish) and flow 3 never starts.
    @Test func cancellingARunStopsItAndKeepsOnlyTheFinishedFlows() async throws {
        let signal = HarnessErrorTests.HangSignal()
        let driver = HarnessErrorTests.HangingDriver(signal: signal)
        let specs = try ["T-ONE", "T-TWO", "T-THREE"].map { id in
            try Self.spec(id: id, steps: id == "T-TWO" ? #"[{"app": "products"}]"# : #"[{"app": "deleteToken"}]"#)
        }
        // A watchdog that never fires within the test: only the cancellation can end flow 2.
        let options = FlowRunner.Options(concurrency: 1, timeLimit: .seconds(600), watchdog: .waiting { _ in
            let never = AsyncStream<Void>.makeStream()
            for await _ in never.stream {}
        })
        let run = Task {
            await FlowRunner(driver: driver, options: options).run(specs)
        }
        // Cancels once flow 2's session has hung.
        for await _ in signal.stream { break }
        run.cancel()
        let results = await run.value
        #expect(results.map(\.id) == ["T-ONE"])
    }

    static func spec(id: String, steps: String) throws -> FlowSpec {
        let text = """
        {"id": "\(id)", "title": "t", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-errors"], "provider": "moltin",
         "fixture": {"clients": [{"id": "c", "secret": "sk-interrupt"}]}, "steps": \(steps)}
        """
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(text.utf8), file: "t.json") else { throw DriverError("spec did not load") }
        return spec
    }
}
