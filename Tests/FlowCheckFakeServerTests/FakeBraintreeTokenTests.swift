import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// Braintree's `POST /braintree/oauth/access_tokens`: what a backend holding the secret
/// calls, and what a device (which has no secret) cannot.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeBraintreeTokenTests {
    let env = BraintreeRig()

    @Test(arguments: ["form", "json"])
    func backendExchangesACode(body: String) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        let response: HTTPResponse
        if body == "form" {
            response = env.accessTokens(code: code)
        } else {
            response = env.send(HTTPRequest(
                method: "POST", target: "/braintree/oauth/access_tokens",
                headers: [("Host", BraintreeRig.host), ("Content-Type", "application/json"),
                          ("Authorization", BraintreeRig.backendAuthorization)],
                body: Data(FakeJSON(any: ["code": code, "grant_type": "authorization_code"]).compactText.utf8)
            ))
        }
        #expect(response.status == 200, "\(response.bodyText)")
        #expect(response.headers["Cache-Control"] == "no-store")
        let fields = try #require(response.jsonFields())
        #expect(Set(fields.keys) == ["access_token", "refresh_token", "merchant_id"])
        #expect(fields["merchant_id"] == "M1")
        let access = try #require(fields["access_token"])
        let refresh = try #require(fields["refresh_token"])
        #expect(env.braintree.issuedSecrets == [code, access, refresh])
        #expect(env.braintree.isTokenValid(access) && env.braintree.isTokenValid(refresh))
        #expect(env.braintree.backendTokens.isEmpty, "only the backend callback records what the backend holds")
    }

    struct HeaderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var authorization: String?
        var testDescription: String { name }
    }

    static let refusedHeaders: [HeaderCase] = [
        HeaderCase(name: "device: id and blank secret", authorization: BraintreeRig.basic("client_id%24sandbox%24abc:")),
        HeaderCase(name: "device: no header", authorization: nil),
        HeaderCase(name: "missing colon", authorization: BraintreeRig.basic("client_id%24sandbox%24abcclient_secret%24sandbox%24s3cr3t")),
        HeaderCase(name: "wrong secret", authorization: BraintreeRig.basic("client_id%24sandbox%24abc:client_secret%24sandbox%24nope")),
        HeaderCase(name: "secret with a plus (form-decodes to a space)", authorization: BraintreeRig.basic("client_id$sandbox$abc:client_secret+sandbox+s3cr3t")),
        HeaderCase(name: "a tab after the scheme", authorization: "Basic\t" + Data("client_id$sandbox$abc:client_secret$sandbox$s3cr3t".utf8).base64EncodedString()),
        HeaderCase(name: "bearer", authorization: "Bearer client_secret%24sandbox%24s3cr3t"),
    ]

    /// Spellings of the right credentials (RFC 9110 §11.1, RFC 6749 §2.3.1): what requests
    /// (raw `$`), authlib (quoted) and hand-written backends send.
    static let acceptedHeaders: [HeaderCase] = [
        HeaderCase(name: "id and secret not form-encoded", authorization: BraintreeRig.basic("client_id$sandbox$abc:client_secret$sandbox$s3cr3t")),
        HeaderCase(
            name: "lowercase scheme",
            authorization: "basic " + Data("client_id%24sandbox%24abc:client_secret%24sandbox%24s3cr3t".utf8).base64EncodedString()
        ),
        HeaderCase(
            name: "uppercase scheme, two spaces",
            authorization: "BASIC  " + Data("client_id$sandbox$abc:client_secret$sandbox$s3cr3t".utf8).base64EncodedString()
        ),
    ]

    @Test(arguments: acceptedHeaders)
    func everySpellingOfTheBackendCredentialsIsAccepted(_ row: HeaderCase) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        let response = env.accessTokens(code: code, authorization: row.authorization)
        #expect(response.status == 200, "\(response.bodyText)")
    }

    @Test(arguments: refusedHeaders)
    func anythingButTheExactBackendCredentialsIsInvalidClient(_ row: HeaderCase) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        let response = env.accessTokens(code: code, authorization: row.authorization)
        #expect(response.status == 401)
        #expect(response.jsonFields()?["error"] == "invalid_client")
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="braintree""#)
        #expect(env.accessTokens(code: code).status == 200, "a refused client does not spend the code")
    }

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Form fields; the value "CODE" stands for a fresh code.
        var fields: [(String, String)]
        var error: String
        var testDescription: String { name }
    }

    static let malformed: [MalformedCase] = [
        MalformedCase(
            name: "client_secret in the body",
            fields: [("code", "CODE"), ("grant_type", "authorization_code"), ("client_secret", BraintreeRig.secret)],
            error: "invalid_request"
        ),
        MalformedCase(name: "missing code", fields: [("grant_type", "authorization_code")], error: "invalid_request"),
        MalformedCase(name: "missing grant_type", fields: [("code", "CODE")], error: "invalid_request"),
        MalformedCase(
            name: "grant_type refresh_token", fields: [("code", "CODE"), ("grant_type", "refresh_token")],
            error: "unsupported_grant_type"
        ),
    ]

    @Test(arguments: malformed)
    func malformedRequestsAreRefusedWithoutSpendingTheCode(_ row: MalformedCase) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        let response = env.accessTokens(row.fields.map { $0.1 == "CODE" ? ($0.0, code) : $0 })
        #expect(response.status == 400)
        #expect(response.jsonFields()?["error"] == row.error)
        #expect(env.accessTokens(code: code).status == 200)
    }

    @Test func codeIsSingleUse() throws {
        let code = try BraintreeRig.code(in: env.authorize())
        #expect(env.accessTokens(code: code).status == 200)
        let again = env.accessTokens(code: code)
        #expect(again.status == 400)
        #expect(again.jsonFields()?["error"] == "invalid_grant")
    }

    @Test(arguments: ["0123456789abcdef0123456789abcdef", "x"])
    func unknownCodeIsInvalidGrant(_ code: String) {
        #expect(env.accessTokens(code: code).jsonFields()?["error"] == "invalid_grant")
    }

    @Test(arguments: [(299.0, 200), (300.0, 400)])
    func codeExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        env.clock.advance(by: seconds)
        #expect(env.accessTokens(code: code).status == status)
    }

    @Test(arguments: [(BraintreeRig.callback, 200), ("http://localhost:8080/backend/braintree/callback", 400)])
    func redirectURIIsCheckedWhenSent(redirect: String, status: Int) throws {
        let code = try BraintreeRig.code(in: env.authorize())
        let response = env.accessTokens([("code", code), ("grant_type", "authorization_code"), ("redirect_uri", redirect)])
        #expect(response.status == status)
        if status == 400 {
            #expect(response.jsonFields()?["error"] == "invalid_grant")
            #expect(env.accessTokens(code: code).status == 400, "a failed redirect check spends the code")
        }
    }
}
