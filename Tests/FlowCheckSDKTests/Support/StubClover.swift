import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

/// An in-test stand-in for Clover's web and API hosts, reached through `HTTPTransport` (no
/// sockets), following the wire contract strictly enough to catch client mistakes.
///
/// `authorize` plays the browser and the employee: it checks the authorization URL (parameter
/// order, client, redirect URI, `S256`) and returns the redirect. The API side checks the JSON
/// bodies key for key, verifies PKCE with the SDK's own `SHA256`, makes codes single use and short
/// lived, rotates refresh tokens (a used one is dead), expires access tokens after 30 minutes by
/// the injected `ManualClock`, and answers `GET /v3/merchants/{mId}` only for a live token of that
/// merchant. `intercept` lets a test answer (or fail) a request itself.
///
/// ```swift
/// let clock = ManualClock()
/// let server = StubClover(clock: clock)
/// let redirect = try server.authorize(authorizeURL)           // ...?merchant_id=..&code=..&state=..
/// server.intercept { request in request.isCloverRefresh ? .json(500, "{}") : nil }
/// ```
final class StubClover: HTTPTransport, @unchecked Sendable {
    static let appID = "CLVAPP7Q2K"
    /// A secret that would show up (raw or encoded) if the SDK ever sent it.
    static let appSecret = "app-s3cr&t=+ é"
    static let apiKey = "api-key-4f1c9e"
    static let apiSecret = "api-s3cret-77ab"
    static let merchantID = "MERCH0001"
    static let merchantName = "Bean There Café"
    static let otherMerchantID = "MERCH0002"
    static let redirectURI = "https://app.example.com/clover/callback"
    static let webBase = URL(string: "http://127.0.0.1:9001")!
    static let apiBase = URL(string: "http://127.0.0.1:9002")!
    static let accessLifetime: TimeInterval = 30 * 60
    static let refreshLifetime: TimeInterval = 30 * 24 * 3600
    static let codeLifetime: TimeInterval = 5 * 60

    /// Why `authorize` refused: the login page would show an error instead of redirecting.
    struct AuthorizeRefusal: Error, Equatable {
        let reason: String
    }

    typealias Interceptor = @Sendable (TransportRequest) async throws -> TransportResponse?

    private struct Code {
        let challenge: String
        let merchantID: String
        let expires: Date
        var used: Bool
    }

    private struct Grant {
        let merchantID: String
        let expires: Date
        var used: Bool
    }

    let clock: ManualClock
    private let lock = NSLock()
    private var codes: [String: Code] = [:]
    private var accessTokens: [String: Grant] = [:]
    private var refreshTokens: [String: Grant] = [:]
    private var counter = 0
    private var log: [TransportRequest] = []
    private var interceptor: Interceptor?

    init(clock: ManualClock) {
        self.clock = clock
    }

    // MARK: The browser side

    /// Checks an authorization URL as Clover's login page would, logs the employee of `merchantID`
    /// in, and returns the redirect: `redirect_uri?merchant_id=..&client_id=..&code=..&state=..`,
    /// or `?error=access_denied&state=..` when `deny` is set.
    func authorize(_ url: URL, merchantID: String = StubClover.merchantID, deny: Bool = false) throws -> URL {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard url.scheme == Self.webBase.scheme, url.host == Self.webBase.host, url.port == Self.webBase.port,
              url.path == "/oauth/v2/authorize"
        else { throw AuthorizeRefusal(reason: "not the authorize endpoint") }
        guard let fields = FormURLEncoding.decode(components?.percentEncodedQuery ?? "") else {
            throw AuthorizeRefusal(reason: "malformed query")
        }
        guard fields.map(\.0) == ["client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state"] else {
            throw AuthorizeRefusal(reason: "parameters missing or out of order")
        }
        let query = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        guard query["client_id"] == Self.appID else { throw AuthorizeRefusal(reason: "unknown client") }
        guard query["redirect_uri"] == Self.redirectURI else { throw AuthorizeRefusal(reason: "redirect URI not under the site URL") }
        guard query["response_type"] == "code" else { throw AuthorizeRefusal(reason: "response_type") }
        guard query["code_challenge_method"] == "S256" else { throw AuthorizeRefusal(reason: "challenge method") }
        guard let challenge = query["code_challenge"], Base64URL.decode(challenge)?.count == 32 else {
            throw AuthorizeRefusal(reason: "challenge")
        }
        let state = query["state"] ?? ""
        let parameters: [(String, String)]
        if deny {
            parameters = [("error", "access_denied"), ("error_description", "The employee denied access"), ("state", state)]
        } else {
            let code = issueCode(challenge: challenge, merchantID: merchantID)
            parameters = [("merchant_id", merchantID), ("client_id", Self.appID), ("code", code), ("state", state)]
        }
        return URL(string: Self.redirectURI + "?" + FormURLEncoding.encode(parameters))!
    }

    /// Issues a code for `challenge` directly, as the app's own login would obtain (Partial OAuth).
    func issueCode(challenge: String, merchantID: String = StubClover.merchantID) -> String {
        locked {
            counter += 1
            let code = "code-\(counter)"
            codes[code] = Code(challenge: challenge, merchantID: merchantID, expires: clock.now.addingTimeInterval(Self.codeLifetime), used: false)
            return code
        }
    }

    /// Mints a live access token for `merchantID`, as the app's own flow would (No OAuth).
    func mintAccessToken(merchantID: String = StubClover.merchantID) -> String {
        locked {
            counter += 1
            let token = "app-at-\(counter)"
            accessTokens[token] = Grant(merchantID: merchantID, expires: clock.now.addingTimeInterval(Self.accessLifetime), used: false)
            return token
        }
    }

    // MARK: Knobs

    func intercept(_ interceptor: Interceptor?) {
        locked { self.interceptor = interceptor }
    }

    /// Kills every refresh token, as a revocation on the merchant dashboard would.
    func revokeRefreshTokens() {
        locked { refreshTokens.removeAll() }
    }

    /// Whether `token` would be accepted by the refresh endpoint now.
    func acceptsRefreshToken(_ token: String) -> Bool {
        locked { refreshTokens[token].map { !$0.used && clock.now < $0.expires } ?? false }
    }

    // MARK: Observations

    var requests: [TransportRequest] { locked { log } }

    var tokenRequests: [TransportRequest] { requests.filter(\.isCloverToken) }

    var refreshRequests: [TransportRequest] { requests.filter(\.isCloverRefresh) }

    var merchantRequests: [TransportRequest] { requests.filter(\.isCloverMerchant) }

    // MARK: HTTPTransport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let interceptor = locked { () -> Interceptor? in
            log.append(request)
            return self.interceptor
        }
        if let interceptor, let response = try await interceptor(request) {
            return response
        }
        return locked { route(request) }
    }

    // MARK: Routing (called under the lock)

    private func route(_ request: TransportRequest) -> TransportResponse {
        guard request.url.host == Self.apiBase.host, request.url.port == Self.apiBase.port else {
            return .json(404, #"{"message":"Not found"}"#)
        }
        switch (request.method, request.url.path) {
        case ("POST", "/oauth/v2/token"):
            return tokenEndpoint(request)
        case ("POST", "/oauth/v2/refresh"):
            return refreshEndpoint(request)
        case ("GET", let path) where path.hasPrefix("/v3/merchants/"):
            return merchant(request, id: String(path.dropFirst("/v3/merchants/".count)))
        default:
            return .json(404, #"{"message":"Not found"}"#)
        }
    }

    private func tokenEndpoint(_ request: TransportRequest) -> TransportResponse {
        guard request.header("Content-Type") == "application/json",
              let body = request.jsonObject, Set(body.keys) == ["client_id", "code", "code_verifier"]
        else { return Self.oauthError(400, "invalid_request", "Malformed token request") }
        guard body["client_id"] == Self.appID else { return Self.oauthError(401, "invalid_client", "Unknown client") }
        guard let codeValue = body["code"], var code = codes[codeValue], !code.used, clock.now < code.expires else {
            return Self.oauthError(400, "invalid_grant", "Code is invalid, expired or already used")
        }
        code.used = true
        codes[codeValue] = code
        guard let verifier = body["code_verifier"], Base64URL.encode(SHA256.hash(verifier.utf8)) == code.challenge else {
            return Self.oauthError(400, "invalid_grant", "PKCE verification failed")
        }
        return issuePair(merchantID: code.merchantID)
    }

    private func refreshEndpoint(_ request: TransportRequest) -> TransportResponse {
        guard request.header("Content-Type") == "application/json",
              let body = request.jsonObject, Set(body.keys) == ["client_id", "refresh_token"]
        else { return Self.oauthError(400, "invalid_request", "Malformed refresh request") }
        guard body["client_id"] == Self.appID else { return Self.oauthError(401, "invalid_client", "Unknown client") }
        guard let token = body["refresh_token"], var grant = refreshTokens[token], !grant.used, clock.now < grant.expires else {
            return Self.oauthError(400, "invalid_grant", "Refresh token is invalid, expired or already used")
        }
        grant.used = true
        refreshTokens[token] = grant
        return issuePair(merchantID: grant.merchantID)
    }

    private func issuePair(merchantID: String) -> TransportResponse {
        counter += 1
        let access = "at-\(counter)"
        let refresh = "rt-\(counter)"
        let accessExpiry = clock.now.addingTimeInterval(Self.accessLifetime)
        let refreshExpiry = clock.now.addingTimeInterval(Self.refreshLifetime)
        accessTokens[access] = Grant(merchantID: merchantID, expires: accessExpiry, used: false)
        refreshTokens[refresh] = Grant(merchantID: merchantID, expires: refreshExpiry, used: false)
        return .json(200, """
            {"access_token":"\(access)","access_token_expiration":\(Int(accessExpiry.timeIntervalSince1970)),\
            "refresh_token":"\(refresh)","refresh_token_expiration":\(Int(refreshExpiry.timeIntervalSince1970))}
            """)
    }

    private func merchant(_ request: TransportRequest, id: String) -> TransportResponse {
        guard request.header("Accept") == "application/json", let token = request.bearerToken,
              let grant = accessTokens[token], clock.now < grant.expires, grant.merchantID == id
        else { return .json(401, #"{"message":"401 Unauthorized"}"#) }
        return .json(200, #"{"id":"\#(id)","name":"\#(Self.merchantName)","currency":"USD"}"#)
    }

    private static func oauthError(_ status: Int, _ code: String, _ description: String) -> TransportResponse {
        .json(status, #"{"error":"\#(code)","error_description":"\#(description)"}"#)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension TransportRequest {
    var isCloverToken: Bool { url.path == "/oauth/v2/token" }

    var isCloverRefresh: Bool { url.path == "/oauth/v2/refresh" }

    var isCloverMerchant: Bool { url.path.hasPrefix("/v3/merchants/") }

    /// The body as a JSON object of strings, or nil when it is anything else.
    var jsonObject: [String: String]? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        var strings: [String: String] = [:]
        for (key, value) in object {
            guard let text = value as? String else { return nil }
            strings[key] = text
        }
        return strings
    }

    /// Everything the request carries, as text: URL, headers and body.
    var allText: String {
        url.absoluteString + "\n" + headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n" + (bodyText ?? "")
    }
}
