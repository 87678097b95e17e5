import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// Clever's browser side: `GET /oauth/authorize` and the login form post, with no sockets.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCleverAuthorizeTests {
    let env = CleverRig()

    // MARK: - Authorize errors

    struct AuthorizeCase: Sendable, CustomTestStringConvertible {
        var name: String
        var parameters: [(String, String)]
        var message: String
        var testDescription: String { name }
    }

    static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var parameters = CleverRig.authorizeParameters().filter { $0.0 != name }
        if let value { parameters.append((name, value)) }
        return parameters
    }

    static let mismatch = "redirect_uri does not match the registered redirect URL"

    static let authorizeErrors: [AuthorizeCase] = [
        AuthorizeCase(name: "unknown client_id", parameters: replacing("client_id", with: "nope"), message: "Unknown client_id"),
        AuthorizeCase(name: "missing client_id", parameters: replacing("client_id", with: nil), message: "Unknown client_id"),
        AuthorizeCase(name: "client_id in another case", parameters: replacing("client_id", with: "CLE1"), message: "Unknown client_id"),
        AuthorizeCase(name: "missing redirect_uri", parameters: replacing("redirect_uri", with: nil), message: mismatch),
        AuthorizeCase(name: "empty redirect_uri", parameters: replacing("redirect_uri", with: ""), message: mismatch),
        AuthorizeCase(name: "path below the registered URL", parameters: replacing("redirect_uri", with: "clever-cle1://oauth/cb"), message: mismatch),
        AuthorizeCase(name: "trailing slash", parameters: replacing("redirect_uri", with: "clever-cle1://oauth/"), message: mismatch),
        AuthorizeCase(name: "scheme in another case", parameters: replacing("redirect_uri", with: "Clever-cle1://oauth"), message: mismatch),
        AuthorizeCase(name: "extra query", parameters: replacing("redirect_uri", with: "clever-cle1://oauth?x=1"), message: mismatch),
        AuthorizeCase(name: "another client's URL", parameters: replacing("redirect_uri", with: "clever-cle2://oauth"), message: mismatch),
        AuthorizeCase(name: "web URL", parameters: replacing("redirect_uri", with: "https://app.example.com/oauth"), message: mismatch),
        AuthorizeCase(name: "missing response_type", parameters: replacing("response_type", with: nil), message: "unsupported_response_type"),
        AuthorizeCase(name: "response_type token", parameters: replacing("response_type", with: "token"), message: "unsupported_response_type"),
        AuthorizeCase(name: "response_type code token", parameters: replacing("response_type", with: "code token"), message: "unsupported_response_type"),
        AuthorizeCase(name: "missing state", parameters: replacing("state", with: nil), message: "state is required"),
        AuthorizeCase(name: "empty state", parameters: replacing("state", with: ""), message: "state is required"),
        AuthorizeCase(
            name: "repeated state", parameters: CleverRig.authorizeParameters() + [("state", "second")],
            message: "parameter state is repeated"
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
    }

    /// DECISION under test: seed 004 writes `response_type=CODE`.
    @Test(arguments: ["CODE", "code", "Code"])
    func responseTypeIsCaseInsensitive(_ responseType: String) {
        #expect(env.authorize(CleverRig.authorizeParameters(responseType: responseType)).status == 200)
    }

    // MARK: - Login page

    @Test func loginPageHasFakeCloversFormShape() throws {
        let response = env.authorize()
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        let html = response.bodyText
        #expect(html.components(separatedBy: "<form").count == 2)
        #expect(html.contains(#"<form method="post" action="/oauth/login">"#))
        #expect(html.contains(#"<input type="email" name="email">"#))
        #expect(html.contains(#"<input type="password" name="password">"#))
        #expect(html.contains(#"<button type="submit" name="action" value="login">Log in</button>"#))
        #expect(html.contains(#"<button type="submit" name="action" value="deny">Deny</button>"#))
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("</form>") && html.contains("</html>"))
        let requestID = try env.requestID(in: response)
        #expect(requestID.count == 32 && requestID.allSatisfy(\.isHexDigit))
        #expect(env.clever.issuedSecrets.isEmpty, "request ids are not secrets")
    }

    // MARK: - Login outcomes

    @Test func successRedirectsToTheCustomSchemeWithCodeAndState() throws {
        let response = env.login(requestID: try env.requestID(in: env.authorize()))
        #expect(response.status == 302)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix("clever-cle1://oauth?code="))
        #expect(location.hasSuffix("&state=st-1"))
        let query = try env.redirectQuery(response)
        #expect(query.map(\.name) == ["code", "state"])
        let code = try #require(query.first?.value)
        #expect(code.count == 48 && code.allSatisfy(\.isHexDigit) && MintedSecret.isMinted(code))
        #expect(env.clever.issuedSecrets == [code])
    }

    struct RedirectCase: Sendable, CustomTestStringConvertible {
        var name: String
        var client: CleverFixture.Client
        var action: String
        var expectedPrefix: String
        var testDescription: String { name }
    }

    static let redirectCases: [RedirectCase] = [
        RedirectCase(name: "deny, plain custom scheme", client: CleverRig.client, action: "deny",
                     expectedPrefix: "clever-cle1://oauth?error=access_denied&state=st-1"),
        RedirectCase(name: "deny, URL with a query", client: CleverRig.queryClient, action: "deny",
                     expectedPrefix: "com.example.cle3:/oauth?app=ios&error=access_denied&state=st-1"),
        RedirectCase(name: "login, URL with a query", client: CleverRig.queryClient, action: "login",
                     expectedPrefix: "com.example.cle3:/oauth?app=ios&code="),
    ]

    @Test(arguments: redirectCases)
    func resultsAreAppendedToTheRegisteredURL(_ row: RedirectCase) throws {
        let page = env.authorize(CleverRig.authorizeParameters(clientID: row.client.id, redirectURI: row.client.redirectURL))
        let response = env.login(requestID: try env.requestID(in: page), action: row.action)
        #expect(response.status == 302)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(row.expectedPrefix))
        #expect(location.hasSuffix("&state=st-1"))
        #expect(env.clever.issuedSecrets.count == (row.action == "login" ? 1 : 0))
    }

    @Test func stateIsEchoedExactlyAndEncoded() throws {
        let state = "a b+c&d=é/?"
        let page = env.authorize(CleverRig.authorizeParameters(state: state))
        let response = env.login(requestID: try env.requestID(in: page))
        #expect(response.headers["Location"]?.hasSuffix("&state=a%20b%2Bc%26d%3D%C3%A9%2F%3F") == true)
        #expect(try env.redirectQuery(response).last?.value == state)
    }

    @Test(arguments: ["login", "deny"])
    func loginRequestIsSingleUse(action: String) throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID, action: action).status == 302)
        let again = env.login(requestID: requestID)
        #expect(again.status == 400)
        #expect(again.bodyText.contains("login request expired or unknown"))
    }

    @Test(arguments: [
        ("teacher@example.com", "wrong"),
        ("teacher@example.com", "PW-TEACHER"),
        ("teacher@example.com", ""),
        ("nobody@example.com", "pw-teacher"),
        ("", ""),
    ])
    func wrongCredentialsShowTheFormAgain(email: String, password: String) throws {
        let requestID = try env.requestID(in: env.authorize())
        let response = env.login(requestID: requestID, email: email, password: password)
        #expect(response.status == 401)
        #expect(response.headers["Location"] == nil)
        #expect(response.bodyText.contains("Invalid email or password"))
        #expect(response.bodyText.contains(#"<form method="post" action="/oauth/login">"#))
        #expect(try env.requestID(in: response) == requestID)
        #expect(env.clever.issuedSecrets.isEmpty)
        #expect(env.login(requestID: requestID).status == 302, "a failed attempt does not consume the request")
    }

    @Test func emailIsCaseInsensitive() throws {
        let requestID = try env.requestID(in: env.authorize())
        #expect(env.login(requestID: requestID, email: "Teacher@Example.COM").status == 302)
    }

    @Test(arguments: [(599.0, 302), (600.0, 400)])
    func loginRequestExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let requestID = try env.requestID(in: env.authorize())
        env.clock.advance(by: seconds)
        #expect(env.login(requestID: requestID).status == status)
    }

    @Test(arguments: [nil, "", "approve", "LOGIN"] as [String?])
    func unknownActionIsRefusedWithoutConsumingTheRequest(action: String?) throws {
        let requestID = try env.requestID(in: env.authorize())
        let response = env.login(requestID: requestID, action: action)
        #expect(response.status == 400)
        #expect(response.bodyText.contains("action must be login or deny"))
        #expect(env.login(requestID: requestID).status == 302)
    }

    @Test(arguments: [nil, "", "0123456789abcdef0123456789abcdef"] as [String?])
    func unknownRequestIsRefused(requestID: String?) {
        var fields = [("email", "teacher@example.com"), ("password", "pw-teacher"), ("action", "login")]
        if let requestID { fields.append(("request_id", requestID)) }
        let response = env.send(HTTPRequest(
            method: "POST", target: "/oauth/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(FormBody.encode(fields).utf8)
        ))
        #expect(response.status == 400)
        #expect(response.bodyText.contains("login request expired or unknown"))
    }

    // MARK: - Routing

    @Test(arguments: [
        ("POST", "/oauth/authorize", 405),
        ("GET", "/oauth/login", 405),
        ("GET", "/oauth/tokens", 405),
        ("GET", "/oauth/token", 404),
        ("GET", "/", 404),
    ])
    func unknownRoutesAndMethods(method: String, target: String, status: Int) {
        #expect(env.send(HTTPRequest(method: method, target: target)).status == status)
    }
}
