import Foundation
import Testing
import FlowCheckProviders
import FlowCheckCoreDriver
@testable import FlowCheckRunner
import FlowCheckSpec

/// When the harness itself cannot go on, the flow is an error (exit 3), never a pass or a
/// conformance failure, and the run still finishes.
@Suite(.timeLimit(.minutes(20)))
struct HarnessErrorTests {
    /// Tells the watchdog when the session has hung, so the test needs no real time.
    final class HangSignal: Sendable {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream<Void>.makeStream() }

        /// A watchdog that "expires" as soon as the session says it has hung. Should the
        /// session never get there, it expires after `seconds` of real time anyway and the
        /// test fails naming this wait (at the caller's line), rather than waiting for good.
        func watchdog(within seconds: Int = 60, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Watchdog {
            .waiting { [stream] _ in
                let hung = await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        for await _ in stream { return true }
                        return false
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(seconds))
                        return false
                    }
                    defer { group.cancelAll() }
                    return await group.next() ?? false
                }
                if !hung, !Task.isCancelled {
                    Issue.record("HarnessErrorTests.HangSignal.watchdog: the session did not hang within \(seconds) s", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// A session whose `products` never returns: a hung SDK call.
    final class HangingSession: FlowSession, @unchecked Sendable {
        let signal: HangSignal
        init(signal: HangSignal) { self.signal = signal }

        func perform(_ call: AppCall) async throws -> CallOutcome {
            if call.name == "products" {
                signal.continuation.yield()
                // Waits for an element that never comes; ends only when the runner cancels it.
                let (stream, continuation) = AsyncStream<Never>.makeStream()
                for await _ in stream {}
                continuation.finish()
            }
            return .ok([:])
        }
        func storeContents() async throws -> [String: String] { [:] }
        func close() async {}
    }

    struct HangingDriver: FlowDriver {
        let name = "hangs"
        let signal: HangSignal
        func makeSession(for context: DriverContext) async throws -> any FlowSession { HangingSession(signal: signal) }
    }

    struct RefusingDriver: FlowDriver {
        let name = "refuses"
        func makeSession(for context: DriverContext) async throws -> any FlowSession { throw DriverError("no SDK for \(context.flowID)") }
    }

    static func spec(_ steps: String) throws -> FlowSpec {
        let text = """
        {"id": "T-HARNESS", "title": "t", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-errors"], "provider": "moltin",
         "fixture": {"clients": [{"id": "c", "secret": "sk-harness"}]}, "steps": \(steps)}
        """
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(text.utf8), file: "t.json") else { throw DriverError("spec did not load") }
        return spec
    }

    @Test func aHungCallIsReportedWithItsStep() async throws {
        // The watchdog "expires" exactly when the session has hung: no real time involved.
        let signal = HangSignal()
        let runner = FlowRunner(driver: HangingDriver(signal: signal), options: .init(timeLimit: .seconds(30), watchdog: signal.watchdog()))
        let result = await runner.run(try Self.spec(#"[{"app": "deleteToken"}, {"app": "products"}]"#))
        #expect(result.status == .error)
        #expect(result.errorMessage?.contains("made no progress for 30 s of real time (it hung in step 2); the SDK's call products never returned") == true, "\(result.errorMessage ?? "")")
        // The SDK's call never came back: the SDK's to answer for, at step 2.
        #expect(result.errorMessage?.hasPrefix("step 2: SDK: ") == true, "\(result.errorMessage ?? "")")
        #expect(result.harnessError?.party == .sdk)
        #expect(result.steps.map(\.status) == [.passed, .notRun])
    }

    /// The same hang on the real clock, as `flowcheck` runs it: a step that never returns, with
    /// nothing moving (no server traffic, no driver output), is reported as hung in that step,
    /// whatever the load. The watchdog's documented bound: hung at most two limits after the
    /// flow stopped moving while the harness could run, and in no case later than
    /// `progressLimits` limits plus one probe wait per excused starvation. The result's
    /// duration is checked against that bound, which the watchdog guarantees: it is no speed
    /// test (a 1 s limit stands for the 30 s one, a loaded machine only gets nearer the bound).
    @Test func aHungCallIsReportedOnTheRealClockWithinItsBound() async throws {
        let signal = HangSignal()
        let limit = 1
        let runner = FlowRunner(driver: HangingDriver(signal: signal), options: .init(timeLimit: .seconds(limit), watchdog: .realTime))
        let result = await runner.run(try Self.spec(#"[{"app": "deleteToken"}, {"app": "products"}]"#))
        #expect(result.status == .error)
        #expect(result.errorMessage?.contains("made no progress for \(limit) s of real time (it hung in step 2)") == true, "\(result.errorMessage ?? "")")
        #expect(result.steps.map(\.status) == [.passed, .notRun])
        let bound = Double(limit * (Watchdog.progressLimits + Watchdog.starvedLimits + 1))
        #expect(result.duration < bound, "reported after \(result.duration) s, past the documented bound of \(bound) s")
    }

    /// FLT-STALL's decision, shown: an SDK whose timeout the flow's clock never reaches waits
    /// on the silent server for good, and the runner reports a harness error for that step
    /// instead of hanging. Once the stalled call has started it can never end on its own (its
    /// deadline is an hour of virtual time away), so the watchdog fires then: no real time.
    @Test func aStallAgainstAnSDKWithoutATimeoutIsAHarnessErrorNotAHang() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "FLT-STALL" })
        let signal = HangSignal()
        // Tells the watchdog when products starts, then lets the SDK make the call.
        let driver = BrokenVariants.overriding("no request timeout", base: FaultBrokenVariants.noTimeout) { call, _, _ in
            if call.name == "products" { signal.continuation.yield() }
            return nil
        }
        let runner = FlowRunner(driver: driver, options: .init(timeLimit: .seconds(30), watchdog: signal.watchdog()))
        let result = await runner.run(spec)
        #expect(result.status == .error)
        #expect(result.errorMessage?.contains("(it hung in step 3)") == true, "\(result.errorMessage ?? "")")
        #expect(result.steps.prefix(3).map(\.status) == [.passed, .passed, .notRun])
    }

    @Test func aDriverThatCannotStartIsAnError() async throws {
        let result = await FlowRunner(driver: RefusingDriver()).run(try Self.spec(#"[{"app": "products"}]"#))
        #expect(result.status == .error)
        // The driver's, before the first step could begin, at that step's line.
        #expect(result.errorMessage == "before step 1: driver: starting the flow's session (makeSession): no SDK for T-HARNESS")
        #expect(result.harnessError?.party == .driver)
        #expect(result.harnessError?.place == .before(step: 1) && result.harnessError?.line == 2)
    }

    @Test func anUnsupportedActionIsAnErrorNotAFailure() async throws {
        let driver = BrokenVariants.overriding("unsupported") { call, _, _ in throw DriverError.unsupported(call, provider: .moltin) }
        let result = await FlowRunner(driver: driver).run(try Self.spec(#"[{"app": "relaunch"}]"#))
        #expect(result.status == .error)
        #expect(result.errorMessage == "step 1: driver: the driver does not support the moltin action \"relaunch\"")
        #expect(result.harnessError?.party == .driver && result.harnessError?.place == .during(step: 1))
    }

    @Test func theFirstFailingStepStopsTheFlowAndNamesEveryFailedCheck() async throws {
        let result = await FlowRunner(driver: CoreSDKDriver()).run(try Self.spec("""
        [{"app": "products", "expect": {"outcome": "ok", "requests": [{"method": "POST", "status": 200}]}},
         {"app": "products"}]
        """))
        #expect(result.status == .failed)
        #expect(result.steps.map(\.status) == [.failed, .notRun])
        #expect(result.failures.map(\.message) == [
            "step 1: outcome: expected success, got httpStatus error: Access token is required",
            "step 1: requests[0] (GET /v1/products).method: expected \"POST\", got \"GET\"",
            "step 1: requests[0] (GET /v1/products).status: expected 200, got 400",
        ])
    }
}
