import Foundation

/// A strict fake of Clover's OAuth v2 low-trust (PKCE) flow and merchant API, as the Clover Go
/// SDK seeds (000, 001) describe it. One server plays both the web host (authorize, login
/// page) and the API host (token, refresh, merchants): the SDK is given the same base URL for
/// both.
///
/// ```swift
/// let clover = FakeClover(fixture: CloverFixture(
///     apps: [.init(id: "APP", secret: "s", siteURL: "https://app.example.com/clover")],
///     merchants: [.init(id: "M1", name: "Cafe", installedApps: ["APP"])],
///     employees: [.init(email: "e@example.com", password: "pw", merchantID: "M1")]))
/// let world = FakeProviderServer(provider: clover, now: { clock.now })
/// try world.start()
/// ```
///
/// Wire contract (each decision the seeds leave open is marked DECISION):
///
/// 1. `GET /oauth/v2/authorize?client_id&redirect_uri&response_type&code_challenge&
///    code_challenge_method[&state]` answers 200 with an HTML login page holding exactly one
///    form, or 400 with an HTML error page. Authorize errors are never redirected, not even
///    the ones RFC 6749 §4.1.2.1 would allow redirecting once `redirect_uri` is trusted.
///    DECISION: an SDK must cope with a login page that never comes back; a redirect carrying
///    an error is only produced by the employee's "Deny". Checks, in order: a repeated
///    parameter (RFC 6749 §3.1), unknown `client_id`, `redirect_uri` missing or not under the
///    app's site URL (see ``redirectURI(_:isUnder:)``), `response_type` other than `code`,
///    `code_challenge` missing, `code_challenge_method` other than `S256` (`plain` and a
///    missing method included: RFC 7636 §4.3 defaults to plain, which a low-trust client must
///    not use), a challenge that is not 43 base64url characters (RFC 7636 §4.2). Unknown
///    parameters are ignored (RFC 6749 §3.1). A `state` that is present, even empty, is
///    echoed exactly.
/// 2. `POST /oauth/v2/login` (form: `request_id`, `email`, `password`, `action`): an unknown
///    or expired `request_id` is 400; `action=deny` redirects 302 with
///    `error=access_denied`; a wrong email or password shows the login page again with 401;
///    an employee whose merchant is unknown or lacks the app is 403; success redirects 302 to
///    `redirect_uri?merchant_id&client_id&code[&state]`. Deny and success consume the login
///    request; 401 and 403 do not, so the employee may try again (or try another account)
///    until the request expires.
/// 3. `POST /oauth/v2/token`, JSON `{client_id, code, code_verifier}`, and
/// 4. `POST /oauth/v2/refresh`, JSON `{client_id, refresh_token}`, answer
///    `{access_token, access_token_expiration, refresh_token, refresh_token_expiration}`
///    (whole Unix seconds) or an RFC 6749 §5.2 error object. Both carry
///    `Cache-Control: no-store` and `Pragma: no-cache` (RFC 6749 §5.1). Codes are single use
///    (a failed PKCE check spends the code too); DECISION: tokens already bought by a
///    replayed code stay valid. Refresh tokens rotate; DECISION: the access token issued with
///    a spent refresh token lives until its own expiry. A `client_secret` field is refused.
/// 5. `GET /v3/merchants/{mId}` with `Authorization: Bearer <token>` answers
///    `{"id","name"}`, or 401 `{"message":"401 Unauthorized"}` with a `WWW-Authenticate`
///    challenge (RFC 6750 §3).
/// 6. Any other path is 404 and a wrong method on a known path is 405 with `Allow`, both as
///    JSON `{"message": ...}` in the merchant API's shape.
///
/// Two origins, as Clover's real hosts: 1 and 2 are served only on the web origin, 3 to 5
/// (and unknown paths) only on the API origin; each answers the other's paths 404
/// (``origin(serving:)``).
///
/// Time is only ever the `now` passed to ``handle(_:now:)`` (the flow's virtual clock).
/// Codes and login requests live for `[issued, issued + lifetime)`; tokens are judged against
/// the whole-second expiration the client was told, and are dead once `now >= expiration`.
public final class FakeClover: FakeProvider {
    public let name = "clover"
    public let fixture: CloverFixture

    public static let authorizePath = "/oauth/v2/authorize"
    public static let loginPath = "/oauth/v2/login"
    public static let tokenPath = "/oauth/v2/token"
    public static let refreshPath = "/oauth/v2/refresh"
    /// The merchant resource is `merchantsPrefix + mId`.
    public static let merchantsPrefix = "/v3/merchants/"

    /// A login page shown but not yet answered.
    struct PendingLogin {
        var clientID: String
        var redirectURI: String
        var challenge: String
        /// nil when the authorize request carried no `state`.
        var state: String?
        var createdAt: Date
    }

    /// An authorization code and everything it is bound to.
    struct IssuedCode {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var merchantID: String
        var expiresAt: Date
        var used: Bool
    }

    /// An access or refresh token. `expiration` is the Unix-seconds value the client was told.
    struct IssuedToken {
        var clientID: String
        var merchantID: String
        var expiration: Int
        /// Set when a refresh token is exchanged (rotation); never set on access tokens.
        var used: Bool
        /// Set by ``FakeClover/revokeAllTokens()``.
        var revoked: Bool
    }

    struct Book {
        var pendingLogins = RetainedTable<PendingLogin>()
        var codes = RetainedTable<IssuedCode>()
        var accessTokens = RetainedTable<IssuedToken>()
        var refreshTokens = RetainedTable<IssuedToken>()
        /// Codes, access and refresh tokens in issue order; request ids are not secrets.
        var issued = RetainedList()
    }

    /// All mutable state, behind one lock: each request is handled in a single critical
    /// section so a code or refresh token can never be spent twice by racing requests.
    let book = Locked(Book())

    public init(fixture: CloverFixture) {
        self.fixture = fixture
    }

    public var issuedSecrets: [String] {
        book.withLock { $0.issued.items }
    }

    public func accessTokenExpiry(_ token: String) -> Date? {
        book.withLock { $0.accessTokens[token].map { Date(timeIntervalSince1970: TimeInterval($0.expiration)) } }
    }

    /// Kills every access and refresh token issued so far, so a flow can exercise "refresh
    /// token revoked" recovery. Codes not yet exchanged stay usable, and tokens issued
    /// afterwards work normally.
    public func revokeAllTokens() {
        book.withLock { book in
            book.accessTokens.updateAll { $0.revoked = true }
            book.refreshTokens.updateAll { $0.revoked = true }
        }
    }

    /// The API host (token endpoints, `/v3/merchants`) first, as the primary origin, and the
    /// web host (the login pages), as Clover's real environments split them (seed 000).
    public static let origins = [apiOrigin, webOrigin]
    public static let apiOrigin = "api"
    public static let webOrigin = "web"

    /// The login pages (`/oauth/v2/authorize` and the login form's post) are the web host's;
    /// everything else, unknown paths included, the API host's.
    public func origin(serving path: String) -> String {
        path == Self.authorizePath || path == Self.loginPath ? Self.webOrigin : Self.apiOrigin
    }

    public func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let path = request.path
        switch path {
        case Self.authorizePath:
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return authorize(request, now: now)
        case Self.loginPath:
            guard request.method == "POST" else { return Persona.methodNotAllowed(allow: "POST") }
            return login(request, now: now)
        case Self.tokenPath:
            guard request.method == "POST" else { return Persona.noStore(Persona.methodNotAllowed(allow: "POST")) }
            return exchangeCode(request, now: now)
        case Self.refreshPath:
            guard request.method == "POST" else { return Persona.noStore(Persona.methodNotAllowed(allow: "POST")) }
            return refresh(request, now: now)
        default:
            guard let merchantID = Self.merchantID(inPath: path) else {
                return Persona.notFound
            }
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return merchant(merchantID, request, now: now)
        }
    }

    // MARK: - Shared helpers

    /// The `mId` of `/v3/merchants/{mId}`: exactly one non-empty segment, nothing after it.
    static func merchantID(inPath path: String) -> String? {
        guard path.hasPrefix(merchantsPrefix) else { return nil }
        let rest = path.dropFirst(merchantsPrefix.count)
        guard !rest.isEmpty, !rest.contains("/") else { return nil }
        return String(rest)
    }



}
