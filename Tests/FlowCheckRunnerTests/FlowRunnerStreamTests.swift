import FlowCheckTestLanes
import Testing
import FlowCheckRunner
import FlowCheckSpec

/// `FlowRunner.stream` runs suites too large to hold: it reads specs only as flows finish and
/// keeps no result, while `run` keeps all of them in spec order.
@Suite(.integration, .timeLimit(.minutes(20)))
struct FlowRunnerStreamTests {
    /// Every call succeeds: the flows here check the runner, not an SDK.
    struct AgreeingDriver: FlowDriver {
        let name = "agrees"
        func makeSession(for context: DriverContext) async throws -> any FlowSession { AgreeingSession() }
    }

    final class AgreeingSession: FlowSession, Sendable {
        func perform(_ call: AppCall) async throws -> CallOutcome { .ok([:]) }
        func storeContents() async throws -> [String: String] { [:] }
        func close() async {}
    }

    /// Counts the specs the runner has pulled from the lazy sequence.
    final class PullCounter {
        var pulled = 0
    }

    @Test func streamPullsSpecsOnlyAsFlowsFinish() async throws {
        let spec = try HarnessErrorTests.spec(#"[{"app": "deleteToken"}]"#)
        let counter = PullCounter()
        let runner = FlowRunner(driver: AgreeingDriver(), options: .init(concurrency: 3))
        var finished = 0
        var ahead: [Int] = []
        await runner.stream((0..<50).lazy.map { _ in
            counter.pulled += 1
            return spec
        }) { result in
            finished += 1
            ahead.append(counter.pulled - finished)
            #expect(result.status == .passed, "\(result.failures.map(\.message))")
        }
        #expect(finished == 50)
        #expect(counter.pulled == 50)
        // When a result arrives, the specs pulled but not finished are the other flows still
        // running: at most concurrency - 1, and exactly that while the sequence lasts.
        #expect(ahead.max() == 2)
        #expect(ahead.first == 2)
        #expect(ahead.suffix(2) == [1, 0])
    }

    @Test func streamOfAnEmptySequenceRunsNothing() async {
        var finished = 0
        await FlowRunner(driver: AgreeingDriver()).stream(EmptyCollection<FlowSpec>()) { _ in finished += 1 }
        #expect(finished == 0)
    }

    @Test func runKeepsEveryResultInSpecOrder() async throws {
        let specs = try (1...7).map { number in
            var spec = try HarnessErrorTests.spec(#"[{"app": "deleteToken"}]"#)
            spec.id = "T-\(number)"
            return spec
        }
        let results = await FlowRunner(driver: AgreeingDriver(), options: .init(concurrency: 2)).run(specs)
        #expect(results.map(\.id) == specs.map(\.id))
    }
}
