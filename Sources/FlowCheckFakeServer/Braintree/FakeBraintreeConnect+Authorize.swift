import Foundation

/// Braintree's browser side: the connect (consent) page and its form post.
extension FakeBraintreeConnect {
    // MARK: - GET /braintree/oauth/connect

    /// The consent page, or a 400 page; errors are never redirected (RFC 6749 §4.1.2.1).
    ///
    /// The only redirect URI registered for the client is the backend's callback on this
    /// server, as reached by this very request (`http://HOST/backend/braintree/callback`).
    /// DECISION: `scope` is not checked and `state` is optional (echoed exactly when
    /// present): the backend always sends both, and a missing state is caught where it
    /// matters, at the callback.
    func connect(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        if let name = request.repeatedQueryName {
            return Self.page.errorResponse(400, "invalid_request: parameter \(name) is repeated").refused(by: .authorizeRepeatedParameter)
        }
        guard request.queryItem("client_id") == fixture.clientID else {
            return Self.page.errorResponse(400, "Unknown client_id").refused(by: .authorizeUnknownClient)
        }
        guard let origin = Self.origin(of: request),
              let redirectURI = request.queryItem("redirect_uri"), redirectURI == origin + Self.callbackPath
        else {
            return Self.page.errorResponse(400, "redirect_uri does not match the registered redirect URL").refused(by: .authorizeRedirectMismatch)
        }
        let requestID = Persona.randomHex(byteCount: 16)
        book.withLock { book in
            book.pendingConnects[requestID] = PendingConnect(
                redirectURI: redirectURI, state: request.queryItem("state"), createdAt: now
            )
        }
        return Self.page.loginResponse(200, requestID: requestID, intro: Self.intro)
    }

    // MARK: - POST /braintree/oauth/login

    /// What the form post decided, computed under the lock and rendered outside it.
    private enum LoginOutcome {
        case refused(String, FlowCheckRule)
        case denied(PendingConnect)
        case badCredentials(requestID: String)
        case issued(PendingConnect, merchantID: String, code: String)
    }

    /// As FakeClover's login: an unknown or expired request is 400, `deny` (Decline) and a
    /// successful `login` (Approve) consume the request, wrong credentials show the form
    /// again with 401 and do not.
    func login(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let post: LoginFormPost
        switch LoginFormPost.parse(request) {
        case .invalid(let message, let rule): return Self.page.errorResponse(400, message).refused(by: rule)
        case .post(let parsed): post = parsed
        }
        let outcome: LoginOutcome = book.withLock { book in
            switch post.claim(&book.pendingConnects, createdAt: \.createdAt, lifetime: fixture.loginRequestLifetime, now: now) {
            case .refused(let message, let rule):
                return .refused(message, rule)
            case .denied(let pending):
                return .denied(pending)
            case .login(let requestID, let pending):
                guard let merchant = post.account(in: fixture.merchants, email: \.email, password: \.password) else {
                    return .badCredentials(requestID: requestID)
                }
                book.pendingConnects[requestID] = nil
                let code = MintedSecret.mint(byteCount: 16)
                book.codes[code] = IssuedCode(
                    merchantID: merchant.id, redirectURI: pending.redirectURI,
                    expiresAt: now + fixture.codeLifetime, used: false
                )
                book.issued.append(code)
                return .issued(pending, merchantID: merchant.id, code: code)
            }
        }
        switch outcome {
        case .refused(let message, let rule):
            return Self.page.errorResponse(400, message).refused(by: rule)
        case .denied(let pending):
            return Self.redirect(pending, [("error", "access_denied")])
        case .badCredentials(let requestID):
            return Persona.formLoginRefused(
                Self.page.loginResponse(401, requestID: requestID, intro: Self.intro, error: "Invalid email or password"), realm: "braintree"
            )
        case .issued(let pending, let merchantID, let code):
            return Self.redirect(pending, [("code", code), ("merchantId", merchantID)])
        }
    }

    /// 302 to the pending request's redirect URI with `parameters`, then `state` when the
    /// connect request had one.
    private static func redirect(_ pending: PendingConnect, _ parameters: [(String, String)]) -> HTTPResponse {
        var all = parameters
        if let state = pending.state { all.append(("state", state)) }
        return OAuthRedirect.response(to: OAuthRedirect.location(pending.redirectURI, appending: all))
    }

    private static let intro = "Your platform asks to connect to your Braintree account (scope \(scope))."
}
