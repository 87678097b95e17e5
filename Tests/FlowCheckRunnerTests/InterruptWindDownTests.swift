import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI
import FlowCheckCoreDriver
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSpec

/// An interrupted run whose driver never gives a flow back (a call that never returns, a close
/// that never ends) still ends: after its wind-down it reports the flows that finished, and
/// the stuck one counts as not run.
@Suite(.integration, .timeLimit(.minutes(20)))
struct InterruptWindDownTests {
    /// A session that never ends: its first call and its close wait for good, whatever
    /// cancellation says.
    final class StuckSession: FlowSession {
        func perform(_ call: AppCall) async throws -> CallOutcome {
            await Self.forever()
            return .ok([:])
        }
        func storeContents() async throws -> [String: String] { [:] }
        func close() async { await Self.forever() }

        /// Suspends and is never resumed (the continuation is kept, so nothing warns of a leak).
        static func forever() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                kept.withLock { $0.append(continuation) }
            }
        }
        static let kept = Locked<[CheckedContinuation<Void, Never>]>([])
    }

    /// Our SDK core, except that one flow's session never ends.
    struct StuckDriver: FlowDriver {
        let name = "stuck"
        let stuck: String
        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            context.flowID == stuck ? StuckSession() : try await CoreSDKDriver().makeSession(for: context)
        }
    }

    @Test func aRunWhoseFlowNeverEndsStillEndsOnASignal() async throws {
        let specs = Array(try SpecsEarnTheirPlaceTests.specs().filter { ["MLT-AUTH", "MLT-PRODUCTS", "MLT-REFRESH"].contains($0.id) }.sorted { $0.id < $1.id })
        #expect(specs.count == 3)
        let interrupt = InterruptSignal()
        let finished = Locked(0)
        let runner = FlowRunner(driver: StuckDriver(stuck: specs[0].id), options: .init(concurrency: 2))
        // The signal comes once the two other flows have finished, the stuck one still running.
        let (flows, signal) = await FlowCheckCommand.runUntilInterrupted(runner, specs, interrupt: interrupt, windDown: .milliseconds(300)) { _ in
            if finished.withLock({ count in count += 1; return count }) == 2 { interrupt.deliver(SIGINT) }
        }
        #expect(signal == SIGINT)
        #expect(flows.map(\.id) == [specs[1].id, specs[2].id], "\(flows.map(\.id))")
        #expect(flows.allSatisfy { $0.status == .passed })
    }

    /// A driver process stopped by the interruption before its `hello`: its session throws
    /// (the run was interrupted), it does not end as cancelled.
    struct StoppedOnInterruptDriver: FlowDriver {
        let name = "stopped"
        let stopped: String
        let started: @Sendable () -> Void
        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            guard context.flowID == stopped else { return try await CoreSDKDriver().makeSession(for: context) }
            started()
            // Waits, as for a driver's hello, until the run is cancelled; then fails as a
            // driver stopped by the interruption does.
            while !Task.isCancelled { await Task.yield() }
            throw DriverError("driver protocol: flowcheck driver was stopped before it sent hello: the run was interrupted", party: .driver)
        }
    }

    @Test func aFlowCutShortByTheInterruptionIsNotRunNotAHarnessError() async throws {
        let specs = Array(try SpecsEarnTheirPlaceTests.specs().filter { ["MLT-AUTH", "MLT-PRODUCTS"].contains($0.id) }.sorted { $0.id < $1.id })
        #expect(specs.count == 2)
        let interrupt = InterruptSignal()
        let runner = FlowRunner(driver: StoppedOnInterruptDriver(stopped: specs[0].id, started: { interrupt.deliver(SIGINT) }), options: .init(concurrency: 1))
        let (flows, signal) = await FlowCheckCommand.runUntilInterrupted(runner, specs, interrupt: interrupt) { _ in }
        #expect(signal == SIGINT)
        #expect(flows.isEmpty, "a flow the interruption cut short is not judged: \(flows.map { "\($0.id) \($0.status)" })")
    }
}
