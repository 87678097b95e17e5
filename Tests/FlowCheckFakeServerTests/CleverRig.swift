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
final class CleverRig {
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
        world = FakeProviderServer(provider: clever, now: { [clock] in clock.now })
    }

    func send(_ request: HTTPRequest) -> HTTPResponse {
        world.responder.respond(to: request)
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

    /// The hidden `request_id` of a login page.
    func requestID(in page: HTTPResponse) throws -> String {
        let marker = #"<input type="hidden" name="request_id" value=""#
        let text = page.bodyText
        let start = try #require(text.range(of: marker)).upperBound
        let end = try #require(text[start...].firstIndex(of: "\""))
        return String(text[start..<end])
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

    /// The query of a redirect's `Location`, decoded per RFC 3986.
    func redirectQuery(_ response: HTTPResponse) throws -> [(name: String, value: String)] {
        let location = try #require(response.headers["Location"])
        let items = try #require(URLComponents(string: location)?.queryItems)
        return items.map { (name: $0.name, value: $0.value ?? "") }
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

    /// `Basic` + base64 of `userPass` exactly as given, computed here rather than by the fake.
    static func basic(_ userPass: String) -> String {
        "Basic " + Data(userPass.utf8).base64EncodedString()
    }

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
