import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// Issue 13, build 7: the loader checks every value the driver will interpret (each action
/// argument against its type, templates' `${` syntax), with the exact message an author sees.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ArgumentTypeTests {
    typealias Case = SpecLoaderErrorTests.Case

    /// A Clover spec with `steps`.
    static func clover(_ steps: String) -> String {
        SpecLoaderErrorTests.spec(steps: steps, fixture: #"{"apps": [{"id": "APP1", "secret": "clv-app-secret-7Yq2", "siteURL": "https://pos.example.com/"}], "merchants": [], "employees": []}"#)
            .replacingOccurrences(of: "\"provider\": \"moltin\"", with: "\"provider\": \"clover\"")
    }

    static let cases: [Case] = [
        Case(name: "concurrent: not a number", json: clover(#"[{"app": "merchant", "with": {"concurrent": "abc"}}]"#), expected: [
            "t.json:7:56: error: \"abc\" is not a whole number from 1 to 64 at $.steps[0].with.concurrent\n  fix: write a number such as \"1\"",
        ]),
        Case(name: "concurrent: beyond what the driver honours", json: clover(#"[{"app": "merchant", "with": {"concurrent": "100000"}}]"#), expected: [
            "t.json:7:56: error: 100000 is out of range at $.steps[0].with.concurrent\n  fix: use a number from 1 to 64",
        ]),
        Case(name: "concurrent: zero", json: clover(#"[{"app": "merchant", "with": {"concurrent": 0}}]"#), expected: [
            "t.json:7:56: error: 0 is out of range at $.steps[0].with.concurrent\n  fix: use a number from 1 to 64",
        ]),
        Case(name: "concurrent: a variable, which the driver would read as written", json: clover(#"[{"app": "merchant", "with": {"concurrent": "${redirect}"}}]"#), expected: [
            "t.json:7:56: error: \"${redirect}\" takes no variables: the driver reads this argument as written at $.steps[0].with.concurrent\n  fix: write the value itself, e.g. \"1\"",
        ]),
        Case(name: "environment: a misspelt name", json: clover(#"[{"app": "environment", "with": {"name": "Sandbox"}}]"#), expected: [
            "t.json:7:53: error: unknown value \"Sandbox\" at $.steps[0].with.name\n  fix: did you mean \"sandbox\"? values: sandbox, production, custom",
        ]),
        Case(name: "environment: a name from a variable", json: clover(#"[{"app": "environment", "with": {"name": "${redirect}"}}]"#), expected: [
            "t.json:7:53: error: \"${redirect}\" takes no variables: the driver reads this argument as written at $.steps[0].with.name\n  fix: write the value itself, e.g. \"sandbox\"",
        ]),
        Case(name: "environment: custom without its baseURL", json: clover(#"[{"app": "environment", "with": {"name": "custom"}}]"#), expected: [
            "t.json:7:53: error: \"environment\" with name \"custom\" needs the argument \"baseURL\" at $.steps[0].with.name\n  fix: add \"baseURL\": \"https://clover.internal.example\" to \"with\"",
        ]),
        Case(name: "environment: a baseURL the driver ignores", json: clover(#"[{"app": "environment", "with": {"name": "sandbox", "baseURL": "https://clover.internal.example"}}]"#), expected: [
            "t.json:7:64: error: \"baseURL\" is read only when name is \"custom\"; with \"sandbox\" the driver ignores it at $.steps[0].with.baseURL\n  fix: remove \"baseURL\", or write \"name\": \"custom\"",
        ]),
        Case(name: "environment: a baseURL that is not a URL", json: clover(#"[{"app": "environment", "with": {"name": "custom", "baseURL": "clover.internal.example"}}]"#), expected: [
            "t.json:7:74: error: \"clover.internal.example\" is not an absolute URL at $.steps[0].with.baseURL\n  fix: write it with a scheme, e.g. \"https://pos.example.com/oauth/callback\" or \"com.example.app:/callback\"",
        ]),
        Case(name: "a URL argument whose literal start is not a URL", json: clover(#"[{"app": "receiveRedirect", "with": {"url": "callback?code=${redirect}"}}]"#), expected: [
            "t.json:7:56: error: \"callback?code=${redirect}\" is not an absolute URL at $.steps[0].with.url\n  fix: write it with a scheme, e.g. \"https://pos.example.com/oauth/callback\" or \"com.example.app:/callback\"",
        ]),
        Case(name: "tamper remove: a misspelt parameter, an empty item, a repeat", json: SpecLoaderErrorTests.spec(steps: #"[{"browser": "tamper", "with": {"remove": "stat,,code, code"}}]"#), expected: [
            "t.json:7:54: error: unknown value \"stat\" in the list \"stat,,code, code\" at $.steps[0].with.remove\n  fix: did you mean \"state\"? values: state, code, client_id, merchant_id, error, access_token, token",
            "t.json:7:54: error: an empty item in the list \"stat,,code, code\" at $.steps[0].with.remove\n  fix: separate the names with single commas, e.g. \"state,code\"",
            "t.json:7:54: error: \"code\" is listed twice in \"stat,,code, code\" at $.steps[0].with.remove\n  fix: list it once",
        ]),
        Case(name: "tamper remove: a variable", json: SpecLoaderErrorTests.spec(steps: #"[{"browser": "tamper", "with": {"remove": "${redirect}"}}]"#), expected: [
            "t.json:7:54: error: \"${redirect}\" takes no variables: the driver reads this argument as written at $.steps[0].with.remove\n  fix: write the value itself, e.g. \"state,code\"",
        ]),
        Case(name: "template: an unclosed ${", json: SpecLoaderErrorTests.spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": "Bearer ${token"}}}]"#), expected: [
            "t.json:7:69: error: \"${\" at character 8 of \"Bearer ${token\" is never closed at $.steps[0].expect.store.accessToken\n  fix: close the variable with \"}\", e.g. \"${token}\", or write \"$${\" for a literal \"${\"",
        ]),
        Case(name: "template: an empty name", json: SpecLoaderErrorTests.spec(steps: #"[{"app": "auth", "with": {"clientId": "a${}b", "clientSecret": "sk-abcdef"}}]"#), expected: [
            "t.json:7:50: error: \"${}\" at character 2 of \"a${}b\" names no variable at $.steps[0].with.clientId\n  fix: name a captured variable, e.g. \"${token}\", or write \"$${}\" for the literal text \"${}\"",
        ]),
        Case(name: "template: an unclosed ${ after a good one, in a send path", json: SpecLoaderErrorTests.spec(steps: #"[{"send": {"method": "GET", "path": "/x/${redirect}/${"}}]"#), expected: [
            "t.json:7:48: error: \"${\" at character 16 of \"/x/${redirect}/${\" is never closed at $.steps[0].send.path\n  fix: close the variable with \"}\", e.g. \"${name}\", or write \"$${\" for a literal \"${\"",
        ]),
    ]

    @Test(arguments: cases)
    func reportsExactMessage(_ testCase: Case) {
        testCase.expectExactMessages()
    }

    /// What the checks must leave alone: each of these loads.
    @Test(arguments: [
        clover(#"[{"app": "merchant", "with": {"concurrent": "64"}}]"#),
        clover(#"[{"app": "environment", "with": {"name": "custom", "baseURL": "https://clover.internal.example"}}]"#),
        clover(#"[{"app": "environment", "with": {"name": "production"}}]"#),
        clover(#"[{"app": "receiveRedirect", "with": {"url": "${redirect}&extra=1"}}]"#),
        clover(#"[{"app": "receiveRedirect", "with": {"url": "app://cb?code=${redirect}"}}]"#),
        SpecLoaderErrorTests.spec(steps: #"[{"browser": "tamper", "with": {"remove": "state, code"}}]"#),
        SpecLoaderErrorTests.spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": "$${token"}}}]"#),
        SpecLoaderErrorTests.spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": "$${}"}}}]"#),
    ])
    func loads(_ json: String) {
        if case .invalid(let diagnostics) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") {
            Issue.record("expected to load: \(diagnostics.map(\.description))")
        }
    }

    /// Every argument of every provider's actions and of the browser's operations declares its
    /// type, so none is taken as free text by omission.
    @Test func everyArgumentHasADeclaredType() {
        let signatures = ProviderRegistry.catalog.all.flatMap { provider in provider.actions.map { (provider.id.rawValue, $0) } }
            + Vocabulary.browserOperations.map { ("browser", $0) }
        for (owner, signature) in signatures {
            let arguments = Set(signature.required + signature.optional)
            #expect(Set(signature.types.keys) == arguments, "\(owner) \(signature.name): typed \(signature.types.keys.sorted()), arguments \(arguments.sorted())")
        }
    }

    /// The bound the loader checks is the one the driver honours (CloverKit.concurrentCallers).
    @Test func concurrentIsTheDriversRange() throws {
        let merchant = try #require(CloverKit().actions.first { $0.name == "merchant" })
        #expect(merchant.type(of: "concurrent") == .count(CloverKit.concurrentCallers))
    }

    @Test(arguments: [
        ("plain", [Template.Problem]()),
        ("${a}", []),
        ("$${a", []),
        ("x${", [.unclosed(at: 1)]),
        ("${a}${b", [.unclosed(at: 4)]),
        ("${}", [.emptyName(at: 0)]),
        ("a${}b${c", [.emptyName(at: 1), .unclosed(at: 5)]),
    ])
    func templateProblems(_ raw: String, _ problems: [Template.Problem]) {
        #expect(Template(raw).problems == problems)
    }
}
