import Foundation

/// A strict fake of Clever Instant Login for native iOS apps, as seed 004 describes it: the
/// browser login at `clever.com/oauth/authorize` returning to the app's custom redirect URL,
/// and the token call authenticated with the iOS client id and a blank secret.
///
/// ```swift
/// let clever = FakeClever(fixture: CleverFixture(
///     clients: [.init(id: "cle1", redirectURL: "clever-cle1://oauth")],
///     users: [.init(email: "teacher@example.com", password: "pw")]))
/// let world = FakeProviderServer(provider: clever, now: { clock.now })
/// try world.start()
/// ```
///
/// Wire contract (each decision the seed leaves open is marked DECISION):
///
/// 1. `GET /oauth/authorize?response_type&client_id&redirect_uri&state` answers 200 with an
///    HTML login page holding exactly one form (FakeClover's shape), or 400 with an HTML
///    error page; errors are never redirected. Checks, in order: a repeated parameter
///    (RFC 6749 §3.1), unknown `client_id`, `redirect_uri` other than the client's
///    registered redirect URL (compared exactly: seed 004 registers one custom URL per iOS
///    platform, so there is nothing to match a prefix against), `response_type` other than
///    `code` (DECISION: compared case-insensitively, because the seed's own authorize URL
///    writes `response_type=CODE`), `state` missing or empty (DECISION: seed 004 step 2 makes
///    the state the app's defence, so a login without one is refused rather than tolerated).
/// 2. `POST /oauth/login` (form: `request_id`, `email`, `password`, `action`): an unknown or
///    expired `request_id` is 400; `action=deny` redirects 302 to
///    `redirect_uri?error=access_denied&state=S`; a wrong email or password shows the login
///    page again with 401; success redirects 302 to `redirect_uri?code=X&state=S` (seed 004
///    step 4: "a code and the state parameter as provided"). Deny and success consume the
///    login request; a failed attempt does not.
/// 3. `POST /oauth/tokens` with `Authorization: Basic base64(client_id ":")` (see
///    ``BasicCredentials``) and `code`, `grant_type=authorization_code`, `redirect_uri` as a
///    form or JSON body answers `{"access_token", "token_type": "bearer"}` or an RFC 6749
///    §5.2 error object, with `Cache-Control: no-store`. Codes are random, single use, bound
///    to the client and redirect URI, and live `codeLifetime` seconds.
/// 4. Any other path is 404 and a wrong method on a known path is 405 with `Allow`.
///
/// Time is only ever the `now` passed to ``handle(_:now:)`` (the flow's virtual clock).
public final class FakeClever: FakeProvider {
    public let name = "clever"
    public let fixture: CleverFixture

    public static let authorizePath = "/oauth/authorize"
    public static let loginPath = "/oauth/login"
    public static let tokenPath = "/oauth/tokens"

    static let page = ProviderPage(
        brand: "Clever", heading: "Log in with Clever", formAction: loginPath, loginLabel: "Log in", denyLabel: "Deny"
    )

    /// A login page shown but not yet answered.
    struct PendingLogin {
        var clientID: String
        var redirectURI: String
        var state: String
        var createdAt: Date
    }

    /// An authorization code and everything it is bound to.
    struct IssuedCode {
        var clientID: String
        var redirectURI: String
        var email: String
        var expiresAt: Date
        var used: Bool
    }

    struct Book {
        var pendingLogins = RetainedTable<PendingLogin>()
        var codes = RetainedTable<IssuedCode>()
        /// Access token -> revoked.
        var tokens = RetainedTable<Bool>()
        /// Codes and access tokens in issue order; request ids are not secrets.
        var issued = RetainedList()
    }

    /// All mutable state, behind one lock: each request is handled in a single critical
    /// section so a code can never be spent twice by racing requests.
    let book = Locked(Book())

    public init(fixture: CleverFixture) {
        self.fixture = fixture
    }

    public var issuedSecrets: [String] {
        book.withLock { $0.issued.items }
    }

    /// Kills every access token issued so far (see ``isTokenValid(_:)``). Codes not yet
    /// exchanged stay usable, and tokens issued afterwards are valid.
    public func revokeAllTokens() {
        book.withLock { book in
            book.tokens.updateAll { $0 = true }
        }
    }

    /// Whether `token` was issued by this fake and not revoked. Clever's access tokens carry
    /// no expiry in the token response, so the fake gives them none.
    public func isTokenValid(_ token: String) -> Bool {
        book.withLock { $0.tokens[token] == false }
    }

    public func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        switch request.path {
        case Self.authorizePath:
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return authorize(request, now: now)
        case Self.loginPath:
            guard request.method == "POST" else { return Persona.methodNotAllowed(allow: "POST") }
            return login(request, now: now)
        case Self.tokenPath:
            guard request.method == "POST" else { return Persona.noStore(Persona.methodNotAllowed(allow: "POST")) }
            return exchangeCode(request, now: now)
        default:
            return Persona.notFound
        }
    }
}
