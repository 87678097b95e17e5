import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckFakeServer
import FlowCheckSpec

/// A kind of check or matcher a table case is about: every key of every closed kind set, and
/// the `capture` modifier. The coverage tests demand cases for each, so a new kind needs them.
enum CheckTarget: Hashable, Sendable, CustomStringConvertible {
    case check(CheckKind)
    case error(ErrorCheckKind)
    case request(RequestCheckKind)
    case browser(BrowserCheckKind)
    case url(URLCheckKind)
    case matcher(MatcherKind)
    case capture

    static let all: [CheckTarget] = CheckKind.allCases.map(check) + ErrorCheckKind.allCases.map(error)
        + RequestCheckKind.allCases.map(request) + BrowserCheckKind.allCases.map(browser)
        + URLCheckKind.allCases.map(url) + MatcherKind.allCases.map(matcher) + [capture]

    var description: String {
        switch self {
        case .check(let kind): return "expect.\(kind.rawValue)"
        case .error(let kind): return "error.\(kind.rawValue)"
        case .request(let kind): return "request.\(kind.rawValue)"
        case .browser(let kind): return "browser.\(kind.rawValue)"
        case .url(let kind): return "url.\(kind.rawValue)"
        case .matcher(let kind): return "matcher.\(kind.rawValue)"
        case .capture: return "matcher.capture"
        }
    }
}

/// Builders for hand-made expectations and recorded exchanges, shared by the table tests.
enum Table {
    static func m(_ kind: Matcher.Kind, capture: String? = nil) -> Matcher { Matcher(kind, capture: capture) }
    static func eq(_ text: String) -> Matcher { Matcher(.equals(Template(text))) }
    static func field(_ name: String, _ matcher: Matcher) -> FieldMatcher { FieldMatcher(field: name, matcher: matcher) }
    static func field(_ name: String, _ text: String) -> FieldMatcher { field(name, eq(text)) }
    static let here = SourceLocation(line: 1, column: 1)
    static func request(_ checks: RequestCheck...) -> RequestExpectation { RequestExpectation(location: here, checks: checks) }
    static func url(_ checks: URLCheck...) -> URLExpectation { URLExpectation(location: here, checks: checks) }
    static func expect(_ checks: Check...) -> FlowCheckSpec.Expectation { FlowCheckSpec.Expectation(checks) }

    /// One request the server saw and its answer, as the fake server records it.
    static func exchange(_ method: String, _ target: String, headers: HTTPHeaders = [:], body: String = "", status: Int = 200, answer: String = "", origin: String = "main") -> RecordedExchange {
        let answerHeaders: HTTPHeaders = answer.hasPrefix("{") ? ["Content-Type": "application/json"] : [:]
        return RecordedExchange(
            index: 0, time: Date(timeIntervalSince1970: 0),
            request: HTTPRequest(method: method, target: target, headers: headers, body: Data(body.utf8)),
            response: HTTPResponse(status: status, headers: answerHeaders, body: Data(answer.utf8)), fault: nil, origin: origin
        )
    }

    static let products = exchange("GET", "/v1/products?page=2", headers: ["Accept": "application/json", "Authorization": "Bearer tok-2"])
    static let tokenCall = exchange(
        "POST", "/oauth/access_token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
        body: "grant_type=client_credentials&client_id=store-1", answer: #"{"access_token":"tok-1","expires_in":3600}"#
    )
    static let cart = exchange("POST", "/v1/carts", headers: ["Content-Type": "application/json"], body: #"{"qty":"2","scope":"gift"}"#, status: 201)
    static let authorizeURL = URL(string: "http://127.0.0.1:8080/oauth/authorize?client_id=app-1&state=xyz")!
    static let loginPage = ScriptedBrowser.Page(url: authorizeURL, status: 200, body: "<h1>Welcome</h1>")
    static let redirect = "myapp://callback?code=abc"
    /// RFC 7636 appendix B.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
}

/// The pure checker, case by case: one expectation, one hand-made observation (no server, no
/// SDK), the exact failures (check, expected, actual) it must produce.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ExpectationCheckerTableTests {
    struct Failure: Equatable, Sendable, CustomStringConvertible {
        var check: String
        var expected: String
        var actual: String
        init(_ check: String, _ expected: String, _ actual: String) {
            self.check = check
            self.expected = expected
            self.actual = actual
        }
        var description: String { "\(check): expected \(expected), got \(actual)" }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var target: CheckTarget
        var name: String
        var expect: FlowCheckSpec.Expectation?
        var observed: StepObservation
        var variables: [String: String] = [:]
        var failures: [Failure]
        /// Variables the case must leave captured.
        var captured: [String: String] = [:]
        /// Inodes seen at the flow's previous `storeFiles` check.
        var storeInodes: [String: UInt64]? = nil
        var testDescription: String { "\(target): \(name)" }
    }

    static let ok = StepObservation(call: .ok([:]))

    static func file(_ name: String, _ mode: UInt32, _ inode: UInt64) -> StoreDirectoryFacts.Entry {
        StoreDirectoryFacts.Entry(name: name, mode: mode, inode: inode, isRegularFile: true, ownedByUser: true)
    }

    /// `entry`, found to hold a secret of the flow.
    static func holding(_ entry: StoreDirectoryFacts.Entry) -> StoreDirectoryFacts.Entry {
        var entry = entry
        entry.holdsSecret = true
        return entry
    }

    /// A store folder holding `entries`; its store files are those ending in `.token`.
    static func storeDir(_ entries: [StoreDirectoryFacts.Entry], mode: UInt32 = 0o700) -> StoreDirectoryFacts {
        StoreDirectoryFacts(directoryMode: mode, directoryIsDirectory: true, directoryOwnedByUser: true, entries: entries, storeFiles: entries.map(\.name).filter { $0.hasSuffix(".token") })
    }

    /// A store with no files: every storeFiles check is skipped, with the reason, and none fails.
    @Test func storeFilesOfAStoreWithNoFilesAreSkipped() {
        var checker = ExpectationChecker(step: Step(number: 3, location: SourceLocation(line: 9, column: 5)), variables: [:])
        checker.check(Table.expect(.storeFiles([.ownerOnly, .replacedByRename])), StepObservation(storeFiles: .notFileBacked))
        #expect(checker.failures.isEmpty)
        #expect(checker.skips.map(\.check) == ["storeFiles.ownerOnly", "storeFiles.replacedByRename"])
        #expect(checker.skips.allSatisfy { $0.step == 3 && $0.line == 9 && $0.reason.contains("not file-backed") })
    }

    static func result(_ values: [String: String]) -> StepObservation { StepObservation(call: .ok(values)) }

    static func saw(_ exchanges: RecordedExchange...) -> StepObservation { StepObservation(exchanges: exchanges) }

    static let browserSaw = StepObservation(opened: [Table.authorizeURL], dismissed: true, page: Table.loginPage, redirect: Table.redirect)

    static let cases: [Case] = {
        typealias T = Table
        let productsLabel = "requests[0] (GET /v1/products)"
        let tokenLabel = "requests[0] (POST /oauth/access_token)"
        let cartLabel = "requests[0] (POST /v1/carts)"
        return [
            // outcome
            Case(target: .check(.outcome), name: "unwritten: a call must succeed, and does", expect: nil, observed: ok, failures: []),
            Case(target: .check(.outcome), name: "unwritten: an unexpected error fails", expect: nil, observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: [
                Failure("outcome", "success", "transport error: down"),
            ]),
            Case(target: .check(.outcome), name: "error wanted and met", expect: T.expect(.outcome(.error)), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: []),
            Case(target: .check(.outcome), name: "error wanted, success got", expect: T.expect(.outcome(.error)), observed: ok, failures: [
                Failure("outcome", "an error", "success"),
            ]),
            Case(target: .check(.outcome), name: "a crash is never an outcome", expect: T.expect(.outcome(.error)), observed: StepObservation(call: .crashed("nil unwrapped")), failures: [
                Failure("outcome", "an error value", "the SDK crashed (nil unwrapped)"),
            ]),
            Case(target: .check(.outcome), name: "written on a step without a call", expect: T.expect(.outcome(.ok)), observed: StepObservation(), failures: [
                Failure("outcome", "success", "no SDK call in this step"),
            ]),
            // error
            Case(target: .check(.error), name: "an error kind demands an error", expect: T.expect(.error([.kind("tokenEndpoint")])), observed: ok, failures: [
                Failure("outcome", "an error of kind tokenEndpoint", "success"),
            ]),
            Case(target: .check(.error), name: "an empty error check still demands an error", expect: T.expect(.error([])), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: []),
            Case(target: .error(.kind), name: "the kind matches", expect: T.expect(.error([.kind("tokenEndpoint")])), observed: StepObservation(call: .error(kind: "tokenEndpoint", message: "invalid_client")), failures: []),
            Case(target: .error(.kind), name: "another kind", expect: T.expect(.error([.kind("tokenEndpoint")])), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: [
                Failure("error.kind", "\"tokenEndpoint\"", "\"transport\" (down)"),
            ]),
            Case(target: .error(.message), name: "the message matches", expect: T.expect(.error([.message(T.m(.contains(Template("invalid"))))])), observed: StepObservation(call: .error(kind: "tokenEndpoint", message: "invalid_client")), failures: []),
            Case(target: .error(.message), name: "another message", expect: T.expect(.error([.message(T.eq("bad credentials"))])), observed: StepObservation(call: .error(kind: "tokenEndpoint", message: "oops")), failures: [
                Failure("error.message", "equals \"bad credentials\"", "\"oops\""),
            ]),
            // either way: `error` says what a failure must be, `result` what a success must give
            Case(target: .check(.outcome), name: "any: a failure of the kind named", expect: T.expect(.outcome(.any), .error([.kind("notLoggedIn")]), .result([T.field("productCount", "1")])), observed: StepObservation(call: .error(kind: "notLoggedIn", message: "expired")), failures: []),
            Case(target: .check(.outcome), name: "any: a failure of another kind", expect: T.expect(.outcome(.any), .error([.kind("notLoggedIn")]), .result([T.field("productCount", "1")])), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: [
                Failure("error.kind", "\"notLoggedIn\"", "\"transport\" (down)"),
            ]),
            Case(target: .check(.outcome), name: "any: a success with the result named", expect: T.expect(.outcome(.any), .error([.kind("notLoggedIn")]), .result([T.field("productCount", "1")])), observed: result(["productCount": "1"]), failures: []),
            Case(target: .check(.outcome), name: "any: a success with nothing in it", expect: T.expect(.outcome(.any), .error([.kind("notLoggedIn")]), .result([T.field("productCount", "1")])), observed: result(["productCount": "0"]), failures: [
                Failure("result.productCount", "equals \"1\"", "\"0\""),
            ]),
            // result
            Case(target: .check(.result), name: "a field holds", expect: T.expect(.result([T.field("productCount", "2")])), observed: result(["productCount": "2"]), failures: []),
            Case(target: .check(.result), name: "a field differs", expect: T.expect(.result([T.field("productCount", "2")])), observed: result(["productCount": "3"]), failures: [
                Failure("result.productCount", "equals \"2\"", "\"3\""),
            ]),
            Case(target: .check(.result), name: "fields after a failure that was expected have nothing to judge", expect: T.expect(.outcome(.error), .result([T.field("productCount", T.m(.present))])), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: [
                Failure("result", "a successful call's result", "no result (the call did not succeed)"),
            ]),
            Case(target: .check(.result), name: "no second failure after an unexpected error", expect: T.expect(.result([T.field("productCount", "2")])), observed: StepObservation(call: .error(kind: "transport", message: "down")), failures: [
                Failure("outcome", "success", "transport error: down"),
            ]),
            // requests
            Case(target: .check(.requests), name: "none wanted, none sent", expect: T.expect(.requests([])), observed: StepObservation(), failures: []),
            Case(target: .check(.requests), name: "none wanted, one sent", expect: T.expect(.requests([])), observed: saw(T.products), failures: [
                Failure("requests", "0 requests", "1: GET /v1/products → 200"),
            ]),
            Case(target: .check(.requests), name: "two wanted, one sent: the one is still checked", expect: T.expect(.requests([T.request(.method("POST")), T.request()])), observed: saw(T.products), failures: [
                Failure("requests", "2 requests", "1: GET /v1/products → 200"),
                Failure("\(productsLabel).method", "\"POST\"", "\"GET\""),
            ]),
            Case(target: .request(.method), name: "the method", expect: T.expect(.requests([T.request(.method("GET"))])), observed: saw(T.products), failures: []),
            Case(target: .request(.method), name: "another method", expect: T.expect(.requests([T.request(.method("POST"))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).method", "\"POST\"", "\"GET\""),
            ]),
            Case(target: .request(.path), name: "the path, without its query", expect: T.expect(.requests([T.request(.path(T.eq("/v1/products")))])), observed: saw(T.products), failures: []),
            Case(target: .request(.path), name: "another path", expect: T.expect(.requests([T.request(.path(T.eq("/v1/orders")))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).path", "equals \"/v1/orders\"", "\"/v1/products\""),
            ]),
            Case(target: .request(.origin), name: "the origin it came in on", expect: T.expect(.requests([T.request(.origin("web"))])), observed: saw(T.exchange("GET", "/oauth/v2/authorize", origin: "web")), failures: []),
            Case(target: .request(.origin), name: "another origin", expect: T.expect(.requests([T.request(.origin("api"))])), observed: saw(T.exchange("GET", "/oauth/v2/authorize", origin: "web")), failures: [
                Failure("requests[0] (GET /oauth/v2/authorize).origin", "\"api\"", "\"web\""),
            ]),
            Case(target: .request(.query), name: "a query parameter", expect: T.expect(.requests([T.request(.query([T.field("page", "2")]))])), observed: saw(T.products), failures: []),
            Case(target: .request(.query), name: "another value", expect: T.expect(.requests([T.request(.query([T.field("page", "3")]))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).query.page", "equals \"3\"", "\"2\""),
            ]),
            Case(target: .request(.query), name: "a repeated parameter", expect: T.expect(.requests([T.request(.query([T.field("page", "2")]))])), observed: saw(T.exchange("GET", "/v1/products?page=2&page=3")), failures: [
                Failure("\(productsLabel).query.page", "one value", "2 values"),
            ]),
            Case(target: .request(.headers), name: "a header, by any case of its name", expect: T.expect(.requests([T.request(.headers([T.field("accept", "application/json")]))])), observed: saw(T.products), failures: []),
            Case(target: .request(.headers), name: "another value", expect: T.expect(.requests([T.request(.headers([T.field("Accept", "text/html")]))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).headers.Accept", "equals \"text/html\"", "\"application/json\""),
            ]),
            Case(target: .request(.headers), name: "a secret header: neither value is shown", expect: T.expect(.requests([T.request(.headers([T.field("Authorization", "Bearer tok-1")]))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).headers.Authorization", "equals \"‹redacted›\"", "\"‹redacted›\" (12 characters)"),
            ]),
            Case(target: .request(.headers), name: "the authentication scheme in any case, one space after it", expect: T.expect(.requests([T.request(.headers([T.field("Authorization", "Bearer tok-2")]))])), observed: saw(T.exchange("GET", "/v1/products", headers: ["authorization": "bEARER   tok-2"])), failures: []),
            Case(target: .request(.headers), name: "Basic credentials as the server reads them: a raw and an encoded id are the same client", expect: T.expect(.requests([T.request(.headers([T.field("Authorization", "Basic aW9zLWNsZTElNDBkaXN0cmljdDo=")]))])), observed: saw(T.exchange("POST", "/oauth/tokens", headers: ["Authorization": "basic aW9zLWNsZTFAZGlzdHJpY3Q6"])), failures: []),
            Case(target: .request(.headers), name: "Basic credentials of another client: + read raw is a space", expect: T.expect(.requests([T.request(.headers([T.field("Authorization", "Basic aW9zJTJCY2xlMSU0MGRpc3RyaWN0Og==")]))])), observed: saw(T.exchange("POST", "/oauth/tokens", headers: ["Authorization": "Basic aW9zK2NsZTFAZGlzdHJpY3Q6"])), failures: [
                Failure("requests[0] (POST /oauth/tokens).headers.Authorization", "equals \"‹redacted›\"", "\"‹redacted›\" (34 characters)"),
            ]),
            Case(target: .request(.headers), name: "a repeated field is all its values, joined", expect: T.expect(.requests([T.request(.headers([T.field("Authorization", "Basic aW9zLWNsZTElNDBkaXN0cmljdDo=")]))])), observed: saw(T.exchange("POST", "/oauth/tokens", headers: [("Authorization", "Basic aW9zLWNsZTElNDBkaXN0cmljdDo="), ("Authorization", "Basic aW9zLWNsZTElNDBkaXN0cmljdDo=")])), failures: [
                Failure("requests[0] (POST /oauth/tokens).headers.Authorization", "equals \"‹redacted›\"", "\"‹redacted›\" (70 characters)"),
            ]),
            Case(target: .request(.headers), name: "a media type in any case, with a charset", expect: T.expect(.requests([T.request(.headers([T.field("Content-Type", T.m(.regex("^application/json(;|$)")))]))])), observed: saw(T.exchange("POST", "/v1/carts", headers: ["Content-Type": "Application/JSON;Charset=\"UTF-8\""])), failures: []),
            Case(target: .request(.form), name: "a form field", expect: T.expect(.requests([T.request(.form([T.field("grant_type", "client_credentials")]))])), observed: saw(T.tokenCall), failures: []),
            Case(target: .request(.form), name: "another value", expect: T.expect(.requests([T.request(.form([T.field("grant_type", "implicit")]))])), observed: saw(T.tokenCall), failures: [
                Failure("\(tokenLabel).form.grant_type", "equals \"implicit\"", "\"client_credentials\""),
            ]),
            Case(target: .request(.form), name: "a body that is not a form", expect: T.expect(.requests([T.request(.form([T.field("grant_type", "implicit")]))])), observed: saw(T.exchange("POST", "/oauth/access_token", body: "a=%zz")), failures: [
                Failure("\(tokenLabel).form", "an application/x-www-form-urlencoded body", "a body that is not form-encoded"),
            ]),
            Case(target: .request(.json), name: "a JSON field", expect: T.expect(.requests([T.request(.json([T.field("qty", "2")]))])), observed: saw(T.cart), failures: []),
            Case(target: .request(.json), name: "another value", expect: T.expect(.requests([T.request(.json([T.field("qty", "3")]))])), observed: saw(T.cart), failures: [
                Failure("\(cartLabel).json.qty", "equals \"3\"", "\"2\""),
            ]),
            Case(target: .request(.json), name: "a body that is not JSON", expect: T.expect(.requests([T.request(.json([T.field("grant_type", "client_credentials")]))])), observed: saw(T.tokenCall), failures: [
                Failure("\(tokenLabel).json", "a JSON object body", "a body that is not a JSON object"),
            ]),
            Case(target: .request(.body), name: "a form body's field", expect: T.expect(.requests([T.request(.body([T.field("grant_type", "client_credentials")]))])), observed: saw(T.tokenCall), failures: []),
            Case(target: .request(.body), name: "a JSON body's field", expect: T.expect(.requests([T.request(.body([T.field("qty", "2")]))])), observed: saw(T.cart), failures: []),
            Case(target: .request(.body), name: "another value", expect: T.expect(.requests([T.request(.body([T.field("qty", "3")]))])), observed: saw(T.cart), failures: [
                Failure("\(cartLabel).body.qty", "equals \"3\"", "\"2\""),
            ]),
            Case(target: .request(.body), name: "a body that is neither", expect: T.expect(.requests([T.request(.body([T.field("qty", "2")]))])), observed: saw(T.exchange("POST", "/v1/carts", headers: ["Content-Type": "text/plain"], body: "qty=2")), failures: [
                Failure("\(cartLabel).body", "a form or JSON object body", "a body of type \"text/plain\""),
            ]),
            Case(target: .request(.forbid), name: "none of the forbidden fields, whatever else is there", expect: T.expect(.requests([T.request(.forbid(["client_secret"]))])), observed: saw(T.tokenCall), failures: []),
            Case(target: .request(.forbid), name: "a forbidden form field, and a query parameter", expect: T.expect(.requests([T.request(.forbid(["client_id", "page"]))])), observed: saw(T.exchange("POST", "/oauth/access_token?page=1", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "grant_type=client_credentials&client_id=store-1")), failures: [
                Failure("requests[0] (POST /oauth/access_token).form.client_id", "no such field (forbidden)", "present"),
                Failure("requests[0] (POST /oauth/access_token).query.page", "no such field (forbidden)", "present"),
            ]),
            // Whatever the Content-Type claims: a JSON body is read as JSON.
            Case(target: .request(.forbid), name: "a forbidden JSON field, even empty", expect: T.expect(.requests([T.request(.forbid(["client_secret"]))])), observed: saw(T.exchange("POST", "/oauth/v2/token", headers: ["Content-Type": "text/plain"], body: #"{"client_id":"a","client_secret":""}"#)), failures: [
                Failure("requests[0] (POST /oauth/v2/token).json.client_secret", "no such field (forbidden)", "present"),
            ]),
            Case(target: .request(.optional), name: "a missing optional request is passed over", expect: T.expect(.requests([T.request(.method("POST"), .path(T.eq("/oauth/access_token")), .optional), T.request(.method("GET"))])), observed: saw(T.products), failures: []),
            Case(target: .request(.optional), name: "a present optional request is checked", expect: T.expect(.requests([T.request(.method("POST"), .path(T.eq("/oauth/access_token")), .status(201), .optional), T.request(.method("GET"))])), observed: saw(T.tokenCall, T.products), failures: [
                Failure("requests[0] (POST /oauth/access_token).status", "201", "200"),
            ]),
            Case(target: .request(.optional), name: "at most once: a second one is one too many", expect: T.expect(.requests([T.request(.method("POST"), .optional), T.request(.method("GET"))])), observed: saw(T.tokenCall, T.tokenCall, T.products), failures: [
                Failure("requests", "1 to 2 requests", "3: POST /oauth/access_token → 200, POST /oauth/access_token → 200, GET /v1/products → 200"),
                Failure("requests[1] (POST /oauth/access_token).method", "\"GET\"", "\"POST\""),
            ]),
            Case(target: .request(.status), name: "the status", expect: T.expect(.requests([T.request(.status(201))])), observed: saw(T.cart), failures: []),
            Case(target: .request(.status), name: "another status", expect: T.expect(.requests([T.request(.status(200))])), observed: saw(T.cart), failures: [
                Failure("\(cartLabel).status", "200", "201"),
            ]),
            Case(target: .request(.responseJson), name: "a field of the answer", expect: T.expect(.requests([T.request(.responseJson([T.field("expires_in", "3600")]))])), observed: saw(T.tokenCall), failures: []),
            Case(target: .request(.responseJson), name: "an answer that is not JSON", expect: T.expect(.requests([T.request(.responseJson([T.field("expires_in", "3600")]))])), observed: saw(T.products), failures: [
                Failure("\(productsLabel).responseJson", "a JSON object answer", "an answer that is not a JSON object"),
            ]),
            // browser
            Case(target: .check(.browser), name: "no browser checks written", expect: T.expect(.browser([])), observed: browserSaw, failures: []),
            Case(target: .check(.browser), name: "every browser check runs, not only the first", expect: T.expect(.browser([.pageStatus(401), .dismissed(false)])), observed: browserSaw, failures: [
                Failure("browser.pageStatus", "401", "200"),
                Failure("browser.dismissed", "the browser left open", "dismissed"),
            ]),
            Case(target: .browser(.opened), name: "the URLs opened", expect: T.expect(.browser([.opened([T.url(.path(T.eq("/oauth/authorize")))])])), observed: browserSaw, failures: []),
            Case(target: .browser(.opened), name: "none opened", expect: T.expect(.browser([.opened([T.url()])])), observed: StepObservation(), failures: [
                Failure("browser.opened", "1 URL opened", "0: none"),
            ]),
            Case(target: .browser(.pageStatus), name: "the page's status", expect: T.expect(.browser([.pageStatus(200)])), observed: browserSaw, failures: []),
            Case(target: .browser(.pageStatus), name: "no page loaded", expect: T.expect(.browser([.pageStatus(200)])), observed: StepObservation(), failures: [
                Failure("browser.pageStatus", "200", "no page loaded"),
            ]),
            Case(target: .browser(.pageContains), name: "the page says it", expect: T.expect(.browser([.pageContains(Template("Welcome"))])), observed: browserSaw, failures: []),
            Case(target: .browser(.pageContains), name: "the page does not", expect: T.expect(.browser([.pageContains(Template("Invalid ${what}"))])), observed: browserSaw, variables: ["what": "password"], failures: [
                Failure("browser.page", "contains \"Invalid password\"", "a 200 page without it"),
            ]),
            Case(target: .browser(.redirect), name: "a redirect", expect: T.expect(.browser([.redirect(T.url())])), observed: browserSaw, failures: []),
            Case(target: .browser(.redirect), name: "no redirect", expect: T.expect(.browser([.redirect(T.url())])), observed: StepObservation(page: Table.loginPage), failures: [
                Failure("browser.redirect", "a redirect", "none (the page answered 200)"),
            ]),
            Case(target: .browser(.noRedirect), name: "no redirect", expect: T.expect(.browser([.noRedirect])), observed: StepObservation(page: Table.loginPage), failures: []),
            Case(target: .browser(.noRedirect), name: "a redirect, its code masked", expect: T.expect(.browser([.noRedirect])), observed: browserSaw, failures: [
                Failure("browser.redirect", "no redirect", "a redirect to myapp://callback?code=‹redacted›"),
            ]),
            Case(target: .browser(.dismissed), name: "dismissed", expect: T.expect(.browser([.dismissed(true)])), observed: browserSaw, failures: []),
            Case(target: .browser(.dismissed), name: "left open", expect: T.expect(.browser([.dismissed(true)])), observed: StepObservation(), failures: [
                Failure("browser.dismissed", "the SDK dismissed the browser", "not dismissed"),
            ]),
            // URL
            Case(target: .url(.url), name: "the whole URL", expect: T.expect(.browser([.redirect(T.url(.url(T.m(.contains(Template("callback"))))))])), observed: browserSaw, failures: []),
            Case(target: .url(.url), name: "another URL", expect: T.expect(.browser([.redirect(T.url(.url(T.eq("myapp://other"))))])), observed: browserSaw, failures: [
                Failure("browser.redirect.url", "equals \"myapp://other\"", "\"myapp://callback?code=abc\""),
            ]),
            Case(target: .url(.scheme), name: "the scheme", expect: T.expect(.browser([.redirect(T.url(.scheme(T.eq("myapp"))))])), observed: browserSaw, failures: []),
            Case(target: .url(.scheme), name: "another scheme", expect: T.expect(.browser([.redirect(T.url(.scheme(T.eq("https"))))])), observed: browserSaw, failures: [
                Failure("browser.redirect.scheme", "equals \"https\"", "\"myapp\""),
            ]),
            Case(target: .url(.host), name: "the host", expect: T.expect(.browser([.redirect(T.url(.host(T.eq("callback"))))])), observed: browserSaw, failures: []),
            Case(target: .url(.host), name: "another host", expect: T.expect(.browser([.redirect(T.url(.host(T.eq("evil"))))])), observed: browserSaw, failures: [
                Failure("browser.redirect.host", "equals \"evil\"", "\"callback\""),
            ]),
            Case(target: .url(.path), name: "the path", expect: T.expect(.browser([.opened([T.url(.path(T.eq("/oauth/authorize")))])])), observed: browserSaw, failures: []),
            Case(target: .url(.path), name: "another path", expect: T.expect(.browser([.opened([T.url(.path(T.eq("/authorize")))])])), observed: browserSaw, failures: [
                Failure("browser.opened[0].path", "equals \"/authorize\"", "\"/oauth/authorize\""),
            ]),
            Case(target: .url(.query), name: "a query parameter", expect: T.expect(.browser([.opened([T.url(.query([T.field("client_id", "app-1")]))])])), observed: browserSaw, failures: []),
            Case(target: .url(.query), name: "another value", expect: T.expect(.browser([.opened([T.url(.query([T.field("client_id", "app-2")]))])])), observed: browserSaw, failures: [
                Failure("browser.opened[0].query.client_id", "equals \"app-2\"", "\"app-1\""),
            ]),
            Case(target: .url(.forbid), name: "no forbidden parameter, whatever else is there", expect: T.expect(.browser([.opened([T.url(.query([T.field("client_id", "app-1")]), .forbid(["client_secret", "code_verifier"]))])])), observed: browserSaw, failures: []),
            Case(target: .url(.forbid), name: "a forbidden parameter", expect: T.expect(.browser([.opened([T.url(.forbid(["state"]))])])), observed: browserSaw, failures: [
                Failure("browser.opened[0].query.state", "no such parameter (forbidden)", "present"),
            ]),
            // Case-insensitive grammar: schemes and hosts (RFC 3986), token types (RFC 6749 §5.1),
            // the authentication scheme and the media type (RFC 9110).
            Case(target: .url(.scheme), name: "a scheme in capitals is the same scheme", expect: T.expect(.browser([.opened([T.url(.scheme(T.eq("http")), .host(T.eq("LOCALHOST")))])])), observed: StepObservation(opened: [URL(string: "HTTP://localhost:8080/oauth/authorize")!]), failures: []),
            // neverSent
            Case(target: .check(.neverSent), name: "not carried", expect: T.expect(.neverSent([Template("sk-secret-1")])), observed: saw(T.tokenCall), failures: []),
            Case(target: .check(.neverSent), name: "carried form-encoded in a body", expect: T.expect(.neverSent([Template("sk/secret+1")])), observed: saw(T.exchange("POST", "/oauth/access_token", body: "client_secret=sk%2Fsecret%2B1")), failures: [
                Failure("requests[0] (POST /oauth/access_token)", "never to carry \"sk/secret+1\"", "it does"),
            ]),
            Case(target: .check(.neverSent), name: "carried host-encoded (a space as %20, + and & as they are)", expect: T.expect(.neverSent([Template("a b&c=d+e/f")])), observed: saw(T.exchange("POST", "/oauth/access_token", body: "x=a%20b&c=d+e%2Ff")), failures: [
                Failure("requests[0] (POST /oauth/access_token)", "never to carry \"a b&c=d+e/f\"", "it does"),
            ]),
            Case(target: .check(.neverSent), name: "carried in an opened URL", expect: T.expect(.neverSent([Template("${appId}")])), observed: browserSaw, variables: ["appId": "app-1"], failures: [
                Failure("browser.opened[0]", "never to carry \"${appId}\"", "it does"),
            ]),
            // storeEmpty
            Case(target: .check(.storeEmpty), name: "empty", expect: T.expect(.storeEmpty(true)), observed: StepObservation(store: [:]), failures: []),
            Case(target: .check(.storeEmpty), name: "not empty", expect: T.expect(.storeEmpty(true)), observed: StepObservation(store: ["accessToken": "tok-1", "tokenType": "Bearer"]), failures: [
                Failure("store", "empty", "holds accessToken, tokenType"),
            ]),
            Case(target: .check(.storeEmpty), name: "empty, when it must hold something", expect: T.expect(.storeEmpty(false)), observed: StepObservation(store: [:]), failures: [
                Failure("store", "not empty", "empty"),
            ]),
            Case(target: .check(.storeEmpty), name: "the store not read", expect: T.expect(.storeEmpty(true)), observed: StepObservation(), failures: [
                Failure("store", "the store's contents", "the store was not read"),
            ]),
            // storeUnchanged
            Case(target: .check(.storeUnchanged), name: "as before", expect: T.expect(.storeUnchanged), observed: StepObservation(store: ["accessToken": "tok-1"], storeBefore: ["accessToken": "tok-1"]), failures: []),
            Case(target: .check(.storeUnchanged), name: "written, removed and changed", expect: T.expect(.storeUnchanged), observed: StepObservation(store: ["accessToken": "tok-2", "scope": "x"], storeBefore: ["accessToken": "tok-1", "tokenType": "Bearer"]), failures: [
                Failure("store", "unchanged by the step", "accessToken changed to tok-2, scope written (x), tokenType removed"),
            ]),
            Case(target: .check(.storeUnchanged), name: "the store not read before the step", expect: T.expect(.storeUnchanged), observed: StepObservation(store: [:]), failures: [
                Failure("store", "the store's contents", "the store was not read"),
            ]),
            // store
            Case(target: .check(.store), name: "a stored field", expect: T.expect(.store([T.field("tokenType", "Bearer")])), observed: StepObservation(store: ["tokenType": "Bearer"]), failures: []),
            Case(target: .check(.store), name: "a token type in any case (RFC 6749 §5.1)", expect: T.expect(.store([T.field("tokenType", "Bearer")])), observed: StepObservation(store: ["tokenType": "bearer"]), failures: []),
            Case(target: .check(.store), name: "another value", expect: T.expect(.store([T.field("tokenType", "Bearer")])), observed: StepObservation(store: ["tokenType": "mac"]), failures: [
                Failure("store.tokenType", "equals \"Bearer\"", "\"mac\""),
            ]),
            Case(target: .check(.store), name: "a secret field: neither value is shown", expect: T.expect(.store([T.field("accessToken", "tok-1")])), observed: StepObservation(store: ["accessToken": "tok-22"]), failures: [
                Failure("store.accessToken", "equals \"‹redacted›\"", "\"‹redacted›\" (6 characters)"),
            ]),
            Case(target: .check(.store), name: "an absent matcher never passes on a store not read", expect: T.expect(.store([T.field("refreshToken", T.m(.absent))])), observed: StepObservation(), failures: [
                Failure("store", "the store's contents", "the store was not read"),
            ]),
            // storeFiles
            Case(target: .check(.storeFiles), name: "owner-only, nothing left over", expect: T.expect(.storeFiles([.ownerOnly, .noTemporaryFiles])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 11)]))), failures: []),
            Case(target: .check(.storeFiles), name: "owner-only is the guarantee: 0400 and 0500 hold it too", expect: T.expect(.storeFiles([.ownerOnly])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o400, 11)], mode: 0o500))), failures: []),
            Case(target: .check(.storeFiles), name: "a file others can read", expect: T.expect(.storeFiles([.ownerOnly])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o644, 11)]))), failures: [
                Failure("storeFiles.ownerOnly (auth.token)", "a regular file of the user's, readable by its owner only (0600)", "mode 0644"),
            ]),
            Case(target: .check(.storeFiles), name: "a directory others can list", expect: T.expect(.storeFiles([.ownerOnly])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 11)], mode: 0o755))), failures: [
                Failure("storeFiles.ownerOnly (directory)", "a directory of the user's, closed to others (no group or other bits: 0700)", "mode 0755"),
            ]),
            Case(target: .check(.storeFiles), name: "a lock file that holds no token is layout", expect: T.expect(.storeFiles([.ownerOnly, .noTemporaryFiles])), observed: StepObservation(storeFiles: .measured(storeDir([file(".lock", 0o600, 12), file("auth.token", 0o600, 11)]))), failures: []),
            Case(target: .check(.storeFiles), name: "a temporary copy of a token left", expect: T.expect(.storeFiles([.noTemporaryFiles])), observed: StepObservation(storeFiles: .measured(storeDir([holding(file(".tmp-1", 0o600, 12)), file("auth.token", 0o600, 11)]))), failures: [
                Failure("storeFiles.noTemporaryFiles", "nothing but the stored items' files (\"auth.token\") holds a token", "\".tmp-1\" holds one too, left behind"),
            ]),
            Case(target: .check(.storeFiles), name: "replaced: a new inode", expect: T.expect(.storeFiles([.replacedByRename])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 12)]))), failures: [], storeInodes: ["auth.token": 11]),
            Case(target: .check(.storeFiles), name: "rewritten in place: the same inode", expect: T.expect(.storeFiles([.replacedByRename])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 11)]))), failures: [
                Failure("storeFiles.replacedByRename (auth.token)", "a new file (another inode) renamed over the old one", "the same file as at the previous storeFiles check (its inode unchanged): rewritten in place, or not written at all"),
            ], storeInodes: ["auth.token": 11]),
            Case(target: .check(.storeFiles), name: "no earlier check: never a vacuous pass", expect: T.expect(.storeFiles([.replacedByRename])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 12)]))), failures: [
                Failure("storeFiles.replacedByRename", "an earlier storeFiles check to compare with", "none in this flow"),
            ]),
            Case(target: .check(.storeFiles), name: "the file was not there at the earlier check", expect: T.expect(.storeFiles([.replacedByRename])), observed: StepObservation(storeFiles: .measured(storeDir([file("auth.token", 0o600, 12)]))), failures: [
                Failure("storeFiles.replacedByRename (auth.token)", "the file seen at the previous storeFiles check, to compare with", "it was not there then: nothing to compare"),
            ], storeInodes: [:]),
            Case(target: .check(.storeFiles), name: "a store with no item: nothing to judge fails", expect: T.expect(.storeFiles([.ownerOnly, .noTemporaryFiles])), observed: StepObservation(storeFiles: .measured(storeDir([]))), failures: [
                Failure("storeFiles", "a file holding the stored token", "the store lists no item"),
            ]),
            Case(target: .check(.storeFiles), name: "not measured: loud", expect: T.expect(.storeFiles([.ownerOnly])), observed: StepObservation(), failures: [
                Failure("storeFiles", "the store's files measured", "they were not measured"),
            ]),
            // matchers, on a result field
            Case(target: .matcher(.equals), name: "equal", expect: T.expect(.result([T.field("title", "Tea")])), observed: result(["title": "Tea"]), failures: []),
            Case(target: .matcher(.equals), name: "a variable, shown filled in", expect: T.expect(.result([T.field("title", "${first}")])), observed: result(["title": "Coffee"]), variables: ["first": "Tea"], failures: [
                Failure("result.title", "equals \"Tea\"", "\"Coffee\""),
            ]),
            Case(target: .matcher(.equals), name: "absent", expect: T.expect(.result([T.field("title", "Tea")])), observed: ok, failures: [
                Failure("result.title", "equals \"Tea\"", "nothing (absent)"),
            ]),
            Case(target: .matcher(.notEquals), name: "different", expect: T.expect(.result([T.field("title", T.m(.notEquals(Template("Tea"))))])), observed: result(["title": "Coffee"]), failures: []),
            Case(target: .matcher(.notEquals), name: "the same", expect: T.expect(.result([T.field("title", T.m(.notEquals(Template("${first}"))))])), observed: result(["title": "Tea"]), variables: ["first": "Tea"], failures: [
                Failure("result.title", "differs from \"Tea\"", "\"Tea\""),
            ]),
            Case(target: .matcher(.present), name: "there", expect: T.expect(.result([T.field("title", T.m(.present))])), observed: result(["title": ""]), failures: []),
            Case(target: .matcher(.present), name: "not there", expect: T.expect(.result([T.field("title", T.m(.present))])), observed: ok, failures: [
                Failure("result.title", "is present", "nothing (absent)"),
            ]),
            Case(target: .matcher(.absent), name: "not there", expect: T.expect(.result([T.field("title", T.m(.absent))])), observed: ok, failures: []),
            Case(target: .matcher(.absent), name: "there", expect: T.expect(.result([T.field("title", T.m(.absent))])), observed: result(["title": "Tea"]), failures: [
                Failure("result.title", "is absent", "\"Tea\""),
            ]),
            Case(target: .matcher(.regex), name: "matching", expect: T.expect(.result([T.field("count", T.m(.regex("^[0-9]+$")))])), observed: result(["count": "42"]), failures: []),
            Case(target: .matcher(.regex), name: "not matching", expect: T.expect(.result([T.field("count", T.m(.regex("^[0-9]+$")))])), observed: result(["count": "4a"]), failures: [
                Failure("result.count", "matches /^[0-9]+$/", "\"4a\""),
            ]),
            Case(target: .matcher(.contains), name: "containing", expect: T.expect(.result([T.field("title", T.m(.contains(Template("ea"))))])), observed: result(["title": "Tea"]), failures: []),
            Case(target: .matcher(.contains), name: "not containing", expect: T.expect(.result([T.field("title", T.m(.contains(Template("of"))))])), observed: result(["title": "Tea"]), failures: [
                Failure("result.title", "contains \"of\"", "\"Tea\""),
            ]),
            Case(target: .matcher(.pkceS256), name: "the verifier of the challenge", expect: T.expect(.result([T.field("pkce", T.m(.pkceS256(Template(Table.challenge))))])), observed: result(["pkce": Table.verifier]), failures: []),
            Case(target: .matcher(.pkceS256), name: "not the verifier", expect: T.expect(.result([T.field("pkce", T.m(.pkceS256(Template(Table.challenge))))])), observed: result(["pkce": "plain"]), failures: [
                Failure("result.pkce", "a PKCE verifier whose S256 challenge is \"\(Table.challenge)\"", "\"plain\""),
            ]),
            Case(target: .matcher(.pkceS256), name: "a secret field: neither value is shown", expect: T.expect(.requests([T.request(.form([T.field("code_verifier", T.m(.pkceS256(Template(Table.challenge))))]))])), observed: saw(T.exchange("POST", "/token", body: "code_verifier=plain-verifier")), failures: [
                Failure("requests[0] (POST /token).form.code_verifier", "is the PKCE verifier of the S256 challenge \"‹redacted›\"", "\"‹redacted›\" (14 characters)"),
            ]),
            // capture
            Case(target: .capture, name: "a passing value is kept", expect: T.expect(.requests([T.request(.responseJson([T.field("access_token", T.m(.present, capture: "token"))]))])), observed: saw(T.tokenCall), failures: [], captured: ["token": "tok-1"]),
            Case(target: .capture, name: "nothing to keep fails, or a later step would compare with the literal \"${token}\"", expect: T.expect(.result([T.field("title", T.m(.notEquals(Template("Tea")), capture: "title"))])), observed: ok, failures: [
                Failure("result.title", "a value to capture as ${title}", "nothing (absent)"),
            ]),
        ]
    }()

    @Test(arguments: cases)
    func checksAsTheTableSays(_ testCase: Case) {
        var checker = ExpectationChecker(step: Step(number: 1, location: SourceLocation(line: 7, column: 13)), variables: testCase.variables)
        checker.storeInodes = testCase.storeInodes
        checker.check(testCase.expect, testCase.observed)
        #expect(checker.failures.map { Failure($0.check, $0.expected, $0.actual) } == testCase.failures)
        for (name, value) in testCase.captured {
            #expect(checker.variables[name] == value, "\(name)")
        }
        #expect(checker.failures.allSatisfy { $0.step == 1 && $0.line == 7 })
    }

    /// A secret captured from a sensitive field joins the secrets the reports mask.
    @Test func aCapturedSecretIsMaskedLater() {
        var checker = ExpectationChecker(step: Step(number: 1, location: SourceLocation(line: 1, column: 1)), variables: [:])
        checker.check(Table.expect(.requests([Table.request(.responseJson([Table.field("access_token", Table.m(.present, capture: "token")), Table.field("expires_in", Table.m(.present, capture: "lifetime"))]))])), Self.saw(Table.tokenCall))
        #expect(checker.capturedSecrets == ["tok-1"])
        #expect(checker.variables["lifetime"] == "3600")
    }

    /// Every step's checks run in one fixed order, outcome first, whatever order they were built in.
    @Test func everyCheckRunsAndTheOutcomeComesFirst() {
        var checker = ExpectationChecker(step: Step(number: 3, location: SourceLocation(line: 20, column: 5)), variables: [:])
        let expectation = Table.expect(.store([Table.field("tokenType", "Bearer")]), .requests([]), .outcome(.ok))
        checker.check(expectation, StepObservation(call: .error(kind: "transport", message: "down"), exchanges: [Table.products], store: [:]))
        #expect(checker.failures.map(\.message) == [
            "step 3: outcome: expected success, got transport error: down",
            "step 3: requests: expected 0 requests, got 1: GET /v1/products → 200",
            "step 3: store.tokenType: expected equals \"Bearer\", got nothing (absent)",
        ])
    }

    /// Each kind has a case that passes and a case that fails: a new kind needs both.
    @Test(arguments: CheckTarget.all)
    func everyKindHasAPassingAndAFailingCase(_ target: CheckTarget) {
        let cases = Self.cases.filter { $0.target == target }
        #expect(cases.contains { $0.failures.isEmpty }, "no passing case for \(target)")
        #expect(cases.contains { !$0.failures.isEmpty }, "no failing case for \(target)")
    }

    /// The store is read only for a step that checks it: reading it is an SDK call that may fail.
    @Test(arguments: [
        (Check.store([Table.field("tokenType", "Bearer")]), true), (Check.storeEmpty(false), true), (Check.store([]), false),
        (Check.outcome(.ok), false), (Check.error([]), false), (Check.result([]), false), (Check.requests([]), false), (Check.browser([]), false), (Check.neverSent([]), false),
    ])
    func readsTheStoreOnlyWhenAsked(_ check: Check, _ reads: Bool) {
        #expect(ExpectationChecker.readsStore(check) == reads)
    }
}
