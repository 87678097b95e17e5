import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckSpec

/// The narrative, case by case: one expectation, the exact sentences the report prints for it.
@Suite(.fast, .timeLimit(.minutes(20)))
struct StepNarrativeTableTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var target: CheckTarget
        var name: String
        var expect: FlowCheckSpec.Expectation?
        var isAppStep = false
        var lines: [String]
        var testDescription: String { "\(target): \(name)" }
    }

    static let cases: [Case] = {
        typealias T = Table
        func request(_ checks: RequestCheck...) -> FlowCheckSpec.Expectation { T.expect(.requests([RequestExpectation(location: T.here, checks: checks)])) }
        func redirect(_ checks: URLCheck...) -> FlowCheckSpec.Expectation { T.expect(.browser([.redirect(URLExpectation(location: T.here, checks: checks))])) }
        func result(_ matcher: Matcher, field: String = "title") -> FlowCheckSpec.Expectation { T.expect(.result([T.field(field, matcher)])) }
        return [
            // outcome and error
            Case(target: .check(.outcome), name: "unwritten, after a call", expect: nil, isAppStep: true, lines: ["The call succeeds."]),
            Case(target: .check(.outcome), name: "no call, nothing said", expect: nil, lines: []),
            Case(target: .check(.outcome), name: "an error", expect: T.expect(.outcome(.error)), isAppStep: true, lines: ["The call fails."]),
            Case(target: .check(.error), name: "kind and message complete the outcome's sentence", expect: T.expect(.outcome(.error), .error([.kind("tokenEndpoint"), .message(T.m(.contains(Template("invalid"))))])), isAppStep: true, lines: [
                "The call fails with a `tokenEndpoint` error whose message contains `invalid`.",
            ]),
            Case(target: .error(.kind), name: "an before a vowel", expect: T.expect(.error([.kind("invalidResponse")])), isAppStep: true, lines: ["The call fails with an `invalidResponse` error."]),
            // Was "The call fails whose message ..." (no committed spec writes a message without a kind).
            Case(target: .error(.message), name: "a message without a kind", expect: T.expect(.error([.message(T.eq("bad credentials"))])), isAppStep: true, lines: [
                "The call fails with an error whose message equals `bad credentials`.",
            ]),
            // result
            Case(target: .check(.result), name: "one line per field", expect: T.expect(.result([T.field("productCount", "2"), T.field("productIds", T.m(.present))])), isAppStep: true, lines: [
                "The call succeeds.", "Result `productCount` equals `2`.", "Result `productIds` is present.",
            ]),
            // requests
            Case(target: .check(.requests), name: "none", expect: T.expect(.requests([])), lines: ["The server sees no request."]),
            Case(target: .check(.requests), name: "several, numbered", expect: T.expect(.requests([T.request(.method("POST")), T.request()])), lines: [
                "The server sees exactly these 2 requests, in order:", "  1. `POST` to any path", "  2. `any method` to any path",
            ]),
            Case(target: .request(.method), name: "a method", expect: request(.method("GET")), lines: ["The server sees exactly this request:", "  1. `GET` to any path"]),
            Case(target: .request(.path), name: "an exact path joins the method", expect: request(.method("GET"), .path(T.eq("/v1/products"))), lines: ["The server sees exactly this request:", "  1. `GET /v1/products`"]),
            Case(target: .request(.path), name: "a path matcher", expect: request(.path(T.m(.regex("^/v1/")))), lines: ["The server sees exactly this request:", "  1. `any method` to a path that matches the pattern `^/v1/`"]),
            Case(target: .request(.query), name: "query", expect: request(.method("GET"), .query([T.field("page", "2")])), lines: ["The server sees exactly this request:", "  1. `GET` to any path: query `page` equals `2`"]),
            Case(target: .request(.headers), name: "a secret header's literal is masked", expect: request(.method("GET"), .headers([T.field("Authorization", "Bearer tok-1"), T.field("Accept", "application/json")])), lines: [
                "The server sees exactly this request:", "  1. `GET` to any path: headers `Authorization` equals `‹redacted›`, `Accept` equals `application/json`",
            ]),
            Case(target: .request(.form), name: "form", expect: request(.method("POST"), .form([T.field("grant_type", "client_credentials")])), lines: [
                "The server sees exactly this request:", "  1. `POST` to any path: form `grant_type` equals `client_credentials`",
            ]),
            Case(target: .request(.json), name: "JSON", expect: request(.method("POST"), .json([T.field("qty", "2")])), lines: ["The server sees exactly this request:", "  1. `POST` to any path: JSON `qty` equals `2`"]),
            Case(target: .request(.body), name: "body", expect: request(.method("POST"), .body([T.field("code", T.m(.present))])), lines: ["The server sees exactly this request:", "  1. `POST` to any path: body (a form or JSON) `code` is present"]),
            Case(target: .request(.forbid), name: "forbid", expect: request(.method("POST"), .forbid(["client_secret", "password"])), lines: ["The server sees exactly this request:", "  1. `POST` to any path: no `client_secret`, `password` field"]),
            Case(target: .request(.optional), name: "optional", expect: T.expect(.requests([T.request(.method("POST"), .path(T.eq("/oauth/v2/refresh")), .optional), T.request(.method("GET"))])), lines: [
                "The server sees exactly these 2 requests, in order (those marked \"or none\" may be missing):", "  1. (or none) `POST /oauth/v2/refresh`", "  2. `GET` to any path",
            ]),
            Case(target: .request(.origin), name: "origin follows the path", expect: request(.method("GET"), .path(T.eq("/oauth/v2/authorize")), .origin("web")), lines: ["The server sees exactly this request:", "  1. `GET /oauth/v2/authorize` on the web origin"]),
            Case(target: .request(.status), name: "status", expect: request(.method("GET"), .status(200)), lines: ["The server sees exactly this request:", "  1. `GET` to any path: answered 200"]),
            Case(target: .request(.responseJson), name: "the answer, with a capture", expect: request(.method("POST"), .responseJson([T.field("access_token", T.m(.present, capture: "token"))])), lines: [
                "The server sees exactly this request:", "  1. `POST` to any path: answer `access_token` is present (kept as `${token}`)",
            ]),
            Case(target: .check(.requests), name: "every part, in order", expect: request(
                .method("POST"), .path(T.eq("/oauth/access_token")), .query([T.field("a", "1")]), .headers([T.field("Accept", "x")]), .form([T.field("grant_type", "y")]),
                .json([T.field("qty", "2")]), .forbid(["client_secret"]), .status(200), .responseJson([T.field("expires_in", T.m(.present))])
            ), lines: [
                "The server sees exactly this request:",
                "  1. `POST /oauth/access_token`: query `a` equals `1`; headers `Accept` equals `x`; form `grant_type` equals `y`; JSON `qty` equals `2`; no `client_secret` field; answered 200; answer `expires_in` is present",
            ]),
            // browser
            Case(target: .check(.browser), name: "in order: opened, the page, then where it went", expect: T.expect(.browser([.opened([]), .pageStatus(200), .pageContains(Template("Welcome")), .noRedirect, .dismissed(false)])), lines: [
                "The SDK opens no browser.", "The page answers 200.", "The page says `Welcome`.", "The browser is not redirected (no code reaches the app).", "The browser stays open.",
            ]),
            Case(target: .browser(.opened), name: "one URL", expect: T.expect(.browser([.opened([T.url(.path(T.eq("/oauth/authorize")))])])), lines: ["The SDK opens the browser at:", "  1. `/oauth/authorize`"]),
            Case(target: .browser(.opened), name: "two URLs", expect: T.expect(.browser([.opened([T.url(), T.url()])])), lines: ["The SDK opens the browser at, in order:", "  1. any URL", "  2. any URL"]),
            Case(target: .browser(.pageStatus), name: "status", expect: T.expect(.browser([.pageStatus(401)])), lines: ["The page answers 401."]),
            Case(target: .browser(.pageContains), name: "text, as written", expect: T.expect(.browser([.pageContains(Template("Hello ${name}"))])), lines: ["The page says `Hello ${name}`."]),
            Case(target: .browser(.redirect), name: "a redirect", expect: redirect(.scheme(T.eq("myapp"))), lines: ["The browser is redirected to scheme equals `myapp`."]),
            Case(target: .browser(.noRedirect), name: "no redirect", expect: T.expect(.browser([.noRedirect])), lines: ["The browser is not redirected (no code reaches the app)."]),
            Case(target: .browser(.dismissed), name: "dismissed", expect: T.expect(.browser([.dismissed(true)])), lines: ["The SDK dismisses the browser."]),
            // URL
            Case(target: .url(.url), name: "the whole URL", expect: redirect(.url(T.m(.contains(Template("callback"))))), lines: ["The browser is redirected to a URL that contains `callback`."]),
            Case(target: .url(.scheme), name: "scheme", expect: redirect(.scheme(T.eq("https"))), lines: ["The browser is redirected to scheme equals `https`."]),
            Case(target: .url(.host), name: "host", expect: redirect(.host(T.eq("callback"))), lines: ["The browser is redirected to host equals `callback`."]),
            Case(target: .url(.path), name: "an exact path", expect: redirect(.path(T.eq("/connected"))), lines: ["The browser is redirected to `/connected`."]),
            Case(target: .url(.path), name: "a path matcher", expect: redirect(.path(T.m(.contains(Template("connect"))))), lines: ["The browser is redirected to a path that contains `connect`."]),
            Case(target: .url(.query), name: "query", expect: redirect(.query([T.field("merchant_id", "M-1"), T.field("code", T.m(.present))])), lines: [
                "The browser is redirected to query `merchant_id` equals `M-1`, `code` is present.",
            ]),
            Case(target: .url(.forbid), name: "forbid", expect: redirect(.query([T.field("state", "s")]), .forbid(["access_token"])), lines: ["The browser is redirected to query `state` equals `s`; no `access_token` parameter."]),
            Case(target: .browser(.redirect), name: "any URL", expect: redirect(), lines: ["The browser is redirected to any URL."]),
            // neverSent
            Case(target: .check(.neverSent), name: "a literal is masked, a variable is named", expect: T.expect(.neverSent([Template("sk-secret-1"), Template("${appSecret}")])), lines: [
                "No request carries `‹redacted›` or `${appSecret}`, in any encoding.",
            ]),
            Case(target: .check(.neverSent), name: "none, nothing said", expect: T.expect(.neverSent([])), lines: []),
            // store
            Case(target: .check(.storeFiles), name: "every file check", expect: T.expect(.storeFiles([.ownerOnly, .noTemporaryFiles, .replacedByRename])), lines: [
                "The token store's files are its owner's alone: the directory and each file are closed to the group and others (0700 and 0600, or stricter).",
                "Nothing in the token store's directory but the stored items' files holds a token: no temporary copy or backup is left behind.",
                "Each token store file is a new file (a new inode) since the previous file check: replaced by a rename, not rewritten in place.",
            ]),
            Case(target: .check(.storeEmpty), name: "empty", expect: T.expect(.storeEmpty(true)), lines: ["The token store is empty."]),
            Case(target: .check(.storeEmpty), name: "not empty", expect: T.expect(.storeEmpty(false)), lines: ["The token store is not empty."]),
            Case(target: .check(.storeUnchanged), name: "unchanged", expect: T.expect(.storeUnchanged), lines: ["The token store holds what it held before the step."]),
            Case(target: .check(.store), name: "fields", expect: T.expect(.store([T.field("tokenType", "Bearer"), T.field("accessToken", "${token}")])), lines: [
                "Stored `tokenType` equals `Bearer`.", "Stored `accessToken` equals `${token}`.",
            ]),
            Case(target: .check(.store), name: "after the browser, whatever order it was built in", expect: T.expect(.store([T.field("tokenType", "Bearer")]), .storeEmpty(false), .browser([.dismissed(true)])), isAppStep: true, lines: [
                "The call succeeds.", "The SDK dismisses the browser.", "The token store is not empty.", "Stored `tokenType` equals `Bearer`.",
            ]),
            // matchers: plain, then on a secret field (a literal masked, a variable named)
            Case(target: .matcher(.equals), name: "plain", expect: result(T.eq("Tea")), lines: ["Result `title` equals `Tea`."]),
            Case(target: .matcher(.equals), name: "secret literal", expect: result(T.eq("tok-1"), field: "accessToken"), lines: ["Result `accessToken` equals `‹redacted›`."]),
            Case(target: .matcher(.equals), name: "secret variable", expect: result(T.eq("${token}"), field: "accessToken"), lines: ["Result `accessToken` equals `${token}`."]),
            Case(target: .matcher(.notEquals), name: "plain", expect: result(T.m(.notEquals(Template("Tea")))), lines: ["Result `title` differs from `Tea`."]),
            Case(target: .matcher(.notEquals), name: "secret literal", expect: result(T.m(.notEquals(Template("tok-1"))), field: "refreshToken"), lines: ["Result `refreshToken` differs from `‹redacted›`."]),
            Case(target: .matcher(.present), name: "plain", expect: result(T.m(.present)), lines: ["Result `title` is present."]),
            Case(target: .matcher(.present), name: "secret", expect: result(T.m(.present), field: "accessToken"), lines: ["Result `accessToken` is present."]),
            Case(target: .matcher(.absent), name: "plain", expect: result(T.m(.absent)), lines: ["Result `title` is absent."]),
            Case(target: .matcher(.regex), name: "plain", expect: result(T.m(.regex("^T"))), lines: ["Result `title` matches the pattern `^T`."]),
            Case(target: .matcher(.regex), name: "a pattern is not masked", expect: result(T.m(.regex("^[A-Za-z0-9_-]{43,128}$")), field: "code_verifier"), lines: ["Result `code_verifier` matches the pattern `^[A-Za-z0-9_-]{43,128}$`."]),
            Case(target: .matcher(.contains), name: "plain", expect: result(T.m(.contains(Template("ea")))), lines: ["Result `title` contains `ea`."]),
            Case(target: .matcher(.contains), name: "secret literal", expect: result(T.m(.contains(Template("tok"))), field: "accessToken"), lines: ["Result `accessToken` contains `‹redacted›`."]),
            Case(target: .matcher(.pkceS256), name: "plain", expect: result(T.m(.pkceS256(Template("abc"))), field: "pkce"), lines: ["Result `pkce` is the PKCE verifier of the S256 challenge `abc`."]),
            Case(target: .matcher(.pkceS256), name: "secret literal", expect: result(T.m(.pkceS256(Template("abc"))), field: "code_verifier"), lines: ["Result `code_verifier` is the PKCE verifier of the S256 challenge `‹redacted›`."]),
            Case(target: .matcher(.pkceS256), name: "secret variable", expect: result(T.m(.pkceS256(Template("${challenge}"))), field: "code_verifier"), lines: ["Result `code_verifier` is the PKCE verifier of the S256 challenge `${challenge}`."]),
            Case(target: .capture, name: "kept as a variable", expect: result(T.m(.present, capture: "first")), lines: ["Result `title` is present (kept as `${first}`)."]),
        ]
    }()

    @Test(arguments: cases)
    func narratesAsTheTableSays(_ testCase: Case) {
        // Values are marked for each report to quote by its own rule; backticks here, for reading.
        let lines = StepNarrative.checks(testCase.expect, isAppStep: testCase.isAppStep).map { NarrativeMarkup.pieces($0).map { piece in
            switch piece {
            case .text(let text): return text
            case .value(let value): return "`\(value)`"
            }
        }.joined() }
        #expect(lines == testCase.lines)
    }

    /// Each kind has a sentence of its own in the table: a new kind needs one.
    @Test(arguments: CheckTarget.all)
    func everyKindIsNarrated(_ target: CheckTarget) {
        #expect(Self.cases.contains { $0.target == target && !$0.lines.isEmpty }, "no narrated case for \(target)")
    }
}
