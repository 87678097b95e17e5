import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// Braintree's browser side in the Braintree fake: the connect (consent) page and its form
/// post, with no sockets.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeBraintreeConnectPageTests {
    let env = BraintreeRig()

    static func parameters(
        clientID: String? = BraintreeRig.clientID, redirectURI: String? = BraintreeRig.callback, state: String? = "st-1"
    ) -> [(String, String)] {
        var parameters: [(String, String)] = []
        if let clientID { parameters.append(("client_id", clientID)) }
        if let redirectURI { parameters.append(("redirect_uri", redirectURI)) }
        parameters.append(("scope", "read_write"))
        if let state { parameters.append(("state", state)) }
        return parameters
    }

    func connect(_ parameters: [(String, String)] = parameters(), host: String? = BraintreeRig.host) -> HTTPResponse {
        env.get("/braintree/oauth/connect?" + FormBody.encode(parameters), host: host)
    }

    // MARK: - Connect errors

    struct ConnectCase: Sendable, CustomTestStringConvertible {
        var name: String
        var parameters: [(String, String)]
        var host: String? = BraintreeRig.host
        var message: String
        var testDescription: String { name }
    }

    static let mismatch = "redirect_uri does not match the registered redirect URL"

    static let connectErrors: [ConnectCase] = [
        ConnectCase(name: "unknown client_id", parameters: parameters(clientID: "client_id$sandbox$other"), message: "Unknown client_id"),
        ConnectCase(name: "missing client_id", parameters: parameters(clientID: nil), message: "Unknown client_id"),
        ConnectCase(name: "missing redirect_uri", parameters: parameters(redirectURI: nil), message: mismatch),
        ConnectCase(
            name: "another host", parameters: parameters(redirectURI: "http://evil.example/backend/braintree/callback"), message: mismatch
        ),
        ConnectCase(
            name: "https", parameters: parameters(redirectURI: "https://127.0.0.1:8080/backend/braintree/callback"), message: mismatch
        ),
        ConnectCase(name: "another path", parameters: parameters(redirectURI: BraintreeRig.origin + "/backend/callback"), message: mismatch),
        ConnectCase(name: "extra query", parameters: parameters(redirectURI: BraintreeRig.callback + "?x=1"), message: mismatch),
        ConnectCase(name: "the app's own scheme", parameters: parameters(redirectURI: "examplescheme://braintree"), message: mismatch),
        ConnectCase(name: "built for another Host", parameters: parameters(), host: "localhost:8080", message: mismatch),
        ConnectCase(name: "no Host", parameters: parameters(), host: nil, message: mismatch),
        ConnectCase(
            name: "repeated state", parameters: parameters() + [("state", "again")], message: "parameter state is repeated"
        ),
    ]

    @Test(arguments: connectErrors)
    func connectRefusesWithAnErrorPage(_ row: ConnectCase) {
        let response = connect(row.parameters, host: row.host)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.bodyText.contains(row.message))
        #expect(response.headers["Location"] == nil, "connect errors are never redirected")
        #expect(!response.bodyText.contains("<form"))
    }

    @Test func consentPageHasFakeCloversFormShape() throws {
        let response = connect()
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        let html = response.bodyText
        #expect(html.components(separatedBy: "<form").count == 2)
        #expect(html.contains(#"<form method="post" action="/braintree/oauth/login">"#))
        #expect(html.contains(#"<input type="email" name="email">"#))
        #expect(html.contains(#"<input type="password" name="password">"#))
        #expect(html.contains(#"<button type="submit" name="action" value="login">Approve</button>"#))
        #expect(html.contains(#"<button type="submit" name="action" value="deny">Decline</button>"#))
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("</form>") && html.contains("</html>"))
        let requestID = try env.requestID(in: response)
        #expect(requestID.count == 32 && requestID.allSatisfy(\.isHexDigit))
        #expect(!html.contains(BraintreeRig.secret))
    }

    // MARK: - Login outcomes

    @Test func approveRedirectsToTheBackendWithCodeMerchantAndState() throws {
        let response = env.login(requestID: try env.requestID(in: connect()))
        #expect(response.status == 302)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(BraintreeRig.callback + "?code="))
        #expect(location.hasSuffix("&merchantId=M1&state=st-1"))
        let query = try #require(URLComponents(string: location)?.queryItems)
        #expect(query.map(\.name) == ["code", "merchantId", "state"])
        let code = try #require(query.first?.value)
        #expect(code.count == 48 && env.braintree.issuedSecrets == [code])
    }

    @Test(arguments: [("st-1", "&state=st-1"), (nil, "")] as [(String?, String)])
    func declineRedirectsWithAccessDenied(state: String?, suffix: String) throws {
        let requestID = try env.requestID(in: connect(Self.parameters(state: state)))
        let response = env.login(requestID: requestID, email: "", password: "", action: "deny")
        #expect(response.status == 302)
        #expect(response.headers["Location"] == BraintreeRig.callback + "?error=access_denied" + suffix)
        #expect(env.login(requestID: requestID).status == 400, "decline consumes the request")
        #expect(env.braintree.issuedSecrets.isEmpty)
    }

    @Test(arguments: [
        ("owner@example.com", "wrong"),
        ("owner@example.com", ""),
        ("nobody@example.com", "pw-owner"),
    ])
    func wrongCredentialsShowTheFormAgain(email: String, password: String) throws {
        let requestID = try env.requestID(in: connect())
        let response = env.login(requestID: requestID, email: email, password: password)
        #expect(response.status == 401)
        #expect(response.headers["Location"] == nil)
        #expect(response.bodyText.contains("Invalid email or password"))
        #expect(try env.requestID(in: response) == requestID)
        #expect(env.login(requestID: requestID).status == 302, "a failed attempt does not consume the request")
    }

    @Test(arguments: [(599.0, 302), (600.0, 400)])
    func consentRequestExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let requestID = try env.requestID(in: connect())
        env.clock.advance(by: seconds)
        #expect(env.login(requestID: requestID).status == status)
    }

    @Test(arguments: ["", "0123456789abcdef0123456789abcdef"])
    func unknownRequestIsRefused(requestID: String) {
        let response = env.login(requestID: requestID)
        #expect(response.status == 400)
        #expect(response.bodyText.contains("login request expired or unknown"))
    }

    @Test(arguments: ["approve", ""])
    func unknownActionIsRefused(action: String) throws {
        let requestID = try env.requestID(in: connect())
        #expect(env.login(requestID: requestID, action: action).status == 400)
        #expect(env.login(requestID: requestID).status == 302)
    }
}
