import Foundation

/// The browser side: the authorize endpoint, the login page and its form post.
extension FakeClever {
    // MARK: - GET /oauth/authorize

    func authorize(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let query = request.query
        // RFC 6749 §3.1: parameters MUST NOT be repeated; which copy would count is ambiguous.
        var seen = Set<String>()
        for item in query where !seen.insert(item.name).inserted {
            return Self.page.errorResponse(400, "invalid_request: parameter \(item.name) is repeated")
        }
        func parameter(_ name: String) -> String? {
            query.first { $0.name == name }?.value
        }
        guard let clientID = parameter("client_id"), let client = fixture.clients.first(where: { $0.id == clientID }) else {
            return Self.page.errorResponse(400, "Unknown client_id")
        }
        // RFC 6749 §4.1.2.1: with an untrusted redirect_uri the error must not be redirected.
        guard let redirectURI = parameter("redirect_uri"), redirectURI == client.redirectURL else {
            return Self.page.errorResponse(400, "redirect_uri does not match the registered redirect URL")
        }
        guard parameter("response_type")?.lowercased() == "code" else {
            return Self.page.errorResponse(400, "unsupported_response_type: response_type must be code")
        }
        guard let state = parameter("state"), !state.isEmpty else {
            return Self.page.errorResponse(400, "invalid_request: state is required")
        }
        let requestID = FakeClover.randomHex(byteCount: 16)
        book.withLock { book in
            book.pendingLogins[requestID] = PendingLogin(
                clientID: client.id, redirectURI: redirectURI, state: state, createdAt: now
            )
        }
        return Self.page.loginResponse(200, requestID: requestID, intro: Self.intro(client.id))
    }

    // MARK: - POST /oauth/login

    /// What the login form post decided, computed under the lock and rendered outside it.
    private enum LoginOutcome {
        case unknownRequest
        case badAction
        case denied(PendingLogin)
        case badCredentials(requestID: String, clientID: String)
        case issued(PendingLogin, code: String)
    }

    func login(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        // A browser always sends the form media type; a missing header is tolerated for
        // hand-written clients, a different one is a client bug worth surfacing.
        if let mediaType = FakeClover.mediaType(request.headers["Content-Type"]),
           mediaType != "application/x-www-form-urlencoded" {
            return Self.page.errorResponse(400, "invalid_request: Content-Type must be application/x-www-form-urlencoded")
        }
        guard let fields = request.formFields else {
            return Self.page.errorResponse(400, "invalid_request: malformed form body")
        }
        func field(_ name: String) -> String? {
            fields.first { $0.name == name }?.value
        }
        let outcome: LoginOutcome = book.withLock { book in
            guard let requestID = field("request_id"), let pending = book.pendingLogins[requestID] else {
                return .unknownRequest
            }
            guard now < pending.createdAt + fixture.loginRequestLifetime else {
                book.pendingLogins[requestID] = nil
                return .unknownRequest
            }
            switch field("action") {
            case "deny":
                book.pendingLogins[requestID] = nil
                return .denied(pending)
            case "login":
                break
            default:
                return .badAction
            }
            let email = (field("email") ?? "").lowercased()
            guard let user = fixture.users.first(where: { $0.email.lowercased() == email }),
                  user.password == field("password")
            else {
                return .badCredentials(requestID: requestID, clientID: pending.clientID)
            }
            book.pendingLogins[requestID] = nil
            let code = FakeClover.randomHex(byteCount: 16)
            book.codes[code] = IssuedCode(
                clientID: pending.clientID, redirectURI: pending.redirectURI, email: user.email,
                expiresAt: now + fixture.codeLifetime, used: false
            )
            book.issued.append(code)
            return .issued(pending, code: code)
        }
        switch outcome {
        case .unknownRequest:
            return Self.page.errorResponse(400, "login request expired or unknown")
        case .badAction:
            return Self.page.errorResponse(400, "invalid_request: action must be login or deny")
        case .denied(let pending):
            let location = OAuthRedirect.location(
                pending.redirectURI, appending: [("error", "access_denied"), ("state", pending.state)]
            )
            return OAuthRedirect.response(to: location)
        case .badCredentials(let requestID, let clientID):
            return Self.page.loginResponse(
                401, requestID: requestID, intro: Self.intro(clientID), error: "Invalid email or password"
            )
        case .issued(let pending, let code):
            let location = OAuthRedirect.location(pending.redirectURI, appending: [("code", code), ("state", pending.state)])
            return OAuthRedirect.response(to: location)
        }
    }

    private static func intro(_ clientID: String) -> String {
        "The app \(clientID) asks to log you in with your Clever account."
    }
}
