import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// Issue 13, build 7: what a diagnostic may print of the spec. Spec text is quoted as a JSON
/// string and cut, so a diagnostic stays one `file:line:col: error:` line and one `fix:` line;
/// a fixture secret written into a bad value is masked; a misspelt provider does not hide the
/// rest of the spec's problems.
@Suite(.fast, .timeLimit(.minutes(20)))
struct DiagnosticTextTests {
    typealias Case = SpecLoaderErrorTests.Case
    static let spec = SpecLoaderErrorTests.spec

    /// The Moltin fixture's client secret in `spec`.
    static let secret = "sk-abcdef"

    static let cases: [Case] = [
        Case(name: "a line feed in a key stays inside the quoted key", json: spec(#"[{"app": "products", "expect": {"store": {"access\nToken": {"absent": true}}}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#), expected: [
            "t.json:7:54: error: unknown field \"access\\nToken\" at $.steps[0].expect.store[\"access\\nToken\"]\n  fix: did you mean \"accessToken\"? store fields: accessToken, refreshToken, tokenType, expiresAt, scope",
        ]),
        Case(name: "a CR LF and an ESC in a value are escaped", json: spec(#"[{"app": "products", "expect": {"error": {"kind": "x\r\n::warning::\u001b[31m"}}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#), expected: [
            "t.json:7:62: error: unknown error kind \"x\\r\\n::warning::\\u001b[31m\" at $.steps[0].expect.error.kind\n  fix: error kinds: transport, serverError, invalidResponse, tokenEndpoint, tokenRejected, httpStatus, notLoggedIn, storage, configuration, authorization, stateMismatch",
        ]),
        Case(name: "a long value is cut with a marker", json: spec(#"[{"fault": {"kind": ""# + String(repeating: "x", count: 200) + #""}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#), expected: [
            "t.json:7:32: error: unknown fault \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…\"(+120 characters) at $.steps[0].fault.kind\n  fix: faults: unreachable, serverError, nonJSONBody, tokenNotValid, connectionReset, stall, htmlServerError, truncatedJSON, redirectLoop, rateLimited, invalidGrant, serviceUnavailable, hold, unknownMembers, withoutExpires, errorsMember, withoutChallenge, withoutExpiry, otherJSON, retryAfterDate",
        ]),
        Case(name: "a secret in an invalid regex", json: spec(#"[{"app": "products", "expect": {"result": {"productCount": {"regex": "(sk-abcdef"}}}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#), expected: [
            "t.json:7:81: error: invalid regular expression /(‹redacted›/: '(' at character 1 is never closed at $.steps[0].expect.result.productCount.regex\n  fix: add the missing ')', or escape a literal parenthesis as \\(",
        ]),
        Case(name: "a secret in an unknown value, reported before the fixture", json: spec(#"[{"app": "products"}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#).replacingOccurrences(of: "\"MLT-AUTH\"", with: "\"sk-abcdef\""), expected: [
            "t.json:2:9: error: id \"‹redacted›\" is not a catalogue id at $.id\n  fix: use an id of capitals, digits and dashes, a prefix then names, e.g. \"MLT-AUTH\"",
        ]),
        Case(name: "a secret in a key, an argument and a template, in a fixture that is itself invalid", json: spec(#"[{"app": "auth", "with": {"clientId": "${sk-abcdef", "clientSecret": "sk-abcdef", "sk-abcdef": "x"}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}], "tokenLifetime": -1}"#), expected: [
            "t.json:6:87: error: -1 is out of range at $.fixture.tokenLifetime\n  fix: use a number from 1 to 31536000",
            "t.json:7:50: error: \"${\" at character 1 of \"${‹redacted›\" is never closed at $.steps[0].with.clientId\n  fix: close the variable with \"}\", e.g. \"${‹redacted›}\", or write \"$${\" for a literal \"${\"",
            "t.json:7:94: error: unknown argument \"‹redacted›\" for \"auth\" at $.steps[0].with[\"‹redacted›\"]\n  fix: arguments of auth: clientId, clientSecret",
        ]),
        Case(name: "a secret at the cut of a long value is masked whole, not half shown", json: spec(#"[{"fault": {"kind": ""# + String(repeating: "x", count: 76) + #"sk-abcdef"}}]"#, #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#), expected: [
            "t.json:7:32: error: unknown fault \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx‹red…\"(+6 characters) at $.steps[0].fault.kind\n  fix: faults: unreachable, serverError, nonJSONBody, tokenNotValid, connectionReset, stall, htmlServerError, truncatedJSON, redirectLoop, rateLimited, invalidGrant, serviceUnavailable, hold, unknownMembers, withoutExpires, errorsMember, withoutChallenge, withoutExpiry, otherJSON, retryAfterDate",
        ]),
        Case(name: "a misspelt provider: the rest is checked against the candidate", json: spec(#"[{"app": "prodcts"}, {"app": "products", "expect": {"store": {"acessToken": {"absent": true}}}}]"#, #"{"clients": [{"id": "store-1"}]}"#).replacingOccurrences(of: "\"provider\": \"moltin\"", with: "\"provider\": \"Moltin\""), expected: [
            "t.json:5:15: error: unknown provider \"Moltin\" at $.provider\n  fix: did you mean \"moltin\"? providers: moltin, clover, clever, braintree; the rest of this spec was checked as a \"moltin\" spec",
            "t.json:6:27: error: missing required key \"secret\" at $.fixture.clients[0]\n  fix: add \"secret\": \"s3cr3t\"",
            "t.json:7:21: error: unknown app action \"prodcts\" for provider \"moltin\" at $.steps[0].app\n  fix: did you mean \"products\"? actions for moltin: auth, refreshToken, deleteToken, products, relaunch",
            "t.json:7:74: error: unknown field \"acessToken\" at $.steps[1].expect.store.acessToken\n  fix: did you mean \"accessToken\"? store fields: accessToken, refreshToken, tokenType, expiresAt, scope",
        ]),
        Case(name: "an unknown provider with no candidate checks no actions", json: spec(#"[{"app": "prodcts"}]"#, #"{"clients": []}"#).replacingOccurrences(of: "\"provider\": \"moltin\"", with: "\"provider\": \"stripe\""), expected: [
            "t.json:5:15: error: unknown provider \"stripe\" at $.provider\n  fix: providers: moltin, clover, clever, braintree",
        ]),
    ]

    @Test(arguments: cases)
    func reportsExactMessage(_ testCase: Case) {
        testCase.expectExactMessages()
    }

    /// Whatever the case, a diagnostic is two lines, and the fixture's secret is in neither.
    @Test(arguments: cases)
    func oneLineAndNoSecret(_ testCase: Case) {
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode(Array(testCase.json.utf8), file: "t.json") else {
            Issue.record("expected diagnostics, the spec loaded")
            return
        }
        for diagnostic in diagnostics {
            #expect(diagnostic.description.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "\(diagnostic.description)")
            #expect(!diagnostic.description.contains(Self.secret))
            #expect(!diagnostic.title.contains(Self.secret) && !diagnostic.fix.contains(Self.secret) && !diagnostic.path.contains(Self.secret))
        }
    }

    /// A secret under a misspelt key (`secrte`, `pasword`) is not known to the fixture, yet
    /// it is still masked wherever the spec's other mistakes quote it.
    @Test(arguments: ["secrte", "clientSecert", "pasword"])
    func aSecretUnderAMisspeltKeyIsMaskedToo(_ key: String) {
        let json = Self.spec(#"[{"app": "auth", "with": {"clientId": "store-1", "clientSecret": "sk-Zq9Wm3Lp7Xy"}, "expect": {"result": {"accessToken": {"regex": "sk-Zq9Wm3Lp7Xy("}}}}]"#, #"{"clients": [{"id": "store-1", "KEY": "sk-Zq9Wm3Lp7Xy"}]}"#.replacingOccurrences(of: "KEY", with: key))
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("expected diagnostics, the spec loaded")
            return
        }
        #expect(diagnostics.count >= 2, "\(diagnostics)")
        for diagnostic in diagnostics {
            #expect(!diagnostic.description.contains("sk-Zq9Wm3Lp7Xy"), "\(diagnostic.description)")
        }
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("a\"b\\c", #""a\"b\\c""#),
        ("\n\r\t\u{0}\u{1B}\u{7F}\u{2028}", #""\n\r\t\u0000\u001b\u007f\u2028""#),
        (String(repeating: "é", count: 81), "\"" + String(repeating: "é", count: 80) + "…\"(+1 characters)"),
    ])
    func quotesAsJSON(_ text: String, _ quoted: String) {
        #expect(SpecText.quoted(text) == quoted)
    }

    /// A diagnostic made outside the reader (a kit's, the loader's) is still one line.
    @Test func descriptionEscapesWhatWasNotQuoted() {
        let diagnostic = SpecDiagnostic(file: "a\nb.json", location: SourceLocation(line: 1, column: 2), path: "$.x\r", title: "bad\nvalue", fix: "do\u{85}this")
        #expect(diagnostic.description == "a\\nb.json:1:2: error: bad\\nvalue at $.x\\r\n  fix: do\\u0085this")
    }
}
