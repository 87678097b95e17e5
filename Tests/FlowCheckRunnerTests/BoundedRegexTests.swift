import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckCoreDriver
import FlowCheckSpec

/// A regex check always ends: a pattern that would backtrack for ever elsewhere gets a
/// verdict, and a search over its step budget is a failure of the spec's check that names the
/// pattern and the step's `file:line`, never a hang and never a verdict on the SDK.
@Suite(.integration, .timeLimit(.minutes(20)))
struct BoundedRegexTests {
    @Test func aSearchThatGivesUpIsAFailureNamingThePatternAndTheStep() {
        var checker = ExpectationChecker(step: Step(number: 2, location: SourceLocation(line: 14, column: 7)), variables: [:])
        checker.specFile = "specs/slow.json"
        checker.regexStepBudget = 50
        let value = String(repeating: "a", count: 200) + "!"
        checker.check(Table.expect(.result([Table.field("title", Table.m(.regex("(a+)+$")))])), StepObservation(call: .ok(["title": value])))
        #expect(checker.failures.map(\.message) == [
            "step 2: result.title: expected matches /(a+)+$/, got no verdict (specs/slow.json:14: the search gave up after 51 steps (its budget) on a 201-character value; the spec's check, not the SDK)",
        ])
        #expect(checker.failures.first?.line == 14)
    }

    /// The same check within the default budget gets its verdict: the budget, not the shape,
    /// made the test above give up.
    @Test func theSameCheckWithTheDefaultBudgetGetsAVerdict() {
        var checker = ExpectationChecker(step: Step(number: 2, location: SourceLocation(line: 14, column: 7)), variables: [:])
        checker.check(Table.expect(.result([Table.field("title", Table.m(.regex("(a+)+$")))])), StepObservation(call: .ok(["title": String(repeating: "a", count: 200)])))
        #expect(checker.failures.isEmpty)
    }

    /// A sensitive field's value is not shown when the search gives up either: only its length.
    @Test func aGaveUpFailureNeverShowsTheValue() {
        var checker = ExpectationChecker(step: Step(number: 1, location: SourceLocation(line: 3, column: 1)), variables: [:])
        checker.regexStepBudget = 5
        checker.check(Table.expect(.result([Table.field("accessToken", Table.m(.regex("^x+$")))])), StepObservation(call: .ok(["accessToken": "xxxxxxxxxxsecret"])))
        #expect(checker.failures.count == 1)
        #expect(checker.failures.allSatisfy { !$0.message.contains("secret") })
    }

    /// End to end: the fake serves a product whose title is 100,000 a's and a '!'; the spec's
    /// `(a+)+$` (which backtracks for ever in NSRegularExpression) fails the flow with the
    /// actual value, well inside the flow's watchdog, so the flow fails instead of erroring.
    @Test func aCatastrophicPatternAgainstALongValueFailsTheFlow() async throws {
        let title = String(repeating: "a", count: 100_000) + "!"
        let text = """
        {"id": "T-REGEX", "title": "t", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-auth"], "provider": "moltin",
         "fixture": {"clients": [{"id": "c", "secret": "sk-regex-1234"}], "products": [{"id": "p1", "title": "\(title)", "price": 1}]},
         "steps": [{"app": "auth", "with": {"clientId": "c", "clientSecret": "sk-regex-1234"}},
                   {"app": "products", "expect": {"outcome": "ok", "result": {"productTitles": {"regex": "(a+)+$"}}}}]}
        """
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(text.utf8), file: "t.json") else {
            Issue.record("the spec did not load")
            return
        }
        #expect(spec.warnings.count == 1, "the nested quantifier is warned about")
        let result = await FlowRunner(driver: CoreSDKDriver()).run(spec)
        #expect(result.status == .failed, "\(result.errorMessage ?? "")")
        #expect(result.failures.map(\.check) == ["result.productTitles"])
        #expect(result.failures.first?.expected == "matches /(a+)+$/")
        #expect(result.failures.first?.actual.hasSuffix("a!\"") == true)
    }
}
