import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The fake alone, no SDK (the SDK tests' `BraintreeWorld` puts our SDK in front of it): a fresh
/// FakeBraintreeConnect behind the socket-free responder chain, with helpers that
/// play the app (asks its backend for a connect URL), the merchant's browser (loads the
/// consent page, approves, follows the redirect to the backend) and, for the token endpoint,
/// a backend holding the secret.
///
/// ```swift
/// let env = BraintreeRig()
/// let back = try env.connect()                  // connect-url -> page -> approve -> callback
/// #expect(back.headers["Location"] == "examplescheme://braintree/connected?merchant_id=M1")
/// ```
final class BraintreeRig: FakeRig {
    static let host = "127.0.0.1:8080"
    static let origin = "http://" + host
    static let callback = origin + "/backend/braintree/callback"
    static let clientID = "client_id$sandbox$abc"
    static let secret = "client_secret$sandbox$s3cr3t"

    static let fixture = BraintreeFixture(
        clientID: clientID, clientSecret: secret,
        merchants: [
            .init(id: "M1", email: "owner@example.com", password: "pw-owner"),
            .init(id: "M 2&x", email: "odd@example.com", password: "pw-odd"),
        ],
        returnURL: "examplescheme://braintree"
    )

    let clock = ManualClock()
    let braintree: FakeBraintreeConnect
    let world: FakeProviderServer

    init(fixture: BraintreeFixture = BraintreeRig.fixture) {
        braintree = FakeBraintreeConnect(fixture: fixture)
        world = FakeProviderServer(provider: braintree, now: { [clock] in clock.now }, limits: .hangBounded)
    }

    /// A GET with `Host`, as a browser or app sends it; `host` nil for none.
    func get(_ target: String, host: String? = BraintreeRig.host, headers: [(String, String)] = []) -> HTTPResponse {
        var all = HTTPHeaders(headers)
        if let host { all.add("Host", host) }
        return send(HTTPRequest(method: "GET", target: target, headers: all))
    }

    /// The path and query of an absolute URL, the request target a client sends for it.
    static func target(of url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    // MARK: - App and browser

    /// The app asks its backend for a connect URL.
    func connectURL(host: String = BraintreeRig.host) throws -> String {
        let response = get("/backend/connect-url", host: host)
        try #require(response.status == 200, "connect-url: \(response.bodyText)")
        return try #require(response.jsonFields()?["connectURL"])
    }

    /// The backend's state inside a connect URL.
    static func state(in url: String) throws -> String {
        try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "state" }?.value)
    }

    func login(
        requestID: String, email: String = "owner@example.com", password: String = "pw-owner", action: String = "login"
    ) -> HTTPResponse {
        let fields = [("request_id", requestID), ("email", email), ("password", password), ("action", action)]
        return send(HTTPRequest(
            method: "POST", target: "/braintree/oauth/login",
            headers: [("Host", Self.host), ("Content-Type", "application/x-www-form-urlencoded")],
            body: Data(FormBody.encode(fields).utf8)
        ))
    }

    /// Connect URL, consent page and the merchant's answer: Braintree's redirect to the
    /// backend callback, not yet followed.
    func authorize(
        email: String = "owner@example.com", password: String = "pw-owner", action: String = "login"
    ) throws -> HTTPResponse {
        let page = get(try Self.target(of: connectURL()))
        try #require(page.status == 200, "connect page: \(page.bodyText)")
        let redirect = login(requestID: try requestID(in: page), email: email, password: password, action: action)
        try #require(redirect.status == 302, "login: \(redirect.bodyText)")
        return redirect
    }

    /// The browser follows a redirect to the backend.
    func follow(_ redirect: HTTPResponse) throws -> HTTPResponse {
        let location = try #require(redirect.headers["Location"])
        try #require(location.hasPrefix(Self.callback + "?"), "not the backend callback: \(location)")
        return get(try Self.target(of: location))
    }

    /// The whole connection; returns the backend's final redirect to the app.
    func connect(email: String = "owner@example.com", password: String = "pw-owner", action: String = "login") throws -> HTTPResponse {
        try follow(authorize(email: email, password: password, action: action))
    }

    /// The `code` of Braintree's redirect to the callback.
    static func code(in redirect: HTTPResponse) throws -> String {
        let location = try #require(redirect.headers["Location"])
        return try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
    }

    // MARK: - Backend to Braintree

    /// What a correct backend sends: id and secret form-encoded by hand (RFC 6749 §2.3.1).
    static let backendAuthorization = basic("client_id%24sandbox%24abc:client_secret%24sandbox%24s3cr3t")

    func accessTokens(
        _ fields: [(String, String)], authorization: String? = BraintreeRig.backendAuthorization,
        contentType: String = "application/x-www-form-urlencoded"
    ) -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": Self.host, "Content-Type": contentType]
        if let authorization { headers.add("Authorization", authorization) }
        return send(HTTPRequest(
            method: "POST", target: "/braintree/oauth/access_tokens", headers: headers, body: Data(FormBody.encode(fields).utf8)
        ))
    }

    func accessTokens(code: String, authorization: String? = BraintreeRig.backendAuthorization) -> HTTPResponse {
        accessTokens([("code", code), ("grant_type", "authorization_code")], authorization: authorization)
    }
}
