import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The fake alone, no SDK (the SDK tests' `CloverWorld` puts our SDK in front of it): a fresh
/// FakeClover behind the socket-free responder chain, with a hand-moved clock and
/// helpers that speak the wire contract the way a browser and an SDK would.
///
/// ```swift
/// let env = CloverRig()
/// let code = try env.code()                 // authorize, log in as Alice, read the redirect
/// let pair = try env.pair(env.token(code: code))
/// #expect(env.merchant("M1", token: pair.access).status == 200)
/// ```
final class CloverRig: FakeRig {
    static let site = "https://app.example.com/clover"
    static let redirect = "https://app.example.com/clover/callback"
    /// RFC 7636 Appendix B, so requests use a challenge computed outside this module.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    static let app = CloverFixture.App(id: "app-1", secret: "app-1-secret", siteURL: site)
    static let otherApp = CloverFixture.App(id: "app-2", secret: "app-2-secret", siteURL: "https://other.example.com/")

    static let fixture = CloverFixture(
        apps: [app, otherApp],
        merchants: [
            .init(id: "M1", name: "Cafe One", installedApps: ["app-1", "app-2"]),
            .init(id: "M2", name: "Bistro Two", installedApps: ["app-1"]),
            .init(id: "M3", name: "No Apps", installedApps: []),
        ],
        employees: [
            .init(email: "alice@example.com", password: "pw-alice", merchantID: "M1"),
            .init(email: "bob@example.com", password: "pw-bob", merchantID: "M2"),
            .init(email: "carol@example.com", password: "pw-carol", merchantID: "M3"),
            .init(email: "dave@example.com", password: "pw-dave", merchantID: "M-GONE"),
        ]
    )

    let clock = ManualClock()
    let clover: FakeClover
    let world: FakeProviderServer

    init(fixture: CloverFixture = CloverRig.fixture) {
        clover = FakeClover(fixture: fixture)
        world = FakeProviderServer(provider: clover, now: { [clock] in clock.now }, limits: .hangBounded)
    }

    /// Unix seconds of the virtual clock, as the token responses count.
    var nowSeconds: Int { Int(clock.now.timeIntervalSince1970) }

    // MARK: - Web host

    /// The authorize parameters a correct SDK sends; tests edit the list to break one.
    static func authorizeParameters(
        clientID: String = app.id, redirectURI: String = redirect, challenge: String = challenge, state: String? = "st-1"
    ) -> [(String, String)] {
        var parameters = [
            ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        if let state { parameters.append(("state", state)) }
        return parameters
    }

    func authorize(_ parameters: [(String, String)] = CloverRig.authorizeParameters()) -> HTTPResponse {
        send(HTTPRequest(method: "GET", target: "/oauth/v2/authorize?" + FormBody.encode(parameters)))
    }

    func login(
        requestID: String, email: String = "alice@example.com", password: String = "pw-alice", action: String? = "login",
        contentType: String? = "application/x-www-form-urlencoded"
    ) -> HTTPResponse {
        var fields = [("request_id", requestID), ("email", email), ("password", password)]
        if let action { fields.append(("action", action)) }
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        return send(HTTPRequest(method: "POST", target: "/oauth/v2/login", headers: headers, body: Data(FormBody.encode(fields).utf8)))
    }

    /// Authorizes and logs in, returning the code from the redirect.
    func code(
        parameters: [(String, String)] = CloverRig.authorizeParameters(),
        email: String = "alice@example.com", password: String = "pw-alice"
    ) throws -> String {
        let page = authorize(parameters)
        try #require(page.status == 200, "authorize: \(page.bodyText)")
        let redirect = login(requestID: try requestID(in: page), email: email, password: password)
        try #require(redirect.status == 302, "login: \(redirect.bodyText)")
        return try #require(try redirectQuery(redirect).first { $0.name == "code" }?.value)
    }

    // MARK: - API host

    func postJSON(_ path: String, _ body: String, contentType: String? = "application/json") -> HTTPResponse {
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        return send(HTTPRequest(method: "POST", target: path, headers: headers, body: Data(body.utf8)))
    }

    func postJSON(_ path: String, _ object: [String: Any]) -> HTTPResponse {
        postJSON(path, FakeJSON(any: object).compactText)
    }

    func token(clientID: String = app.id, code: String, verifier: String = verifier) -> HTTPResponse {
        postJSON("/oauth/v2/token", ["client_id": clientID, "code": code, "code_verifier": verifier])
    }

    func refresh(clientID: String = app.id, refreshToken: String) -> HTTPResponse {
        postJSON("/oauth/v2/refresh", ["client_id": clientID, "refresh_token": refreshToken])
    }

    func merchant(_ id: String, authorization: String?) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let authorization { headers.add("Authorization", authorization) }
        return send(HTTPRequest(method: "GET", target: "/v3/merchants/\(id)", headers: headers))
    }

    func merchant(_ id: String, token: String) -> HTTPResponse {
        merchant(id, authorization: "Bearer \(token)")
    }

    /// The access and refresh token of a successful token or refresh response.
    func pair(_ response: HTTPResponse) throws -> (access: String, refresh: String) {
        try #require(response.status == 200, "token response: \(response.bodyText)")
        let fields = try #require(response.jsonFields())
        return (try #require(fields["access_token"]), try #require(fields["refresh_token"]))
    }

    /// A token pair for Alice at merchant M1.
    func loggedIn() throws -> (access: String, refresh: String) {
        try pair(token(code: code()))
    }

    /// `(error, error_description)` of an RFC 6749 §5.2 error body.
    static func oauthError(_ response: HTTPResponse) -> (code: String?, description: String?) {
        let fields = response.jsonFields()
        return (fields?["error"], fields?["error_description"])
    }
}
