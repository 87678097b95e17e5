import Foundation

/// The browser side: the authorize endpoint, the login page and its form post.
extension FakeClever {
    // MARK: - GET /oauth/authorize

    func authorize(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let query = request.query
        if let name = request.repeatedQueryName {
            return Self.page.errorResponse(400, "invalid_request: parameter \(name) is repeated").refused(by: .authorizeRepeatedParameter)
        }
        func parameter(_ name: String) -> String? {
            query.first { $0.name == name }?.value
        }
        guard let clientID = parameter("client_id"), let client = fixture.clients.first(where: { $0.id == clientID }) else {
            return Self.page.errorResponse(400, "Unknown client_id").refused(by: .authorizeUnknownClient)
        }
        // RFC 6749 §4.1.2.1: with an untrusted redirect_uri the error must not be redirected.
        guard let redirectURI = parameter("redirect_uri"), redirectURI == client.redirectURL else {
            return Self.page.errorResponse(400, "redirect_uri does not match the registered redirect URL").refused(by: .authorizeRedirectMismatch)
        }
        guard parameter("response_type")?.lowercased() == "code" else {
            return Self.page.errorResponse(400, "unsupported_response_type: response_type must be code").refused(by: .authorizeResponseType)
        }
        guard let state = parameter("state"), !state.isEmpty else {
            return Self.page.errorResponse(400, "invalid_request: FlowCheck policy: state is required").refused(by: .cleverAuthorizeStateRequired)
        }
        let requestID = Persona.randomHex(byteCount: 16)
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
        case refused(String, FlowCheckRule)
        case denied(PendingLogin)
        case badCredentials(requestID: String, clientID: String)
        case issued(PendingLogin, code: String)
    }

    func login(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let post: LoginFormPost
        switch LoginFormPost.parse(request) {
        case .invalid(let message, let rule): return Self.page.errorResponse(400, message).refused(by: rule)
        case .post(let parsed): post = parsed
        }
        let outcome: LoginOutcome = book.withLock { book in
            switch post.claim(&book.pendingLogins, createdAt: \.createdAt, lifetime: fixture.loginRequestLifetime, now: now) {
            case .refused(let message, let rule):
                return .refused(message, rule)
            case .denied(let pending):
                return .denied(pending)
            case .login(let requestID, let pending):
                guard let user = post.account(in: fixture.users, email: \.email, password: \.password) else {
                    return .badCredentials(requestID: requestID, clientID: pending.clientID)
                }
                book.pendingLogins[requestID] = nil
                let code = MintedSecret.mint(byteCount: 16)
                book.codes[code] = IssuedCode(
                    clientID: pending.clientID, redirectURI: pending.redirectURI, email: user.email,
                    expiresAt: now + fixture.codeLifetime, used: false
                )
                book.issued.append(code)
                return .issued(pending, code: code)
            }
        }
        switch outcome {
        case .refused(let message, let rule):
            return Self.page.errorResponse(400, message).refused(by: rule)
        case .denied(let pending):
            let location = OAuthRedirect.location(
                pending.redirectURI, appending: [("error", "access_denied"), ("state", pending.state)]
            )
            return OAuthRedirect.response(to: location)
        case .badCredentials(let requestID, let clientID):
            return Persona.formLoginRefused(Self.page.loginResponse(
                401, requestID: requestID, intro: Self.intro(clientID), error: "Invalid email or password"
            ), realm: "clever")
        case .issued(let pending, let code):
            let location = OAuthRedirect.location(pending.redirectURI, appending: [("code", code), ("state", pending.state)])
            return OAuthRedirect.response(to: location)
        }
    }

    private static func intro(_ clientID: String) -> String {
        "The app \(clientID) asks to log you in with your Clever account."
    }
}
