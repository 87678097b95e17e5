import Foundation

/// The web host: the authorize endpoint, the login page and its form post.
extension FakeClover {
    // MARK: - GET /oauth/v2/authorize

    func authorize(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let query = request.query
        if let name = request.repeatedQueryName {
            return Self.page(400, "invalid_request: parameter \(name) is repeated").refused(by: .authorizeRepeatedParameter)
        }
        func parameter(_ name: String) -> String? {
            query.first { $0.name == name }?.value
        }
        guard let clientID = parameter("client_id"), let app = fixture.apps.first(where: { $0.id == clientID }) else {
            return Self.page(400, "Unknown client_id").refused(by: .authorizeUnknownClient)
        }
        // RFC 6749 §4.1.2.1: with an untrusted redirect_uri the error must not be redirected.
        guard let redirectURI = parameter("redirect_uri"), Self.redirectURI(redirectURI, isUnder: app.siteURL) else {
            return Self.page(400, "redirect_uri is not under the app's site URL").refused(by: .authorizeRedirectMismatch)
        }
        guard parameter("response_type") == "code" else {
            return Self.page(400, "unsupported_response_type: response_type must be code").refused(by: .authorizeResponseType)
        }
        guard let challenge = parameter("code_challenge") else {
            return Self.page(400, "invalid_request: code_challenge is required").refused(by: .cloverAuthorizeChallengeMissing)
        }
        guard parameter("code_challenge_method") == "S256" else {
            return Self.page(400, "invalid_request: FlowCheck policy: code_challenge_method must be S256")
                .refused(by: .cloverAuthorizeChallengeMethod)
        }
        // RFC 7636 §4.2: BASE64URL of a 32-byte digest is exactly 43 characters.
        guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Self.isBase64URL) else {
            return Self.page(400, "invalid_request: invalid code_challenge (expected 43 base64url characters)")
                .refused(by: .cloverAuthorizeChallengeMalformed)
        }
        let requestID = Persona.randomHex(byteCount: 16)
        book.withLock { book in
            book.pendingLogins[requestID] = PendingLogin(
                clientID: app.id, redirectURI: redirectURI, challenge: challenge,
                state: parameter("state"), createdAt: now
            )
        }
        return HTMLPage.response(200, CloverPage.login(requestID: requestID, appID: app.id))
    }

    /// Whether `redirect` lies under `site`: same scheme and host (case-insensitive), same
    /// effective port (80/443 when omitted for http/https), and a path equal to the site's
    /// path or below it segment-wise.
    ///
    /// DECISIONS beyond the seed's "same base as the site URL": the site path is a segment
    /// prefix (`/app` covers `/app` and `/app/cb`, not `/application`); `.` or `..` segments,
    /// a fragment (RFC 6749 §3.1.2) and user info are refused, since each could make a URL
    /// that looks under the site resolve elsewhere; both must be absolute URLs.
    public static func redirectURI(_ redirect: String, isUnder site: String) -> Bool {
        guard let target = URLComponents(string: redirect), let base = URLComponents(string: site),
              let targetScheme = target.scheme?.lowercased(), let baseScheme = base.scheme?.lowercased(),
              targetScheme == baseScheme,
              (target.host ?? "").lowercased() == (base.host ?? "").lowercased(),
              effectivePort(target) == effectivePort(base),
              target.fragment == nil, target.user == nil, target.password == nil
        else { return false }
        let targetPath = target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath
        let basePath = base.percentEncodedPath.isEmpty ? "/" : base.percentEncodedPath
        let hasDotSegment = targetPath.split(separator: "/").contains { segment in
            let decoded = segment.removingPercentEncoding ?? String(segment)
            return decoded == "." || decoded == ".."
        }
        guard !hasDotSegment else { return false }
        if basePath.hasSuffix("/") { return targetPath.hasPrefix(basePath) }
        return targetPath == basePath || targetPath.hasPrefix(basePath + "/")
    }

    private static func effectivePort(_ components: URLComponents) -> Int? {
        if let port = components.port { return port }
        switch components.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    // MARK: - POST /oauth/v2/login

    /// What the login form post decided, computed under the lock and rendered outside it.
    private enum LoginOutcome {
        case refused(String, FlowCheckRule)
        case denied(PendingLogin)
        case badCredentials(requestID: String, appID: String)
        case employeeWithoutMerchant
        case notInstalled
        case issued(PendingLogin, merchantID: String, code: String)
    }

    func login(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let post: LoginFormPost
        switch LoginFormPost.parse(request) {
        case .invalid(let message, let rule): return Self.page(400, message).refused(by: rule)
        case .post(let parsed): post = parsed
        }
        let outcome: LoginOutcome = book.withLock { book in
            switch post.claim(&book.pendingLogins, createdAt: \.createdAt, lifetime: fixture.loginRequestLifetime, now: now) {
            case .refused(let message, let rule):
                return .refused(message, rule)
            case .denied(let pending):
                return .denied(pending)
            case .login(let requestID, let pending):
                guard let employee = post.account(in: fixture.employees, email: \.email, password: \.password) else {
                    return .badCredentials(requestID: requestID, appID: pending.clientID)
                }
                // CLV-FULL-7: an employee of no merchant, or a merchant without the app, is
                // refused and the request stays pending (another employee may sign in).
                guard let merchant = fixture.merchants.first(where: { $0.id == employee.merchantID }) else {
                    return .employeeWithoutMerchant
                }
                guard merchant.installedApps.contains(pending.clientID) else {
                    return .notInstalled
                }
                book.pendingLogins[requestID] = nil
                let code = MintedSecret.mint(byteCount: 16)
                book.codes[code] = IssuedCode(
                    clientID: pending.clientID, redirectURI: pending.redirectURI, challenge: pending.challenge,
                    merchantID: merchant.id, expiresAt: now + fixture.codeLifetime, used: false
                )
                book.issued.append(code)
                return .issued(pending, merchantID: merchant.id, code: code)
            }
        }
        switch outcome {
        case .refused(let message, let rule):
            return Self.page(400, message).refused(by: rule)
        case .denied(let pending):
            return Self.redirect(pending.redirectURI, [("error", "access_denied")], state: pending.state)
        case .badCredentials(let requestID, let appID):
            let html = CloverPage.login(requestID: requestID, appID: appID, error: "Invalid email or password")
            return Persona.formLoginRefused(HTMLPage.response(401, html), realm: "clover")
        case .employeeWithoutMerchant:
            return Self.page(403, "the employee is not on any merchant").refused(by: .cloverLoginNoMerchant)
        case .notInstalled:
            return Self.page(403, "the app is not installed on this merchant").refused(by: .cloverLoginNotInstalled)
        case .issued(let pending, let merchantID, let code):
            return Self.redirect(
                pending.redirectURI,
                [("merchant_id", merchantID), ("client_id", pending.clientID), ("code", code)],
                state: pending.state
            )
        }
    }

    // MARK: - Helpers

    private static func page(_ status: Int, _ message: String) -> HTTPResponse {
        HTMLPage.response(status, CloverPage.error(message))
    }

    /// 302 to `base` with `parameters` (and `state` last, when the authorize request had one)
    /// appended to its query, every value percent-encoded.
    private static func redirect(_ base: String, _ parameters: [(String, String)], state: String?) -> HTTPResponse {
        var all = parameters
        if let state { all.append(("state", state)) }
        return OAuthRedirect.response(to: OAuthRedirect.location(base, appending: all))
    }
}
