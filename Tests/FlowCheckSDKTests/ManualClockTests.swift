import Foundation
import FlowCheckFakeServer
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

@Suite("ManualClock", .fast, .timeLimit(.minutes(20)))
struct ManualClockTests {
    @Test("starts at 2026-01-01T00:00:00Z and moves only when told")
    func moves() {
        let clock = ManualClock()
        #expect(clock.now == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(clock.now == clock.now)
        clock.advance(by: 61 * 60)
        #expect(clock.now == Date(timeIntervalSince1970: 1_767_225_600 + 3660))
        clock.set(Date(timeIntervalSince1970: 0))
        #expect(clock.now == Date(timeIntervalSince1970: 0))
        clock.advance(by: -1)
        #expect(clock.now == Date(timeIntervalSince1970: -1))
    }

    @Test("usable as any TimeSource")
    func existential() {
        let source: any TimeSource = ManualClock(now: Date(timeIntervalSince1970: 42))
        #expect(source.now == Date(timeIntervalSince1970: 42))
    }

    @Test("a chosen wait (pause) moves the clock itself, tells observers and wakes the sleepers it passes")
    func pauseMovesTheClock() async throws {
        let clock = ManualClock()
        let start = clock.now
        let seen = Locked<[Date]>([])
        clock.onChange { date in seen.withLock { $0.append(date) } }
        // A request deadline 30 s out: the wait of 45 s passes it.
        let deadline = Task { try await clock.sleep(until: start.addingTimeInterval(30)) }
        try await clock.waitForSleepers(count: 1)
        let source: any TimeSource = clock
        try await source.pause(until: start.addingTimeInterval(45))
        #expect(clock.now == start.addingTimeInterval(45))
        #expect(seen.withLock { $0 } == [start.addingTimeInterval(45)])
        try await boundedValue(of: deadline, waitingFor: "the deadline the pause passed")
        // A wait for an instant already reached moves nothing.
        try await clock.pause(until: start)
        #expect(clock.now == start.addingTimeInterval(45))
        #expect(clock.takePauses() == [
            ManualClock.Pause(from: start, until: start.addingTimeInterval(45), granted: true),
            ManualClock.Pause(from: start.addingTimeInterval(45), until: start, granted: true),
        ])
        #expect(clock.takePauses().isEmpty)
    }

    @Test("a window's budget bounds the waits: one beyond it is refused and the clock stays")
    func pauseBudget() async throws {
        let clock = ManualClock()
        let start = clock.now
        clock.startPauseWindow(budget: 100)
        try await clock.pause(until: start.addingTimeInterval(60))
        await #expect(throws: ManualClock.PauseRefused.self) {
            try await clock.pause(until: start.addingTimeInterval(60 + 41))
        }
        #expect(clock.now == start.addingTimeInterval(60))
        // What is left of the budget is still granted; a new window starts afresh.
        #expect(clock.grantPause(until: start.addingTimeInterval(100)).granted)
        clock.startPauseWindow(budget: 100)
        #expect(clock.grantPause(until: start.addingTimeInterval(200)).granted)
        #expect(clock.takePauses().map(\.granted) == [true, false, true, true])
    }

    @Test("the wall clock's pause is its sleep: it returns once the instant has passed")
    func systemPause() async throws {
        let clock = SystemTimeSource()
        try await clock.pause(until: clock.now.addingTimeInterval(-1))
    }

    @Test("sleeping until a deadline already reached returns at once and registers nothing")
    func reachedDeadline() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: clock.now.addingTimeInterval(-60))
        #expect(clock.sleeperCount == 0)
    }

    @Test("a sleeper wakes only when the clock reaches its deadline, through any TimeSource")
    func wakesAtDeadline() async throws {
        let clock = ManualClock()
        let source: any TimeSource = clock
        let deadline = clock.now.addingTimeInterval(10)
        let sleeper = Task { try await source.sleep(until: deadline) }
        try await clock.waitForSleepers(count: 1)

        clock.advance(by: 9.5)
        #expect(clock.sleeperCount == 1)
        clock.set(deadline)
        #expect(clock.sleeperCount == 0)
        try await boundedValue(of: sleeper, waitingFor: "the sleeper at its deadline")
    }

    @Test("concurrent sleepers wake in deadline order, each exactly when its deadline is reached")
    func wakeInOrder() async throws {
        let clock = ManualClock()
        let start = clock.now
        // Registered out of order on purpose.
        let third = Task { try await clock.sleep(until: start.addingTimeInterval(3)) }
        try await clock.waitForSleepers(count: 1)
        let first = Task { try await clock.sleep(until: start.addingTimeInterval(1)) }
        try await clock.waitForSleepers(count: 2)
        let second = Task { try await clock.sleep(until: start.addingTimeInterval(2)) }
        try await clock.waitForSleepers(count: 3)

        clock.advance(by: 1)
        try await boundedValue(of: first, waitingFor: "the sleeper until +1 s")
        #expect(clock.sleeperCount == 2)
        clock.advance(by: 1)
        try await boundedValue(of: second, waitingFor: "the sleeper until +2 s")
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 1)
        try await boundedValue(of: third, waitingFor: "the sleeper until +3 s")
        #expect(clock.sleeperCount == 0)
    }

    @Test("one advance past several deadlines wakes them all")
    func oneAdvanceWakesAll() async throws {
        let clock = ManualClock()
        let start = clock.now
        let sleepers = (1...5).map { offset in
            Task { try await clock.sleep(until: start.addingTimeInterval(TimeInterval(offset))) }
        }
        try await clock.waitForSleepers(count: 5)
        clock.advance(by: 60)
        #expect(clock.sleeperCount == 0)
        for (index, sleeper) in sleepers.enumerated() {
            try await boundedValue(of: sleeper, waitingFor: "sleeper \(index + 1) of 5 after one advance")
        }
    }

    @Test("moving the clock back wakes nobody")
    func backwardsWakesNobody() async throws {
        let clock = ManualClock()
        let deadline = clock.now.addingTimeInterval(5)
        let sleeper = Task { try await clock.sleep(until: deadline) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: -3600)
        clock.set(Date(timeIntervalSince1970: 0))
        #expect(clock.sleeperCount == 1)
        clock.set(deadline.addingTimeInterval(1))
        try await boundedValue(of: sleeper, waitingFor: "the sleeper once the clock is past its deadline again")
    }

    @Test("cancelling a sleeping task resumes it with CancellationError and removes it")
    func cancellationRemoves() async throws {
        let clock = ManualClock()
        let kept = Task { try await clock.sleep(until: clock.now.addingTimeInterval(5)) }
        let cancelled = Task { try await clock.sleep(until: clock.now.addingTimeInterval(5)) }
        try await clock.waitForSleepers(count: 2)

        cancelled.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: cancelled, waitingFor: "the cancelled sleeper")
        }
        #expect(clock.sleeperCount == 1)

        kept.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: kept, waitingFor: "the second cancelled sleeper")
        }
        #expect(clock.sleeperCount == 0)
        // Nothing left to wake; advancing must not resume a continuation twice.
        clock.advance(by: 10)
    }

    @Test("a task cancelled before it sleeps throws at once and never registers")
    func cancelledBeforeSleeping() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: clock.now.addingTimeInterval(5))
        }
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: sleeper, waitingFor: "a sleeper cancelled before it slept")
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("waitForSleepers returns at once when met, and ends with CancellationError when cancelled")
    func waitForSleepers() async throws {
        let clock = ManualClock()
        try await clock.waitForSleepers(count: 0)
        let watcher = Task { try await clock.waitForSleepers(count: 3) }
        watcher.cancel()
        await #expect(throws: CancellationError.self) {
            try await boundedValue(of: watcher, waitingFor: "the cancelled waitForSleepers")
        }
    }

    /// The bound that keeps a test whose sleeper never registers from hanging: it fails by name.
    @Test("waitForSleepers that is never met fails by name at its real-time bound")
    func waitForSleepersBound() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.addingTimeInterval(10)) }
        defer { sleeper.cancel() }
        try await clock.waitForSleepers(count: 1)
        let error = await #expect(throws: WaitTimedOut.self) {
            try await clock.waitForSleepers(count: 2, within: .milliseconds(50))
        }
        #expect(error?.description == "ManualClock.waitForSleepers(count: 2): not reached within 0.05 s")
        // The timed-out watcher does not disturb the clock: sleepers still wake as before.
        clock.advance(by: 10)
        try await boundedValue(of: sleeper, waitingFor: "the sleeper after a watcher timed out")
        #expect(clock.sleeperCount == 0)
    }

    @Test("many tasks sleeping, cancelling and advancing at once: every sleeper ends exactly once")
    func concurrentUse() async throws {
        let clock = ManualClock()
        let start = clock.now
        let count = 200
        let sleepers = (0..<count).map { index in
            Task { try await clock.sleep(until: start.addingTimeInterval(TimeInterval(index % 20 + 1))) }
        }
        try await clock.waitForSleepers(count: count)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count where index % 3 == 0 {
                group.addTask { sleepers[index].cancel() }
            }
            for _ in 0..<20 {
                group.addTask { clock.advance(by: 1) }
            }
        }
        var woken = 0
        var cancelled = 0
        for (index, sleeper) in sleepers.enumerated() {
            do {
                try await boundedValue(of: sleeper, waitingFor: "sleeper \(index) of \(count), woken or cancelled")
                woken += 1
            } catch is CancellationError {
                cancelled += 1
            }
        }
        #expect(woken + cancelled == count)
        #expect(cancelled <= (0..<count).filter { $0 % 3 == 0 }.count)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == start.addingTimeInterval(20))
    }
}
