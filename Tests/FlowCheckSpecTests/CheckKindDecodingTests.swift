import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// Each key decodes into the check of its own kind: the compiler makes every kind decoded,
/// checked and narrated, and this makes sure no key is decoded as another kind's check.
@Suite(.fast, .timeLimit(.minutes(20)))
struct CheckKindDecodingTests {
    /// A value of each key, as a spec writes it.
    static let expectSamples: [CheckKind: String] = [
        .outcome: #""error""#, .error: #"{"kind": "transport"}"#, .result: #"{"productCount": "2"}"#, .requests: "[]",
        .browser: #"{"dismissed": true}"#, .neverSent: #"["sk-abcdef"]"#, .storeEmpty: "true", .storeUnchanged: "true", .store: #"{"accessToken": {"present": true}}"#,
        .storeFiles: #"{"ownerOnly": true, "noTemporaryFiles": true}"#,
    ]
    static let errorSamples: [ErrorCheckKind: String] = [.kind: #""transport""#, .message: #"{"contains": "down"}"#]
    static let requestSamples: [RequestCheckKind: String] = [
        .method: #""GET""#, .path: #""/v1/products""#, .query: #"{"page": "2"}"#, .headers: #"{"Accept": "application/json"}"#,
        .form: #"{"grant_type": "client_credentials"}"#, .json: #"{"qty": "2"}"#, .body: #"{"code": {"present": true}}"#, .forbid: #"["client_secret"]"#, .status: "200", .responseJson: #"{"expires_in": {"present": true}}"#,
        .origin: #""web""#, .optional: "true",
    ]
    static let browserSamples: [BrowserCheckKind: String] = [
        .opened: "[{}]", .pageStatus: "200", .pageContains: #""Welcome""#, .redirect: "{}", .noRedirect: "true", .dismissed: "false",
    ]
    static let urlSamples: [URLCheckKind: String] = [
        .url: #"{"contains": "callback"}"#, .scheme: #""myapp""#, .host: #""callback""#, .path: #""/connected""#, .query: #"{"code": {"present": true}}"#, .forbid: #"["client_secret"]"#,
    ]
    static let matcherSamples: [MatcherKind: String] = [
        .equals: #""2""#, .notEquals: #""3""#, .present: "true", .absent: "true", .regex: #""^[0-9]+$""#, .contains: #""1""#, .pkceS256: #""abc""#,
    ]

    struct NotLoaded: Error, CustomStringConvertible {
        var description: String
    }

    /// The expectation of a one-step moltin spec whose step calls `products` and expects `expect`.
    static func expectation(_ expect: String, clover: Bool = false) throws -> FlowCheckSpec.Expectation {
        let json = clover
            ? SpecLoaderErrorTests.spec(steps: #"[{"app": "status", "expect": "# + expect + "}]", fixture: #"{"apps": [], "merchants": [], "employees": []}"#)
                .replacingOccurrences(of: "\"moltin\"", with: "\"clover\"")
            : SpecLoaderErrorTests.spec(steps: #"[{"app": "products", "expect": "# + expect + "}]")
        switch SpecLoader.standard.decode(Array(json.utf8), file: "t.json") {
        case .valid(let spec): return try #require(spec.steps.first?.expect)
        case .invalid(let diagnostics): throw NotLoaded(description: "\(expect): \(diagnostics.map(\.description))")
        }
    }

    @Test(arguments: CheckKind.allCases)
    func anExpectKeyDecodesAsItsOwnKind(_ kind: CheckKind) throws {
        let sample = try #require(Self.expectSamples[kind], "no sample for \(kind)")
        let expectation = try Self.expectation(#"{"\#(kind.rawValue)": \#(sample)}"#)
        #expect(expectation.checks.map(\.kind) == [kind])
    }

    @Test(arguments: ErrorCheckKind.allCases)
    func anErrorKeyDecodesAsItsOwnKind(_ kind: ErrorCheckKind) throws {
        let sample = try #require(Self.errorSamples[kind], "no sample for \(kind)")
        let expectation = try Self.expectation(#"{"error": {"\#(kind.rawValue)": \#(sample)}}"#)
        guard case .error(let checks)? = expectation.checks.first else {
            Issue.record("no error check")
            return
        }
        #expect(checks.map(\.key) == [kind])
    }

    @Test(arguments: RequestCheckKind.allCases)
    func aRequestKeyDecodesAsItsOwnKind(_ kind: RequestCheckKind) throws {
        let sample = try #require(Self.requestSamples[kind], "no sample for \(kind)")
        // An origin is only a check for a provider with more than one: Clover's web and api.
        // An optional request is recognised by its method and path: it needs one of them.
        let method = kind == .optional ? #""method": "POST", "# : ""
        let expectation = try Self.expectation(#"{"requests": [{\#(method)"\#(kind.rawValue)": \#(sample)}]}"#, clover: kind == .origin)
        guard case .requests(let requests)? = expectation.checks.first else {
            Issue.record("no requests check")
            return
        }
        #expect(requests.map { $0.checks.map(\.key) } == [kind == .optional ? [.method, kind] : [kind]])
    }

    @Test(arguments: BrowserCheckKind.allCases)
    func aBrowserKeyDecodesAsItsOwnKind(_ kind: BrowserCheckKind) throws {
        let sample = try #require(Self.browserSamples[kind], "no sample for \(kind)")
        let expectation = try Self.expectation(#"{"browser": {"\#(kind.rawValue)": \#(sample)}}"#)
        guard case .browser(let checks)? = expectation.checks.first else {
            Issue.record("no browser check")
            return
        }
        #expect(checks.map(\.key) == [kind])
    }

    @Test(arguments: URLCheckKind.allCases)
    func aURLKeyDecodesAsItsOwnKind(_ kind: URLCheckKind) throws {
        let sample = try #require(Self.urlSamples[kind], "no sample for \(kind)")
        let expectation = try Self.expectation(#"{"browser": {"redirect": {"\#(kind.rawValue)": \#(sample)}}}"#)
        guard case .browser(let checks)? = expectation.checks.first, case .redirect(let url)? = checks.first else {
            Issue.record("no redirect check")
            return
        }
        #expect(url.checks.map(\.key) == [kind])
    }

    @Test(arguments: MatcherKind.allCases)
    func aMatcherKeyDecodesAsItsOwnKind(_ kind: MatcherKind) throws {
        let sample = try #require(Self.matcherSamples[kind], "no sample for \(kind)")
        let expectation = try Self.expectation(#"{"result": {"productCount": {"\#(kind.rawValue)": \#(sample)}}}"#)
        guard case .result(let fields)? = expectation.checks.first else {
            Issue.record("no result check")
            return
        }
        #expect(fields.map(\.matcher.kind.key) == [kind])
    }

    /// The keys "did you mean" offers are the kinds, so an unknown matcher key stays a located error.
    @Test func anUnknownMatcherKeyIsALocatedError() {
        let json = SpecLoaderErrorTests.spec(steps: #"[{"app": "products", "expect": {"result": {"productCount": {"equal": "2"}}}}]"#)
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("expected diagnostics")
            return
        }
        #expect(diagnostics.map(\.description) == [
            "t.json:7:72: error: unknown key \"equal\" at $.steps[0].expect.result.productCount.equal\n  fix: did you mean \"equals\"? allowed keys here: equals, notEquals, present, absent, regex, contains, pkceS256, capture",
            "t.json:7:71: error: a matcher needs a check at $.steps[0].expect.result.productCount\n  fix: use one of equals, notEquals, present, absent, regex, contains, pkceS256",
        ])
    }
}
