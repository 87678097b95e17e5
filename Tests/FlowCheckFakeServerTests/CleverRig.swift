import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The fake alone, no SDK (the SDK tests' `CleverWorld` puts our SDK in front of it): a fresh
/// FakeClever behind the socket-free responder chain, with a hand-moved clock and
/// helpers that speak the wire contract the way a browser and a native app would.
///
/// ```swift
/// let env = CleverRig()
/// let code = try env.code()                       // authorize, log in, read the redirect
/// #expect(env.token(code: code).status == 200)    // Basic base64("cle1:")
/// ```
final class CleverRig: FakeRig {
    static let redirect = "clever-cle1://oauth"
    static let client = CleverFixture.Client(id: "cle1", redirectURL: redirect)
    static let otherClient = CleverFixture.Client(id: "cle2", redirectURL: "clever-cle2://oauth")
    /// A reverse-domain redirect that already has a query, so results are appended with '&'.
    static let queryClient = CleverFixture.Client(id: "cle3", redirectURL: "com.example.cle3:/oauth?app=ios")

    static let fixture = CleverFixture(
        clients: [client, otherClient, queryClient],
        users: [.init(email: "teacher@example.com", password: "pw-teacher")]
    )

    let clock = ManualClock()
    let clever: FakeClever
    let world: FakeProviderServer

    init(fixture: CleverFixture = CleverRig.fixture) {
        clever = FakeClever(fixture: fixture)
        world = FakeProviderServer(provider: clever, now: { [clock] in clock.now }, limits: .hangBounded)
    }

    // MARK: - Browser

    /// Seed 004 step 3's parameters; tests edit the list to break one.
    static func authorizeParameters(
        clientID: String = client.id, redirectURI: String = redirect, responseType: String = "CODE", state: String? = "st-1"
    ) -> [(String, String)] {
        var parameters = [("response_type", responseType), ("client_id", clientID), ("redirect_uri", redirectURI)]
        if let state { parameters.append(("state", state)) }
        return parameters
    }

    func authorize(_ parameters: [(String, String)] = CleverRig.authorizeParameters()) -> HTTPResponse {
        send(HTTPRequest(method: "GET", target: "/oauth/authorize?" + FormBody.encode(parameters)))
    }

    func login(
        requestID: String, email: String = "teacher@example.com", password: String = "pw-teacher", action: String? = "login"
    ) -> HTTPResponse {
        var fields = [("request_id", requestID), ("email", email), ("password", password)]
        if let action { fields.append(("action", action)) }
        return send(HTTPRequest(
            method: "POST", target: "/oauth/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(FormBody.encode(fields).utf8)
        ))
    }

    /// Authorizes and logs in, returning the code from the redirect.
    func code(_ parameters: [(String, String)] = CleverRig.authorizeParameters()) throws -> String {
        let page = authorize(parameters)
        try #require(page.status == 200, "authorize: \(page.bodyText)")
        let redirect = login(requestID: try requestID(in: page))
        try #require(redirect.status == 302, "login: \(redirect.bodyText)")
        return try #require(try redirectQuery(redirect).first { $0.name == "code" }?.value)
    }

    // MARK: - Token endpoint

    /// A token request as a form body, `authorization` nil for none.
    func token(
        code: String, redirectURI: String = redirect, authorization: String? = basic("cle1:"),
        extra: [(String, String)] = []
    ) -> HTTPResponse {
        let fields = [("code", code), ("grant_type", "authorization_code"), ("redirect_uri", redirectURI)] + extra
        return postToken(body: FormBody.encode(fields), contentType: "application/x-www-form-urlencoded", authorization: authorization)
    }

    func postToken(
        body: String, contentType: String?, authorization: String? = basic("cle1:"), query: String = ""
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        if let authorization { headers.add("Authorization", authorization) }
        return send(HTTPRequest(method: "POST", target: "/oauth/tokens" + query, headers: headers, body: Data(body.utf8)))
    }

    /// The `error` code of an RFC 6749 §5.2 error body.
    static func oauthError(_ response: HTTPResponse) -> String? {
        response.jsonFields()?["error"]
    }
}
