import Foundation
import Testing
import FlowCheckCoreDriver
@testable import FlowCheckRunner
import FlowCheckReports
@testable import FlowCheckCLI
import FlowCheckSpec

/// No fixture secret and no token the fake issued may reach a report or the console.
struct NoSecretInReportsTests {
    /// Wraps the SDK core and remembers every token it ever had in its store.
    final class TokenSpy: @unchecked Sendable {
        private let lock = NSLock()
        private var tokens: Set<String> = []
        func add(_ values: some Sequence<String>) { lock.lock(); tokens.formUnion(values); lock.unlock() }
        var all: Set<String> { lock.lock(); defer { lock.unlock() }; return tokens }
    }

    struct SpyingDriver: FlowDriver {
        let name = "FlowCheck SDK core"
        let spy: TokenSpy

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let inner = try await CoreSDKDriver().makeSession(for: context)
            return BrokenVariants.OverridingSession(inner: inner, context: context) { [spy] call, inner, _ in
                let outcome = try await inner.perform(call)
                let stored = try await inner.storeContents()
                spy.add([stored["accessToken"], stored["refreshToken"]].compactMap { $0 })
                return outcome
            }
        }
    }

    @Test func fullRunLeaksNothing() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        let spy = TokenSpy()
        var options = FlowRunner.Options()
        // Every token, refresh token and code the fakes issued, not only what the SDK stored.
        options.issuedSecretsObserver = { spy.add($0) }
        let flows = await FlowRunner(driver: SpyingDriver(spy: spy), options: options).run(specs)
        let run = RunResult(flows: flows, driverName: "spy")
        let console = flows.map { FlowCheckCommand.consoleLine($0) }.joined(separator: "\n")
        let texts = [JUnitReport.render(run), MarkdownReport.render(run), console]
        let secrets = specs.flatMap(\.fixture.secrets)
        #expect(spy.all.count >= specs.count, "the spy saw too few tokens to prove anything")
        for needle in secrets + spy.all {
            for form in Redactor.forms(of: needle) {
                for text in texts {
                    #expect(!text.contains(form), "a secret leaked in the form \(form.prefix(3))…")
                }
            }
        }
        // The transcript is there, masked, not missing.
        #expect(texts[0].contains("client_secret=‹redacted›"))
        #expect(texts[0].contains("Bearer ‹redacted›"))
    }

    @Test(arguments: [
        ("s3&cr=t+ é", "form=s3%26cr%3Dt%2B+%C3%A9;", "form=‹redacted›;"),
        ("s3&cr=t+ é", "json {\"x\":\"s3&cr=t+ é\"}", "json {\"x\":\"‹redacted›\"}"),
        ("abcd1234", "Basic YWJjZDEyMzQ=", "Basic ‹redacted›"),
    ])
    func scrubsEveryTravellingForm(_ secret: String, _ text: String, _ expected: String) {
        #expect(Redactor(secrets: [secret]).scrub(text) == expected)
    }
}
