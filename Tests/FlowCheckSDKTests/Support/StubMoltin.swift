import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

/// An in-test stand-in for the Moltin API, reached through `HTTPTransport` (no sockets).
///
/// It follows the wire contract strictly enough to catch client mistakes: exact content type,
/// known credentials, tokens that expire by the injected `ManualClock`, refresh accepted with an
/// issued token (expired or not), 400 without a token, 401 "Access token is not valid" for an
/// expired, revoked or unknown one. `intercept` lets a test answer (or fail) a request itself.
///
/// ```swift
/// let clock = ManualClock()
/// let server = StubMoltin(clock: clock)
/// server.intercept { request in request.isProducts ? .status(500, "oops") : nil }
/// ```
final class StubMoltin: HTTPTransport, @unchecked Sendable {
    static let clientId = "client-id-1234"
    /// A secret the tutorial's URL-host encoding would mangle (seed 003 defect).
    static let clientSecret = "s3cr&t=+ é/€"

    typealias Interceptor = @Sendable (TransportRequest) async throws -> TransportResponse?

    let clock: ManualClock
    private let lock = NSLock()
    private var issued: [String: Date] = [:]
    private var counter = 0
    private var log: [TransportRequest] = []
    private var interceptor: Interceptor?
    private var lifetime: TimeInterval = 3600
    private var refusesRefresh = false
    private var issuesRefreshTokens = false

    init(clock: ManualClock) {
        self.clock = clock
    }

    // MARK: Knobs

    func intercept(_ interceptor: Interceptor?) {
        locked { self.interceptor = interceptor }
    }

    func refuseRefresh(_ refuse: Bool = true) {
        locked { refusesRefresh = refuse }
    }

    func issueRefreshTokens(_ issue: Bool = true) {
        locked { issuesRefreshTokens = issue }
    }

    /// Forgets every issued token, as a server restart or revocation would.
    func revokeAllTokens() {
        locked { issued.removeAll() }
    }

    // MARK: Observations

    var requests: [TransportRequest] { locked { log } }

    var tokenRequests: [TransportRequest] { requests.filter(\.isTokenRequest) }

    var productsRequests: [TransportRequest] { requests.filter(\.isProducts) }

    func tokenRequests(grant: String) -> [TransportRequest] {
        tokenRequests.filter { $0.formValue("grant_type") == grant }
    }

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
        switch (request.method, request.url.path) {
        case ("POST", "/oauth/access_token"):
            return tokenEndpoint(request)
        case ("GET", "/v1/products"):
            return products(request)
        default:
            return .json(404, #"{"status":false,"error":"Not found"}"#)
        }
    }

    private func tokenEndpoint(_ request: TransportRequest) -> TransportResponse {
        guard request.header("Content-Type") == "application/x-www-form-urlencoded",
              let fields = request.form
        else {
            return .json(400, #"{"status":false,"error":"Malformed request"}"#)
        }
        let form = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        guard form["client_id"] == Self.clientId, form["client_secret"] == Self.clientSecret else {
            return .json(401, #"{"status":false,"error":"Invalid client id or secret"}"#)
        }
        switch form["grant_type"] {
        case "client_credentials":
            return issueToken(grant: "client_credentials")
        case "refresh_token":
            guard !refusesRefresh, let old = form["refresh_token"], issued[old] != nil else {
                return .json(401, #"{"status":false,"error":"Invalid refresh token"}"#)
            }
            issued[old] = nil
            return issueToken(grant: "refresh_token")
        default:
            return .json(400, #"{"status":false,"error":"Unsupported grant type"}"#)
        }
    }

    private func issueToken(grant: String) -> TransportResponse {
        counter += 1
        let token = "tok-\(counter)"
        let expires = clock.now.addingTimeInterval(lifetime)
        issued[token] = expires
        let refresh = issuesRefreshTokens ? #","refresh_token":"rt-\#(counter)""# : ""
        if issuesRefreshTokens {
            issued["rt-\(counter)"] = expires
        }
        return .json(200, """
            {"access_token":"\(token)","token_type":"Bearer","expires":\(Int(expires.timeIntervalSince1970)),\
            "expires_in":\(Int(lifetime)),"identifier":"\(grant)"\(refresh)}
            """)
    }

    private func products(_ request: TransportRequest) -> TransportResponse {
        guard let authorization = request.header("Authorization") else {
            return .json(400, #"{"status":false,"error":"Access token is required"}"#)
        }
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        guard let expiry = issued[token], clock.now < expiry else {
            return .json(401, #"{"status":false,"error":"Access token is not valid"}"#)
        }
        return .json(200, """
            {"status":true,"result":[{"id":"1001","title":"Moltin T-shirt","price":{"value":"£10"}},\
            {"id":"1002","title":"Mug"}],"pagination":{"total":2}}
            """)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension TransportResponse {
    static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    static func text(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "text/html"], body: Data(text.utf8))
    }
}

extension TransportRequest {
    var isTokenRequest: Bool { url.path == "/oauth/access_token" }

    var isProducts: Bool { url.path == "/v1/products" }

    var bodyText: String? { body.map { String(decoding: $0, as: UTF8.self) } }

    var form: [(String, String)]? { bodyText.flatMap(FormURLEncoding.decode) }

    func formValue(_ name: String) -> String? {
        form?.first { $0.0 == name }?.1
    }

    var bearerToken: String? {
        header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
    }
}
