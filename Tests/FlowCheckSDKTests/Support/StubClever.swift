import Foundation
import FlowCheckSDK

/// An in-test stand-in for Clever's OAuth host, reached through `HTTPTransport` (no sockets),
/// following seed 004's wire contract strictly enough to catch client mistakes.
///
/// `authorize` plays the browser and the user: it checks the authorization URL (parameter order,
/// `response_type=code`, a known client, the registered redirect URL; CLE-REDIRECT: anything else
/// is refused by the server) and returns the redirect with a code and the state as sent. The token
/// endpoint checks the Basic header (the client ID, form-encoded, and a blank secret), the JSON
/// body key for key, and makes codes single use and bound to their client and redirect URL.
/// `intercept` lets a test answer (or fail) a request itself.
///
/// ```swift
/// let server = StubClever()
/// let url = try await login.startLogin()
/// let token = try await login.handleRedirect(try server.authorize(url))
/// server.intercept { _ in .json(500, "{}") }
/// ```
final class StubClever: HTTPTransport, @unchecked Sendable {
    static let clientID = "cle-ios-1"
    static let redirectURI = "clever-cle1://oauth"
    static let base = URL(string: "http://127.0.0.1:9101")!

    /// Why `authorize` refused: Clever's page would show an error instead of redirecting.
    struct AuthorizeRefusal: Error, Equatable {
        let reason: String
    }

    typealias Interceptor = @Sendable (TransportRequest) async throws -> TransportResponse?

    private struct Code {
        let clientID: String
        let redirectURI: String
        var used: Bool
    }

    private let lock = NSLock()
    private var registered: [String: String]
    private var codes: [String: Code] = [:]
    private var counter = 0
    private var log: [TransportRequest] = []
    private var interceptor: Interceptor?

    /// - Parameter clients: Registered iOS platform clients: client ID to custom redirect URL.
    init(clients: [String: String] = [StubClever.clientID: StubClever.redirectURI]) {
        registered = clients
    }

    // MARK: The browser side

    /// Checks an authorization URL as Clever's page would, signs the user in, and returns the
    /// redirect: `redirect_uri?code=..&state=..`, or `?error=access_denied&state=..` when `deny`.
    func authorize(_ url: URL, deny: Bool = false) throws -> URL {
        guard url.scheme == Self.base.scheme, url.host == Self.base.host, url.port == Self.base.port,
              url.path == "/oauth/authorize"
        else { throw AuthorizeRefusal(reason: "not the authorize endpoint") }
        guard let fields = FormURLEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") else {
            throw AuthorizeRefusal(reason: "malformed query")
        }
        guard fields.map(\.0) == ["response_type", "client_id", "redirect_uri", "state"] else {
            throw AuthorizeRefusal(reason: "parameters missing or out of order")
        }
        let query = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        guard query["response_type"] == "code" else { throw AuthorizeRefusal(reason: "response_type") }
        let clientID = query["client_id"] ?? ""
        guard let redirectURI = locked({ registered[clientID] }) else { throw AuthorizeRefusal(reason: "unknown client") }
        guard query["redirect_uri"] == redirectURI else { throw AuthorizeRefusal(reason: "redirect URI not registered") }
        let state = query["state"] ?? ""
        let parameters: [(String, String)]
        if deny {
            parameters = [("error", "access_denied"), ("state", state)]
        } else {
            parameters = [("code", issueCode(clientID: clientID, redirectURI: redirectURI)), ("state", state)]
        }
        return URL(string: redirectURI + "?" + FormURLEncoding.encode(parameters))!
    }

    /// Issues a code for `clientID` directly.
    func issueCode(clientID: String = StubClever.clientID, redirectURI: String = StubClever.redirectURI) -> String {
        locked {
            counter += 1
            let code = "cle-code-\(counter)"
            codes[code] = Code(clientID: clientID, redirectURI: redirectURI, used: false)
            return code
        }
    }

    // MARK: Knobs and observations

    func intercept(_ interceptor: Interceptor?) {
        locked { self.interceptor = interceptor }
    }

    var requests: [TransportRequest] { locked { log } }

    var tokenRequests: [TransportRequest] { requests.filter { $0.url.path == "/oauth/tokens" } }

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
        guard request.url.host == Self.base.host, request.url.port == Self.base.port,
              request.method == "POST", request.url.path == "/oauth/tokens"
        else { return .json(404, #"{"error":"not_found"}"#) }
        guard let clientID = request.basicClientID, registered[clientID] != nil else {
            return Self.oauthError(401, "invalid_client")
        }
        guard request.header("Content-Type") == "application/json",
              let body = request.jsonObject, Set(body.keys) == ["code", "grant_type", "redirect_uri"]
        else { return Self.oauthError(400, "invalid_request") }
        guard body["grant_type"] == "authorization_code" else { return Self.oauthError(400, "unsupported_grant_type") }
        guard let value = body["code"], var code = codes[value], !code.used, code.clientID == clientID,
              body["redirect_uri"] == code.redirectURI
        else { return Self.oauthError(400, "invalid_grant") }
        code.used = true
        codes[value] = code
        counter += 1
        return .json(200, #"{"access_token":"cle-at-\#(counter)","token_type":"bearer"}"#)
    }

    private static func oauthError(_ status: Int, _ code: String) -> TransportResponse {
        .json(status, #"{"error":"\#(code)"}"#)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension TransportRequest {
    /// The client ID of a `Basic` header whose password is blank, decoded as RFC 6749 §2.3.1
    /// encodes it; nil for any other header, including one with a non-blank password.
    var basicClientID: String? {
        guard let value = header("Authorization"), value.hasPrefix("Basic "),
              let data = Data(base64Encoded: String(value.dropFirst("Basic ".count))),
              let text = String(data: data, encoding: .utf8), text.hasSuffix(":"),
              text.filter({ $0 == ":" }).count == 1
        else { return nil }
        return FormURLEncoding.decode("x=" + text.dropLast())?.first?.1
    }
}
