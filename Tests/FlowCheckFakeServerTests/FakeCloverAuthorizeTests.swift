import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// The Clover web host: `GET /oauth/v2/authorize` and the login form post, with no sockets.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCloverAuthorizeTests {
    let env = CloverRig()

    // MARK: - Authorize errors

    struct AuthorizeCase: Sendable, CustomTestStringConvertible {
        var name: String
        var parameters: [(String, String)]
        var message: String
        var testDescription: String { name }
    }

    static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var parameters = CloverRig.authorizeParameters().filter { $0.0 != name }
        if let value { parameters.append((name, value)) }
        return parameters
    }

    static let authorizeErrors: [AuthorizeCase] = [
        AuthorizeCase(name: "unknown client_id", parameters: replacing("client_id", with: "nope"), message: "Unknown client_id"),
        AuthorizeCase(name: "missing client_id", parameters: replacing("client_id", with: nil), message: "Unknown client_id"),
        AuthorizeCase(name: "empty client_id", parameters: replacing("client_id", with: ""), message: "Unknown client_id"),
        AuthorizeCase(
            name: "missing redirect_uri", parameters: replacing("redirect_uri", with: nil),
            message: "redirect_uri is not under the app's site URL"
        ),
        AuthorizeCase(
            name: "foreign redirect_uri", parameters: replacing("redirect_uri", with: "https://evil.example.com/clover/callback"),
            message: "redirect_uri is not under the app's site URL"
        ),
        AuthorizeCase(
            name: "another app's site", parameters: replacing("redirect_uri", with: "https://other.example.com/cb"),
            message: "redirect_uri is not under the app's site URL"
        ),
        AuthorizeCase(name: "missing response_type", parameters: replacing("response_type", with: nil), message: "unsupported_response_type"),
        AuthorizeCase(name: "response_type token", parameters: replacing("response_type", with: "token"), message: "unsupported_response_type"),
        AuthorizeCase(name: "missing code_challenge", parameters: replacing("code_challenge", with: nil), message: "code_challenge is required"),
        AuthorizeCase(
            name: "method plain", parameters: replacing("code_challenge_method", with: "plain"),
            message: "code_challenge_method must be S256"
        ),
        AuthorizeCase(
            name: "method missing", parameters: replacing("code_challenge_method", with: nil),
            message: "code_challenge_method must be S256"
        ),
        AuthorizeCase(
            name: "method lowercase", parameters: replacing("code_challenge_method", with: "s256"),
            message: "code_challenge_method must be S256"
        ),
        AuthorizeCase(
            name: "challenge 42 chars", parameters: replacing("code_challenge", with: String(CloverRig.challenge.dropLast())),
            message: "invalid code_challenge"
        ),
        AuthorizeCase(
            name: "challenge 44 chars", parameters: replacing("code_challenge", with: CloverRig.challenge + "A"),
            message: "invalid code_challenge"
        ),
        AuthorizeCase(
            name: "challenge with padding", parameters: replacing("code_challenge", with: String(CloverRig.challenge.dropLast()) + "="),
            message: "invalid code_challenge"
        ),
        AuthorizeCase(
            name: "challenge in standard base64",
            parameters: replacing("code_challenge", with: CloverRig.challenge.replacingOccurrences(of: "-", with: "+")),
            message: "invalid code_challenge"
        ),
        AuthorizeCase(
            name: "repeated state", parameters: CloverRig.authorizeParameters() + [("state", "second")],
            message: "parameter state is repeated"
        ),
        AuthorizeCase(
            name: "repeated redirect_uri", parameters: CloverRig.authorizeParameters() + [("redirect_uri", CloverRig.redirect)],
            message: "parameter redirect_uri is repeated"
        ),
    ]

    @Test(arguments: authorizeErrors)
    func authorizeRefusesWithAnErrorPage(_ row: AuthorizeCase) {
        let response = env.authorize(row.parameters)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.bodyText.contains(row.message))
        #expect(response.headers["Location"] == nil, "authorize errors are never redirected")
        #expect(!response.bodyText.contains("<form"))
        #expect(env.clover.issuedSecrets.isEmpty)
    }

    // MARK: - Redirect URI rule

    @Test(arguments: [
        ("https://app.example.com/clover", true),
        ("https://app.example.com/clover/", true),
        ("https://app.example.com/clover/callback", true),
        ("https://app.example.com/clover/callback?x=1", true),
        ("HTTPS://APP.Example.COM/clover/callback", true),
        ("https://app.example.com:443/clover/callback", true),
        ("http://app.example.com/clover/callback", false),
        ("https://app.example.com:8443/clover/callback", false),
        ("https://evil.example.com/clover/callback", false),
        ("https://app.example.com.evil.com/clover/callback", false),
        ("https://app.example.com/", false),
        ("https://app.example.com/cloverleaf", false),
        ("https://app.example.com/CLOVER/callback", false),
        ("https://app.example.com/clover/../admin", false),
        ("https://app.example.com/clover/%2E%2E/admin", false),
        ("https://app.example.com/clover/./callback", false),
        ("https://app.example.com/clover/callback#frag", false),
        ("https://user@app.example.com/clover/callback", false),
        ("/clover/callback", false),
        ("", false),
        ("not a url", false),
    ])
    func redirectURIMustBeUnderTheSiteURL(redirect: String, accepted: Bool) throws {
        #expect(FakeClover.redirectURI(redirect, isUnder: CloverRig.site) == accepted)
        let response = env.authorize(Self.replacing("redirect_uri", with: redirect))
        #expect(response.status == (accepted ? 200 : 400))
    }

    @Test(arguments: [
        ("https://other.example.com/", "https://other.example.com/anything/below", true),
        ("https://other.example.com", "https://other.example.com/cb", true),
        ("https://other.example.com/", "https://other.example.com", true),
        ("http://127.0.0.1:8080/app", "http://127.0.0.1:8080/app/cb", true),
        ("http://127.0.0.1:8080/app", "http://127.0.0.1/app/cb", false),
        ("http://localhost/app", "http://localhost:80/app/cb", true),
        ("myapp://oauth", "myapp://oauth/callback", true),
        ("myapp://oauth", "otherapp://oauth/callback", false),
    ])
    func redirectRuleForOtherSiteShapes(site: String, redirect: String, accepted: Bool) {
        #expect(FakeClover.redirectURI(redirect, isUnder: site) == accepted)
    }

    // MARK: - Login page

    @Test func loginPageHasExactlyOneFormWithTheFields() throws {
        let response = env.authorize()
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        let html = response.bodyText
        #expect(html.components(separatedBy: "<form").count == 2)
        #expect(html.contains(#"<form method="post" action="/oauth/v2/login">"#))
        #expect(html.contains(#"<input type="email" name="email">"#))
        #expect(html.contains(#"<input type="password" name="password">"#))
        #expect(html.contains(#"<button type="submit" name="action" value="login">Log in</button>"#))
        #expect(html.contains(#"<button type="submit" name="action" value="deny">Deny</button>"#))
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("</form>") && html.contains("</html>"))
        let requestID = try env.requestID(in: response)
        #expect(requestID.count == 32 && requestID.allSatisfy(\.isHexDigit))
        #expect(env.clover.issuedSecrets.isEmpty, "request ids are not secrets")
    }

    @Test func eachAuthorizeGetsItsOwnRequest() throws {
        let first = try env.requestID(in: env.authorize())
        let second = try env.requestID(in: env.authorize())
        #expect(first != second)
    }

    // MARK: - Login outcomes

    @Test func successRedirectsWithMerchantClientCodeAndState() throws {
        let page = env.authorize()
        let response = env.login(requestID: try env.requestID(in: page))
        #expect(response.status == 302)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(CloverRig.redirect + "?merchant_id=M1&client_id=app-1&code="))
        #expect(location.hasSuffix("&state=st-1"))
        let query = try env.redirectQuery(response)
        #expect(query.map(\.name) == ["merchant_id", "client_id", "code", "state"])
        let code = try #require(query.first { $0.name == "code" }?.value)
        #expect(code.count == 48 && MintedSecret.isMinted(code))
        #expect(env.clover.issuedSecrets == [code])
    }

    @Test func successWithoutStateSendsNoState() throws {
        let page = env.authorize(CloverRig.authorizeParameters(state: nil))
        let response = env.login(requestID: try env.requestID(in: page))
        #expect(try env.redirectQuery(response).map(\.name) == ["merchant_id", "client_id", "code"])
    }

    @Test func stateAndRedirectQueryArePreservedAndEncoded() throws {
        let state = "a b+c&d=é/?"
        let page = env.authorize(CloverRig.authorizeParameters(redirectURI: CloverRig.redirect + "?app=ios", state: state))
        let response = env.login(requestID: try env.requestID(in: page))
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(CloverRig.redirect + "?app=ios&merchant_id=M1&"))
        #expect(location.hasSuffix("&state=a%20b%2Bc%26d%3D%C3%A9%2F%3F"))
        #expect(try env.redirectQuery(response).last?.value == state)
    }

    @Test func emptyStateIsEchoedAsSent() throws {
        let page = env.authorize(CloverRig.authorizeParameters(state: ""))
        let response = env.login(requestID: try env.requestID(in: page))
        #expect(response.headers["Location"]?.hasSuffix("&state=") == true)
    }

    @Test func loginRequestIsSingleUse() throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID).status == 302)
        let again = env.login(requestID: requestID)
        #expect(again.status == 400)
        #expect(again.bodyText.contains("login request expired or unknown"))
        #expect(env.clover.issuedSecrets.count == 1)
    }

    @Test(arguments: [true, false])
    func denyRedirectsWithAccessDenied(withState: Bool) throws {
        let page = env.authorize(CloverRig.authorizeParameters(state: withState ? "st-9" : nil))
        let requestID = try env.requestID(in: page)
        let response = env.login(requestID: requestID, email: "", password: "", action: "deny")
        #expect(response.status == 302)
        let expected = CloverRig.redirect + "?error=access_denied" + (withState ? "&state=st-9" : "")
        #expect(response.headers["Location"] == expected)
        #expect(env.login(requestID: requestID).status == 400, "deny consumes the request")
        #expect(env.clover.issuedSecrets.isEmpty)
    }

    @Test func denyAppendsToAnExistingQuery() throws {
        let page = env.authorize(CloverRig.authorizeParameters(redirectURI: CloverRig.redirect + "?x=1", state: nil))
        let response = env.login(requestID: try env.requestID(in: page), action: "deny")
        #expect(response.headers["Location"] == CloverRig.redirect + "?x=1&error=access_denied")
    }

    @Test(arguments: [
        ("alice@example.com", "wrong"),
        ("alice@example.com", "PW-ALICE"),
        ("alice@example.com", ""),
        ("nobody@example.com", "pw-alice"),
        ("", ""),
    ])
    func wrongCredentialsShowTheFormAgain(email: String, password: String) throws {
        let requestID = try env.requestID(in: env.authorize())
        let response = env.login(requestID: requestID, email: email, password: password)
        #expect(response.status == 401)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Location"] == nil)
        #expect(response.bodyText.contains("Invalid email or password"))
        #expect(try env.requestID(in: response) == requestID)
        #expect(response.bodyText.contains(#"<form method="post" action="/oauth/v2/login">"#))
        #expect(env.clover.issuedSecrets.isEmpty)
        #expect(env.login(requestID: requestID).status == 302, "a failed attempt does not consume the request")
    }

    @Test func emailIsCaseInsensitive() throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID, email: "Alice@Example.COM").status == 302)
    }

    @Test(arguments: [
        ("carol@example.com", "pw-carol", "app-1", "the app is not installed on this merchant"),
        ("bob@example.com", "pw-bob", "app-2", "the app is not installed on this merchant"),
        ("dave@example.com", "pw-dave", "app-1", "the employee is not on any merchant"),
    ])
    func loginIsForbiddenWithoutTheMerchantsConsent(email: String, password: String, app: String, message: String) throws {
        let redirect = app == "app-1" ? CloverRig.redirect : "https://other.example.com/cb"
        let page = env.authorize(CloverRig.authorizeParameters(clientID: app, redirectURI: redirect))
        let response = env.login(requestID: try env.requestID(in: page), email: email, password: password)
        #expect(response.status == 403)
        #expect(response.bodyText.contains(message))
        #expect(response.headers["Location"] == nil)
        #expect(env.clover.issuedSecrets.isEmpty)
    }

    @Test func bobCanLogInForAnAppHisMerchantInstalled() throws {
        let code = try env.code(email: "bob@example.com", password: "pw-bob")
        let pair = try env.pair(env.token(code: code))
        #expect(env.merchant("M2", token: pair.access).status == 200)
        #expect(env.merchant("M1", token: pair.access).status == 401)
    }

    @Test(arguments: [nil, "", "0123456789abcdef0123456789abcdef"] as [String?])
    func unknownRequestIsRefused(requestID: String?) {
        var fields = [("email", "alice@example.com"), ("password", "pw-alice"), ("action", "login")]
        if let requestID { fields.append(("request_id", requestID)) }
        let response = env.send(HTTPRequest(
            method: "POST", target: "/oauth/v2/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(FormBody.encode(fields).utf8)
        ))
        #expect(response.status == 400)
        #expect(response.bodyText.contains("login request expired or unknown"))
    }

    @Test(arguments: [(599.0, 302), (600.0, 400), (3600.0, 400)])
    func loginRequestExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let requestID = try env.requestID(in: env.authorize())
        env.clock.advance(by: seconds)
        let response = env.login(requestID: requestID)
        #expect(response.status == status)
        if status == 400 {
            #expect(response.bodyText.contains("login request expired or unknown"))
        }
    }

    @Test(arguments: [nil, "", "approve", "LOGIN"] as [String?])
    func unknownActionIsRefusedWithoutConsumingTheRequest(action: String?) throws {
        let requestID = try env.requestID(in: env.authorize())
        let response = env.login(requestID: requestID, action: action)
        #expect(response.status == 400)
        #expect(response.bodyText.contains("action must be login or deny"))
        #expect(env.login(requestID: requestID).status == 302)
    }

    @Test func loginNeedsAFormBody() throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID, contentType: "application/json").status == 400)
        #expect(env.login(requestID: requestID, contentType: "application/x-www-form-urlencoded; charset=UTF-8").status == 302)
        let malformed = env.send(HTTPRequest(method: "POST", target: "/oauth/v2/login", body: Data("request_id=%zz".utf8)))
        #expect(malformed.status == 400)
        #expect(malformed.bodyText.contains("malformed form body"))
    }

    @Test func missingContentTypeIsTolerated() throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID, contentType: nil).status == 302)
    }
}
