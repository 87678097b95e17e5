import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// Clever's `POST /oauth/tokens`: the iOS client id with a blank secret, and single-use codes.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCleverTokenTests {
    let env = CleverRig()

    // MARK: - Success

    struct BodyCase: Sendable, CustomTestStringConvertible {
        var name: String
        var contentType: String
        var body: @Sendable (String) -> String
        var testDescription: String { name }
    }

    static let bodies: [BodyCase] = [
        BodyCase(name: "form", contentType: "application/x-www-form-urlencoded") { code in
            FormBody.encode([("code", code), ("grant_type", "authorization_code"), ("redirect_uri", CleverRig.redirect)])
        },
        BodyCase(name: "form with charset", contentType: "application/x-www-form-urlencoded; charset=UTF-8") { code in
            FormBody.encode([("grant_type", "authorization_code"), ("redirect_uri", CleverRig.redirect), ("code", code)])
        },
        BodyCase(name: "JSON", contentType: "application/json") { code in
            FakeJSON(any: ["code": code, "grant_type": "authorization_code", "redirect_uri": CleverRig.redirect]).compactText
        },
    ]

    @Test(arguments: bodies)
    func exchangeIssuesABearerToken(_ row: BodyCase) throws {
        let code = try env.code()
        let response = env.postToken(body: row.body(code), contentType: row.contentType)
        #expect(response.status == 200, "\(response.bodyText)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Pragma"] == "no-cache")
        let fields = try #require(response.jsonFields())
        #expect(Set(fields.keys) == ["access_token", "token_type"])
        #expect(fields["token_type"] == "bearer")
        let token = try #require(fields["access_token"])
        #expect(token.count == 56 && MintedSecret.isMinted(token) && token != code)
        #expect(env.clever.issuedSecrets == [code, token])
        #expect(env.clever.isTokenValid(token))
        env.clever.revokeAllTokens()
        #expect(!env.clever.isTokenValid(token))
        #expect(!env.clever.isTokenValid("nope"))
    }

    // MARK: - The Basic header (seed 004 step 4, RFC 6749 §2.3.1)

    struct HeaderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var authorization: [String]
        var status: Int
        var error: String?
        var testDescription: String { name }
    }

    static let headers: [HeaderCase] = [
        HeaderCase(name: "client id and blank secret", authorization: [CleverRig.basic("cle1:")], status: 200),
        HeaderCase(name: "a secret after the colon", authorization: [CleverRig.basic("cle1:secret")], status: 401, error: "invalid_client"),
        HeaderCase(name: "a space after the colon", authorization: [CleverRig.basic("cle1: ")], status: 401, error: "invalid_client"),
        HeaderCase(name: "no colon", authorization: [CleverRig.basic("cle1")], status: 401, error: "invalid_client"),
        // RFC 9110 §11.1: the scheme is case-insensitive and followed by 1*SP; base64 padding
        // is what a decoder can do without.
        HeaderCase(name: "unpadded base64", authorization: ["Basic Y2xlMTo"], status: 200),
        HeaderCase(name: "lowercase scheme", authorization: ["basic Y2xlMTo="], status: 200),
        HeaderCase(name: "uppercase scheme", authorization: ["BASIC Y2xlMTo="], status: 200),
        HeaderCase(name: "two spaces", authorization: ["Basic  Y2xlMTo="], status: 200),
        HeaderCase(name: "a tab, not SP", authorization: ["Basic\tY2xlMTo="], status: 401, error: "invalid_client"),
        HeaderCase(name: "no token", authorization: ["Basic "], status: 401, error: "invalid_client"),
        HeaderCase(name: "scheme prefix only", authorization: ["BasicY2xlMTo="], status: 401, error: "invalid_client"),
        HeaderCase(name: "raw, not base64", authorization: ["Basic cle1:"], status: 401, error: "invalid_client"),
        HeaderCase(name: "bearer", authorization: ["Bearer Y2xlMTo="], status: 401, error: "invalid_client"),
        HeaderCase(name: "id in another case", authorization: [CleverRig.basic("CLE1:")], status: 401, error: "invalid_client"),
        HeaderCase(name: "unknown client", authorization: [CleverRig.basic("nope:")], status: 401, error: "invalid_client"),
        HeaderCase(name: "no header", authorization: [], status: 401, error: "invalid_client"),
        HeaderCase(
            name: "two headers", authorization: [CleverRig.basic("cle1:"), CleverRig.basic("cle1:")],
            status: 401, error: "invalid_client"
        ),
        HeaderCase(name: "another known client", authorization: [CleverRig.basic("cle2:")], status: 400, error: "invalid_grant"),
    ]

    @Test(arguments: headers)
    func basicHeaderMustBeTheClientIDAndABlankSecret(_ row: HeaderCase) throws {
        let code = try env.code()
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        for value in row.authorization { headers.add("Authorization", value) }
        let body = FormBody.encode([("code", code), ("grant_type", "authorization_code"), ("redirect_uri", CleverRig.redirect)])
        let response = env.send(HTTPRequest(method: "POST", target: "/oauth/tokens", headers: headers, body: Data(body.utf8)))
        #expect(response.status == row.status, "\(response.bodyText)")
        #expect(CleverRig.oauthError(response) == row.error)
        if row.status == 401 {
            #expect(response.headers["WWW-Authenticate"] == #"Basic realm="clever""#)
            #expect(env.token(code: code).status == 200, "a refused client does not spend the code")
        }
    }

    struct EncodingCase: Sendable, CustomTestStringConvertible {
        var name: String
        var clientID: String
        /// The user-pass RFC 6749 §2.3.1 prescribes, written out by hand.
        var encoded: String
        /// Other spellings of the same id: form-decoding makes them the same (raw, as
        /// requests, httpx and authlib send it, or with %20 or lowercase hex).
        var alsoAccepted: [String]
        /// Spellings that decode to another id.
        var wrong: [String]
        var testDescription: String { name }
    }

    static let encodings: [EncodingCase] = [
        // The id's own colon must be encoded: the first colon ends the id (RFC 7617 §2).
        EncodingCase(name: "colon", clientID: "a:b", encoded: "a%3Ab:", alsoAccepted: [], wrong: ["a:b:"]),
        EncodingCase(name: "space", clientID: "my app", encoded: "my+app:", alsoAccepted: ["my app:", "my%20app:"], wrong: ["my%2Bapp:"]),
        EncodingCase(name: "non-ASCII", clientID: "clé", encoded: "cl%C3%A9:", alsoAccepted: ["clé:", "cl%c3%a9:"], wrong: ["cl%E9:"]),
        EncodingCase(name: "tilde and star", clientID: "a~b*c", encoded: "a%7Eb*c:", alsoAccepted: ["a~b*c:", "a%7Eb%2Ac:"], wrong: []),
        EncodingCase(name: "Braintree id", clientID: "client_id$sandbox$abc", encoded: "client_id%24sandbox%24abc:", alsoAccepted: ["client_id$sandbox$abc:"], wrong: []),
        // A raw '+' form-decodes to a space: the one spelling a raw id cannot keep.
        EncodingCase(name: "dollar and plus", clientID: "id$1+2", encoded: "id%241%2B2:", alsoAccepted: [], wrong: ["id$1+2:"]),
        EncodingCase(name: "RFC 6749 Appendix B", clientID: " %&+£€", encoded: "+%25%26%2B%C2%A3%E2%82%AC:", alsoAccepted: ["%20%25%26%2B%C2%A3%E2%82%AC:"], wrong: ["%zz:"]),
    ]

    @Test(arguments: encodings)
    func clientIDIsFormEncodedBeforeBase64(_ row: EncodingCase) throws {
        let redirect = "clever-odd://oauth"
        let env = CleverRig(fixture: CleverFixture(
            clients: [.init(id: row.clientID, redirectURL: redirect)],
            users: CleverRig.fixture.users
        ))
        let code = try env.code(CleverRig.authorizeParameters(clientID: row.clientID, redirectURI: redirect))
        for wrong in row.wrong {
            let response = env.token(code: code, redirectURI: redirect, authorization: CleverRig.basic(wrong))
            #expect(response.status == 401, "\(wrong) must be refused")
        }
        let response = env.token(code: code, redirectURI: redirect, authorization: CleverRig.basic(row.encoded))
        #expect(response.status == 200, "\(response.bodyText)")
        // Each other spelling is the same client: it gets past client authentication to the
        // (now spent) code, not a 401.
        for spelling in row.alsoAccepted {
            let again = env.token(code: code, redirectURI: redirect, authorization: CleverRig.basic(spelling))
            #expect(again.status == 400, "\(spelling) must authenticate the client")
            #expect(CleverRig.oauthError(again) == "invalid_grant")
        }
    }

    // MARK: - No secret anywhere

    @Test(arguments: [
        ("form field", "form", ""),
        ("form field with a value", "form", "s3cr3t"),
        ("JSON key", "json", ""),
        ("JSON null", "json", "null"),
        ("query parameter", "query", "s3cr3t"),
    ])
    func clientSecretAnywhereIsInvalidRequest(name: String, place: String, value: String) throws {
        let code = try env.code()
        let base = [("code", code), ("grant_type", "authorization_code"), ("redirect_uri", CleverRig.redirect)]
        let response: HTTPResponse
        switch place {
        case "form":
            response = env.postToken(body: FormBody.encode(base + [("client_secret", value)]), contentType: "application/x-www-form-urlencoded")
        case "json":
            var object: [String: Any] = Dictionary(uniqueKeysWithValues: base)
            object["client_secret"] = value == "null" ? FakeJSON.null : FakeJSON.string(value)
            response = env.postToken(body: FakeJSON(any: object).compactText, contentType: "application/json")
        default:
            response = env.postToken(
                body: FormBody.encode(base), contentType: "application/x-www-form-urlencoded", query: "?client_secret=" + value
            )
        }
        #expect(response.status == 400)
        #expect(CleverRig.oauthError(response) == "invalid_request")
        #expect(response.jsonFields()?["error_description"]?.contains("client_secret") == true)
        #expect(env.token(code: code).status == 200, "the refused request did not spend the code")
    }

    // MARK: - Malformed requests

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var contentType: String?
        var fields: [(String, String)]?
        var rawBody: String?
        var error: String
        var testDescription: String { name }
    }

    static let full = [("code", "CODE"), ("grant_type", "authorization_code"), ("redirect_uri", CleverRig.redirect)]
    static func without(_ name: String) -> [(String, String)] { full.filter { $0.0 != name } }
    static func with(_ name: String, _ value: String) -> [(String, String)] { without(name) + [(name, value)] }
    static let form = "application/x-www-form-urlencoded"

    static let malformed: [MalformedCase] = [
        MalformedCase(name: "missing code", contentType: form, fields: without("code"), error: "invalid_request"),
        MalformedCase(name: "empty code", contentType: form, fields: with("code", ""), error: "invalid_request"),
        MalformedCase(name: "missing grant_type", contentType: form, fields: without("grant_type"), error: "invalid_request"),
        MalformedCase(name: "missing redirect_uri", contentType: form, fields: without("redirect_uri"), error: "invalid_request"),
        MalformedCase(name: "empty redirect_uri", contentType: form, fields: with("redirect_uri", ""), error: "invalid_request"),
        MalformedCase(name: "grant_type refresh_token", contentType: form, fields: with("grant_type", "refresh_token"), error: "unsupported_grant_type"),
        MalformedCase(name: "repeated code", contentType: form, fields: full + [("code", "CODE")], error: "invalid_request"),
        MalformedCase(name: "no Content-Type", contentType: nil, fields: full, error: "invalid_request"),
        MalformedCase(name: "text/plain", contentType: "text/plain", fields: full, error: "invalid_request"),
        MalformedCase(name: "malformed form", contentType: form, rawBody: "code=%zz", error: "invalid_request"),
        MalformedCase(name: "JSON array", contentType: "application/json", rawBody: "[]", error: "invalid_request"),
        MalformedCase(
            name: "JSON number", contentType: "application/json",
            rawBody: #"{"code":1,"grant_type":"authorization_code","redirect_uri":"clever-cle1://oauth"}"#, error: "invalid_request"
        ),
    ]

    @Test(arguments: malformed)
    func malformedRequestsAreRefusedWithoutSpendingTheCode(_ row: MalformedCase) throws {
        let code = try env.code()
        let fields = (row.fields ?? []).map { $0.1 == "CODE" ? ($0.0, code) : $0 }
        let body = row.rawBody ?? FormBody.encode(fields)
        let response = env.postToken(body: body, contentType: row.contentType)
        #expect(response.status == 400)
        #expect(CleverRig.oauthError(response) == row.error)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(env.token(code: code).status == 200)
    }

    // MARK: - Code rules

    @Test func codeIsSingleUse() throws {
        let code = try env.code()
        #expect(env.token(code: code).status == 200)
        let again = env.token(code: code)
        #expect(again.status == 400)
        #expect(CleverRig.oauthError(again) == "invalid_grant")
        #expect(env.clever.issuedSecrets.count == 2)
    }

    @Test(arguments: ["0123456789abcdef0123456789abcdef", "x"])
    func unknownCodeIsInvalidGrant(_ code: String) {
        let response = env.token(code: code)
        #expect(response.status == 400)
        #expect(CleverRig.oauthError(response) == "invalid_grant")
    }

    @Test(arguments: [(299.0, 200), (299.999, 200), (300.0, 400), (86_400.0, 400)])
    func codeExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let code = try env.code()
        env.clock.advance(by: seconds)
        let response = env.token(code: code)
        #expect(response.status == status)
        if status == 400 { #expect(CleverRig.oauthError(response) == "invalid_grant") }
    }

    @Test func codeLifetimeComesFromTheFixture() throws {
        var fixture = CleverRig.fixture
        fixture.codeLifetime = 10
        let short = CleverRig(fixture: fixture)
        let code = try short.code()
        short.clock.advance(by: 10)
        #expect(short.token(code: code).status == 400)
    }

    @Test func codeOfAnotherClientIsRefusedWithoutSpendingIt() throws {
        let code = try env.code()
        let foreign = env.token(code: code, redirectURI: "clever-cle2://oauth", authorization: CleverRig.basic("cle2:"))
        #expect(foreign.status == 400)
        #expect(CleverRig.oauthError(foreign) == "invalid_grant")
        #expect(env.token(code: code).status == 200)
    }

    @Test(arguments: ["clever-cle2://oauth", "clever-cle1://oauth/", "Clever-cle1://oauth"])
    func redirectURIMustBeTheOneTheCodeWasIssuedFor(_ redirect: String) throws {
        let code = try env.code()
        let response = env.token(code: code, redirectURI: redirect)
        #expect(response.status == 400)
        #expect(CleverRig.oauthError(response) == "invalid_grant")
        #expect(env.token(code: code).status == 400, "a failed redirect check spends the code")
    }

    @Test func revokeAllTokensLeavesLaterTokensValid() throws {
        let first = try #require(env.token(code: env.code()).jsonFields()?["access_token"])
        env.clever.revokeAllTokens()
        let second = try #require(env.token(code: env.code()).jsonFields()?["access_token"])
        #expect(!env.clever.isTokenValid(first))
        #expect(env.clever.isTokenValid(second))
    }
}
