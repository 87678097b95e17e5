import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckProviders
import FlowCheckCoreDriver
@testable import FlowCheckRunner
import FlowCheckSpec
import FlowCheckSDK
import FlowCheckTestSupport

/// When the harness itself cannot go on, the flow is an error (exit 3), never a pass or a
/// conformance failure, and the run still finishes.
@Suite(.integration, .timeLimit(.minutes(20)))
struct HarnessErrorTests {
    /// Tells the watchdog when the session has hung, so the test needs no real time.
    final class HangSignal: Sendable {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream<Void>.makeStream() }

        /// A watchdog that "expires" as soon as the session says it has hung. Should the
        /// session never get there, it expires after `limit` of real time anyway and the
        /// test fails naming this wait (at the caller's line), rather than waiting for good.
        func watchdog(within limit: Duration = HangBound.standard, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Watchdog {
            .waiting { [stream] _ in
                // The bound runs on FlowCheckTestSupport's deadline thread, not on a pool timer.
                let hung = OneShot<Void>()
                let listener = Task {
                    for await _ in stream {
                        hung.fulfil(.success(()))
                        return
                    }
                }
                defer { listener.cancel() }
                do {
                    try await hung.value("HarnessErrorTests.HangSignal.watchdog: the session did not hang", within: limit)
                } catch let error as WaitTimedOut {
                    Issue.record("\(error)", sourceLocation: sourceLocation)
                } catch {
                    // Cancelled: the run is over.
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
    /// whatever the load: hung about two limits after the flow stopped moving while the
    /// harness could run (a 3 s limit stands for the 30 s one). Only the verdict is checked,
    /// never how long it took: a loaded machine may excuse the flow a few more limits. The flow
    /// is the hanging step alone: with a step before it, 3 s of real time would also be the
    /// bound on that step's own progress, which a machine with 16 busy loops can miss (the
    /// virtual-clock test above shows the step attribution).
    @Test func aHungCallIsReportedOnTheRealClock() async throws {
        let signal = HangSignal()
        let limit = 3
        let runner = FlowRunner(driver: HangingDriver(signal: signal), options: .init(timeLimit: .seconds(limit), watchdog: .realTime))
        let result = await runner.run(try Self.spec(#"[{"app": "products"}]"#))
        #expect(result.status == .error)
        #expect(result.errorMessage?.contains("made no progress for \(limit) s of real time (it hung in step 1)") == true, "\(result.errorMessage ?? "")")
        #expect(result.steps.map(\.status) == [.notRun])
    }

    /// FLT-STALL judges the request timeout on the flow's clock, with no timer racing another:
    /// the stall moves the clock 31 s past the request's start, so an SDK whose timeout
    /// follows that clock gives up at once. One whose timeout the clock never reaches (an hour
    /// of virtual time) or that times out on the wall clock only is still waiting when the
    /// harness looks (`StallJudge.grace` of real time later, once a probe shows the harness
    /// could run): the step fails, saying so, and the stall is ended, so the flow neither
    /// passes on a wall-clock timer nor waits for the watchdog. (About 2 s on an idle machine;
    /// only the verdict is checked, never the time.)
    @Test(arguments: [
        ("no request timeout", FaultBrokenVariants.noTimeout),
        ("a 120 s wall-clock timeout only (far above the judge's grace and its excuses)", CoreSDKDriver(name: "wall-clock timeout", transport: { WallClockTimeout(base: $0, seconds: 120) }, requestTimeout: 3600)),
    ] as [(String, any FlowDriver)])
    func aTimeoutOffTheFlowsClockFailsTheStallPromptly(_ name: String, _ driver: any FlowDriver) async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "FLT-STALL" })
        let result = await FlowRunner(driver: driver).run(spec)
        #expect(result.status == .failed, "\(name): \(result.status) \(result.errorMessage ?? "")")
        let failure = try #require(result.failures.first)
        #expect(failure.step == 3 && failure.check == "request timeout", "\(failure.message)")
        #expect(failure.actual.contains("does not follow the flow's clock"), "\(failure.message)")
        #expect(result.steps.prefix(3).map(\.status) == [.passed, .passed, .failed])
    }

    /// A timeout that does follow the flow's clock passes FLT-STALL without waiting: the stall
    /// is over as soon as the clock moves, never held for the judge's grace.
    @Test func aTimeoutOnTheFlowsClockPassesTheStallAtOnce() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "FLT-STALL" })
        let result = await FlowRunner(driver: CoreSDKDriver()).run(spec)
        #expect(result.status == .passed, "\(result.failures.map(\.message)) \(result.errorMessage ?? "")")
    }

    /// A transport that gives up after `seconds` of real time only: the timeout an SDK gets
    /// from `URLSessionConfiguration.timeoutIntervalForRequest` and nothing else.
    struct WallClockTimeout: HTTPTransport {
        let base: any HTTPTransport
        let seconds: Double
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            try await withThrowingTaskGroup(of: TransportResponse.self) { group in
                group.addTask { try await base.send(request) }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    throw OAuthError(code: .transport, message: "timed out after \(seconds) s of real time")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        }
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
