import Foundation
import Testing
import FlowCheckProviders
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSpec
import FlowCheckTestSupport

/// When the harness itself cannot go on, the flow is an error (exit 3), never a pass or a
/// conformance failure, and the run still finishes.
@Suite(.timeLimit(.minutes(5)))
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
        #expect(result.errorMessage?.contains("made no progress for 30 s of real time (it hung in step 2)") == true, "\(result.errorMessage ?? "")")
        #expect(result.steps.map(\.status) == [.passed, .notRun])
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
        #expect(result.errorMessage == "no SDK for T-HARNESS")
    }

    @Test func anUnsupportedActionIsAnErrorNotAFailure() async throws {
        let driver = BrokenVariants.overriding("unsupported") { call, _, _ in throw DriverError.unsupported(call, provider: .moltin) }
        let result = await FlowRunner(driver: driver).run(try Self.spec(#"[{"app": "relaunch"}]"#))
        #expect(result.status == .error)
        #expect(result.errorMessage == "step 1: the driver does not support the moltin action \"relaunch\"")
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
