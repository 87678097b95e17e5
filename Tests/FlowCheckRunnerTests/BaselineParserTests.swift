import FlowCheckTestLanes
import Testing
import FlowCheckRunner
import FlowCheckSpec

/// `--baseline` files: what is read, and the exact `file:line:` message for each way a line
/// can be wrong.
@Suite(.fast, .timeLimit(.minutes(20)))
struct BaselineParserTests {
    static func problem(_ text: String) -> String? {
        do {
            _ = try Baseline.parse(text, file: "known.txt")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsIdsAndReasonsSkippingCommentsAndBlankLines() throws {
        let baseline = try Baseline.parse("# known debt\n\nMLT-AUTH  token not refreshed  \n\t# indented comment\r\nCLV-OAUTH-2 state\tunchecked\r\n", file: "known.txt")
        #expect(baseline.entries == [
            .init(id: "MLT-AUTH", reason: "token not refreshed", line: 3),
            .init(id: "CLV-OAUTH-2", reason: "state\tunchecked", line: 5),
        ])
        #expect(baseline.reasons == ["MLT-AUTH": "token not refreshed", "CLV-OAUTH-2": "state\tunchecked"])
    }

    @Test func anEmptyFileIsAnEmptyBaseline() throws {
        #expect(try Baseline.parse("", file: "known.txt").entries.isEmpty)
    }

    @Test func malformedLinesAreNamedByFileAndLine() {
        #expect(Self.problem("# c\n\nmlt-auth reason\n") == "known.txt:3: \"mlt-auth\" is not a flow id (expected a line like `MLT-AUTH reason words`, a # comment or a blank line)")
        #expect(Self.problem("MLTAUTH reason") == "known.txt:1: \"MLTAUTH\" is not a flow id (expected a line like `MLT-AUTH reason words`, a # comment or a blank line)")
        #expect(Self.problem("MLT-AUTH\n") == "known.txt:1: MLT-AUTH has no reason (write why it is expected to fail after the id: `MLT-AUTH reason words`)")
        #expect(Self.problem("MLT-AUTH a\nMLT-B b\nMLT-AUTH c") == "known.txt:3: MLT-AUTH is listed twice (first on line 1)")
    }

    @Test func anUnknownIdIsNamedWithTheClosestKnownOne() throws {
        let baseline = try Baseline.parse("MLT-AUTH ok\nMLT-AUHT typo\nZZZ-QQQ gone\n", file: "known.txt")
        #expect(throws: Baseline.Problem(file: "known.txt", line: 2, message: "no loaded spec has the flow id MLT-AUHT (did you mean MLT-AUTH?)")) {
            try baseline.check(knownIDs: ["MLT-AUTH", "CLV-OAUTH"])
        }
        let far = try Baseline.parse("ZZZ-QQQ gone\n", file: "known.txt")
        #expect(throws: Baseline.Problem(file: "known.txt", line: 1, message: "no loaded spec has the flow id ZZZ-QQQ")) {
            try far.check(knownIDs: ["MLT-AUTH"])
        }
        try Baseline.parse("MLT-AUTH ok\n", file: "known.txt").check(knownIDs: ["MLT-AUTH"])
    }

    @Test func renderedBaselinesAreSortedOneLineAndReadBack() throws {
        let text = Baseline.render([(id: "MLT-B", reason: "two\nlines"), (id: "MLT-A", reason: "")], command: "flowcheck --write-baseline k specs")
        #expect(text.hasPrefix("# flowcheck baseline:"))
        #expect(text.contains("# Written by `flowcheck --write-baseline k specs`"))
        let baseline = try Baseline.parse(text, file: "k")
        #expect(baseline.entries.map(\.id) == ["MLT-A", "MLT-B"])
        #expect(baseline.entries.map(\.reason) == ["failed", "two lines"])
    }

    /// Only a failure is baselined: an error the baseline lists stays an error, and a listed
    /// flow that passed is named as unexpectedly passing.
    @Test func onlyFailuresAreBaselinedAndPassesAreNamed() {
        func flow(_ id: String, _ status: FlowResult.Status) -> FlowResult {
            FlowResult(id: id, title: "t", summary: nil, file: "f.json", provider: "moltin", seed: "s", passage: "p", decisions: [], steps: [], status: status, failures: [], errorMessage: nil, transcript: [], duration: 0)
        }
        let run = RunResult(
            flows: [flow("A-FAIL", .failed), flow("B-FAIL", .failed), flow("C-ERR", .error), flow("D-PASS", .passed), flow("E-SKIP", .passedWithSkips)],
            driverName: "d", baselined: ["A-FAIL": "known", "C-ERR": "known", "D-PASS": "known", "E-SKIP": "known"])
        #expect(run.flows.map { run.baselineReason($0) } == ["known", nil, nil, nil, nil])
        #expect(run.baselinedFailures == 1 && run.newFailures == 1 && run.errors == 1)
        #expect(run.unexpectedlyPassing == ["D-PASS", "E-SKIP"])
    }

    /// An invariant's line baselines the flows whose every failure is that invariant's (a rule
    /// the SDK breaks everywhere); a flow with any other failure still fails the run.
    @Test func anInvariantLineBaselinesOnlyFlowsThatFailNothingElse() throws {
        let baseline = try Baseline.parse("INV-KEEP the store is rewritten on every call\nMLT-AUTH known\n", file: "b.txt")
        try baseline.check(knownIDs: ["MLT-AUTH", "MLT-PRODUCTS"] + Invariant.allCases.map(\.rawValue))
        func failure(_ check: String) -> CheckFailure {
            CheckFailure(step: 1, line: 1, check: check, expected: "e", actual: "a")
        }
        func flow(_ id: String, _ failures: [CheckFailure]) -> FlowResult {
            FlowResult(id: id, title: "t", summary: nil, file: "f.json", provider: "moltin", seed: "s", passage: "p", decisions: [], steps: [], status: .failed, failures: failures, errorMessage: nil, transcript: [], duration: 0)
        }
        let run = RunResult(flows: [
            flow("ONLY-KEEP", [failure("INV-KEEP"), failure("INV-KEEP")]),
            flow("KEEP-AND-MORE", [failure("INV-KEEP"), failure("requests")]),
            flow("OTHER-INVARIANT", [failure("INV-LEAK")]),
            flow("MLT-AUTH", [failure("outcome")]),
        ], driverName: "d", baselined: baseline.reasons)
        #expect(run.flows.map { run.baselineReason($0) } == ["INV-KEEP: the store is rewritten on every call", nil, nil, "known"])
        #expect(run.baselinedFailures == 2 && run.newFailures == 2)
        // An invariant line is not a flow: it is never "unexpectedly passing".
        #expect(run.unexpectedlyPassing.isEmpty)
    }
}
