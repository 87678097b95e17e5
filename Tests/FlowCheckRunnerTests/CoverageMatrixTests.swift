import FlowCheckTestLanes
import Testing
import FlowCheckProviders
import FlowCheckReports
@testable import FlowCheckRunner
import FlowCheckSpec

/// The coverage matrix: one row per catalogue requirement, in catalogue order, each citing flow
/// with its verdict, each citing invariant held or violated, "uncovered" where nothing checks it;
/// and the ids a result and its failures carry.
@Suite(.fast, .timeLimit(.minutes(20)))
struct CoverageMatrixTests {
    static let catalogue = [
        Requirement("SEED-003-auth", "Auth works.", source: "seed 003"),
        Requirement("SEED-003-bearer", "Bearer header.", source: "seed 003"),
        Requirement("RFC6749-10.3", "Tokens stay secret.", source: "RFC 6749 §10.3"),
        Requirement("RFC6749-4.4", "Client credentials.", source: "RFC 6749 §4.4"),
        Requirement("RFC8252-8.12", "No embedded web view.", source: "RFC 8252 §8.12"),
    ]

    static func flow(_ id: String, _ status: FlowResult.Status, requirements: [String], failures: [CheckFailure] = [], skips: [CheckSkip] = [], steps: [StepResult] = []) -> FlowResult {
        var result = FlowResult(
            id: id, title: id, summary: nil, file: "\(id).json", provider: "moltin", seed: "003_d427daaf6ba0e8e7.txt", passage: "p",
            decisions: [], steps: steps, status: status, failures: failures, errorMessage: status == .error ? "broke" : nil,
            transcript: [], duration: 0, skips: skips
        )
        result.requirements = requirements
        return result
    }

    static func step(_ number: Int, _ requirements: [String]) -> StepResult {
        var step = StepResult(number: number, line: number, action: nil, checks: [], note: nil, status: .passed)
        step.requirements = requirements
        return step
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var flow: FlowResult
        var requirement: String
        var verdict: CoverageMatrix.Verdict
        var testDescription: String { name }
    }

    static let verdicts: [Case] = [
        Case(name: "passed: held", flow: flow("A", .passed, requirements: ["SEED-003-auth"]), requirement: "SEED-003-auth", verdict: .held),
        Case(name: "a failure citing it: violated", flow: flow("A", .failed, requirements: ["SEED-003-auth", "SEED-003-bearer"], failures: [CheckFailure(step: 1, line: 1, check: "c", expected: "e", actual: "a", requirements: ["SEED-003-auth"])]), requirement: "SEED-003-auth", verdict: .violated),
        Case(name: "a failure citing another: unsettled", flow: flow("A", .failed, requirements: ["SEED-003-auth", "SEED-003-bearer"], failures: [CheckFailure(step: 1, line: 1, check: "c", expected: "e", actual: "a", requirements: ["SEED-003-auth"])]), requirement: "SEED-003-bearer", verdict: .unsettled),
        Case(name: "harness error", flow: flow("A", .error, requirements: ["SEED-003-auth"]), requirement: "SEED-003-auth", verdict: .error),
        Case(name: "a skipped step citing it", flow: flow("A", .passedWithSkips, requirements: ["SEED-003-auth", "SEED-003-bearer"], skips: [CheckSkip(step: 2, line: 2, check: "storeFiles", reason: "r")], steps: [step(1, []), step(2, ["SEED-003-bearer"])]), requirement: "SEED-003-bearer", verdict: .skipped),
        Case(name: "a skipped step citing another", flow: flow("A", .passedWithSkips, requirements: ["SEED-003-auth", "SEED-003-bearer"], skips: [CheckSkip(step: 2, line: 2, check: "storeFiles", reason: "r")], steps: [step(1, []), step(2, ["SEED-003-bearer"])]), requirement: "SEED-003-auth", verdict: .held),
        Case(name: "a skipped step with no ids of its own checks the flow's", flow: flow("A", .passedWithSkips, requirements: ["SEED-003-auth"], skips: [CheckSkip(step: 1, line: 1, check: "storeFiles", reason: "r")], steps: [step(1, [])]), requirement: "SEED-003-auth", verdict: .skipped),
    ]

    @Test(arguments: verdicts)
    func verdictOfAFlow(_ testCase: Case) {
        #expect(CoverageMatrix.verdict(of: testCase.flow, on: testCase.requirement) == testCase.verdict)
    }

    @Test func aRunsMatrixListsEveryRequirementOnceInOrder() {
        let leak = CheckFailure(step: 1, line: 1, check: "INV-LEAK: the token in an error message", expected: "e", actual: "a", requirements: Invariant.leak.requirements)
        let results = [
            Self.flow("MLT-AUTH", .passed, requirements: ["SEED-003-auth", "RFC6749-4.4"]),
            Self.flow("MLT-PRODUCTS", .failed, requirements: ["SEED-003-bearer"], failures: [leak]),
        ]
        let matrix = CoverageMatrix(requirements: Self.catalogue, results: results, invariants: [.leak])
        #expect(matrix.rows.map(\.id) == Self.catalogue.map(\.id))
        #expect(matrix.ran)
        #expect(matrix.total == 5)
        #expect(matrix.covered == 4)
        let byID = Dictionary(uniqueKeysWithValues: matrix.rows.map { ($0.id, $0) })
        #expect(byID["SEED-003-auth"]?.flows == [.init(flow: "MLT-AUTH", verdict: .held)])
        #expect(byID["SEED-003-bearer"]?.flows == [.init(flow: "MLT-PRODUCTS", verdict: .unsettled)])
        #expect(byID["RFC6749-10.3"]?.flows == [])
        #expect(byID["RFC6749-10.3"]?.invariants == [.init(invariant: "INV-LEAK", violatedIn: ["MLT-PRODUCTS"])])
        #expect(byID["RFC8252-8.12"]?.isCovered == false)

        let markdown = MarkdownReport.coverage(matrix)
        #expect(markdown.contains("4 of 5 requirements covered"))
        for requirement in Self.catalogue {
            #expect(markdown.components(separatedBy: "\n| \(requirement.id) |").count == 2, "\(requirement.id) must have exactly one row")
        }
        #expect(markdown.contains("| RFC8252-8.12 | No embedded web view. _(RFC 8252 §8.12)_ | **uncovered** |  |"))
        #expect(markdown.contains("| RFC6749-10.3 | Tokens stay secret. _(RFC 6749 §10.3)_ |  | INV-LEAK ❌ [MLT-PRODUCTS](#mlt-products) |"))
        #expect(markdown.contains("| SEED-003-auth | Auth works. _(seed 003)_ | [MLT-AUTH](#mlt-auth) ✅ |  |"))
    }

    @Test func theRealCatalogueHasOneRowPerId() throws {
        let matrix = CoverageMatrix(requirements: RequirementCatalogue.all, specs: [])
        #expect(!matrix.ran)
        #expect(matrix.rows.map(\.id) == RequirementCatalogue.all.map(\.id))
        // With no specs only the invariants cover anything.
        let byInvariants = Set(Invariant.allCases.flatMap(\.requirements))
        #expect(matrix.covered == byInvariants.count)
    }

    @Test("a failure cites its invariant's ids, else its step's, else its flow's")
    func failuresCiteTheirRequirements() throws {
        let text = """
        {"id": "T-CITE", "title": "t", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-auth"], "provider": "moltin",
         "fixture": {"clients": [{"id": "c", "secret": "sk-cite-1234"}]},
         "steps": [{"app": "products", "requirements": ["SEED-003-bearer"]}, {"app": "products"}]}
        """
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(text.utf8), file: "t.json") else {
            Issue.record("the spec did not load")
            return
        }
        let raw = Self.flow("T-CITE", .failed, requirements: [], failures: [
            CheckFailure(step: 1, line: 1, check: "result", expected: "e", actual: "a"),
            CheckFailure(step: 2, line: 1, check: "result", expected: "e", actual: "a"),
            CheckFailure(step: 2, line: 1, check: "INV-KEEP: the token was deleted", expected: "e", actual: "a"),
            CheckFailure(step: 2, line: 1, check: "result", expected: "e", actual: "a", requirements: ["RFC6749-6"]),
        ], steps: [Self.step(1, []), Self.step(2, [])])
        let cited = raw.citing(spec)
        #expect(cited.requirements == ["SEED-003-auth", "SEED-003-bearer"])
        #expect(cited.steps.map(\.requirements) == [["SEED-003-bearer"], []])
        #expect(cited.failures.map(\.requirements) == [["SEED-003-bearer"], ["SEED-003-auth"], Invariant.keep.requirements, ["RFC6749-6"]])
    }

    @Test(arguments: [("INV-LEAK: x", Invariant.leak), ("INV-STORE", .store), ("INV-SECRET-WIRE: y", .secretWire)])
    func invariantFailuresAreRecognised(_ check: String, _ invariant: Invariant) {
        #expect(Invariant.cited(by: CheckFailure(step: 1, line: 1, check: check, expected: "", actual: "")) == invariant)
    }

    @Test(arguments: ["INV-STOREX: z", "result.INV-LEAK", "requests[0]"])
    func otherChecksAreNotInvariants(_ check: String) {
        #expect(Invariant.cited(by: CheckFailure(step: 1, line: 1, check: check, expected: "", actual: "")) == nil)
    }
}
