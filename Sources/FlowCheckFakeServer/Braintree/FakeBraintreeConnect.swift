import Foundation

/// A strict fake of Braintree's client-side connect flow (seed 002) together with the
/// merchant's own backend, on one server: the device talks to the backend and, in the
/// browser, to Braintree; the backend talks to Braintree in-process, out of the device's
/// sight, exactly where a real backend would hold the client secret.
///
/// ```swift
/// let braintree = FakeBraintreeConnect(fixture: BraintreeFixture(
///     clientID: "client_id$sandbox$abc", clientSecret: "client_secret$sandbox$xyz",
///     merchants: [.init(id: "M1", email: "owner@example.com", password: "pw")],
///     returnURL: "examplescheme://braintree"))
/// let world = FakeProviderServer(provider: braintree, now: { clock.now })
/// try world.start()
/// // ... the app connects ...
/// #expect(braintree.backendTokens["M1"] != nil)
/// ```
///
/// Wire contract. Absolute URLs are built from the request's `Host` header as `http://HOST`,
/// so they name this server however the client reached it; `CALLBACK` below is
/// `http://HOST/backend/braintree/callback` and `RETURN` the fixture's `returnURL`.
///
/// 1. Backend `GET /backend/connect-url` answers `{"connectURL": "http://HOST/braintree/
///    oauth/connect?client_id=CID&redirect_uri=CALLBACK&scope=read_write&state=S"}` with a
///    fresh random state the backend remembers (seed 002: "a connect URL retrieved from your
///    server"). While the fixture's `backendConnectURLs` last, it answers `{"connectURL": U}`
///    with the next of them verbatim instead, remembering no state.
/// 2. Braintree `GET /braintree/oauth/connect`: an unknown `client_id` or a `redirect_uri`
///    other than `CALLBACK` is a 400 page (never a redirect); otherwise a 200 consent page
///    with FakeClover's form shape posting to `/braintree/oauth/login`.
/// 3. Braintree `POST /braintree/oauth/login`: `deny` redirects 302 to
///    `CALLBACK?error=access_denied&state=S`, wrong credentials show the page again with
///    401, `login` (approve) redirects 302 to `CALLBACK?code=X&merchantId=M&state=S`.
/// 4. Backend `GET /backend/braintree/callback`: a missing, unknown or already used `state`
///    is a 400 page "unknown state"; otherwise the state is spent and the merchant is sent
///    back to the app with 302 `RETURN/connected?merchant_id=M` after the backend exchanged
///    the code server-side (seed 002: "After the merchant has authorized and your server has
///    created an access token, your server redirects the merchant to a URL that is captured
///    by a custom URL scheme in your app"), or `RETURN/failed?error=E` on `error` or a
///    failed exchange. That Location never carries the code, the token or the secret.
/// 5. Braintree `POST /braintree/oauth/access_tokens`, what a backend calls, with
///    `Authorization: Basic base64(CID ":" SECRET)` (``BasicCredentials``) and `code`,
///    `grant_type=authorization_code` as a form or JSON: `{"access_token", "refresh_token",
///    "merchant_id"}` or an RFC 6749 §5.2 error. A device, which has no secret, gets 401.
/// 6. Any request to `/backend/...` that carries the client secret is refused with 400
///    `{"error": "the client secret belongs on the server"}` (see
///    ``carriesClientSecret(_:)``). Other paths are 404; a wrong method is 405 with `Allow`.
///
/// Time is only ever the `now` passed to ``handle(_:now:)`` (the flow's virtual clock).
public final class FakeBraintreeConnect: FakeProvider {
    public let name = "braintree"
    public let fixture: BraintreeFixture

    public static let connectURLPath = "/backend/connect-url"
    public static let callbackPath = "/backend/braintree/callback"
    public static let connectPath = "/braintree/oauth/connect"
    public static let loginPath = "/braintree/oauth/login"
    public static let accessTokensPath = "/braintree/oauth/access_tokens"
    /// The scope the backend asks for (seed 002 leaves it to the Overview; read_write is what
    /// a payments app connecting a merchant needs).
    public static let scope = "read_write"

    static let page = ProviderPage(
        brand: "Braintree", heading: "Connect with Braintree", formAction: loginPath,
        loginLabel: "Approve", denyLabel: "Decline"
    )

    /// A consent page shown but not yet answered.
    struct PendingConnect {
        var redirectURI: String
        /// nil when the connect request carried no `state`.
        var state: String?
        var createdAt: Date
    }

    /// An authorization code and everything it is bound to.
    struct IssuedCode {
        var merchantID: String
        var redirectURI: String
        var expiresAt: Date
        var used: Bool
    }

    struct Book {
        /// States the backend handed out and has not yet seen come back.
        var backendStates = RetainedTable<Bool>()
        /// How many of the fixture's `backendConnectURLs` were handed out.
        var connectURLsHandedOut = 0
        var pendingConnects = RetainedTable<PendingConnect>()
        var codes = RetainedTable<IssuedCode>()
        /// Access and refresh token -> revoked.
        var tokens = RetainedTable<Bool>()
        /// Merchant id -> the access token the backend holds.
        var backendTokens: [String: String] = [:]
        /// Codes, access and refresh tokens in issue order; states and request ids are not
        /// secrets (they travel in URLs by design).
        var issued = RetainedList()
    }

    /// All mutable state, behind one lock; a state or code is spent inside one critical
    /// section so racing requests cannot use it twice.
    let book = Locked(Book())

    public init(fixture: BraintreeFixture) {
        self.fixture = fixture
    }

    public var issuedSecrets: [String] {
        book.withLock { $0.issued.items }
    }

    /// Merchant id -> the access token the backend obtained for that merchant, the latest
    /// one when a merchant connected twice. The device never receives these.
    public var backendTokens: [String: String] {
        book.withLock { $0.backendTokens }
    }

    /// Kills every access and refresh token issued so far (see ``isTokenValid(_:)``); the
    /// backend keeps holding them, now useless. Codes not yet exchanged stay usable.
    public func revokeAllTokens() {
        book.withLock { book in
            book.tokens.updateAll { $0 = true }
        }
    }

    /// Whether `token` is an access or refresh token this fake issued and has not revoked.
    public func isTokenValid(_ token: String) -> Bool {
        book.withLock { $0.tokens[token] == false }
    }

    public func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        let path = request.path
        if path.hasPrefix("/backend/"), carriesClientSecret(request) {
            return HTTPResponse.json(400, ["error": "FlowCheck policy: the client secret belongs on the server"])
                .refused(by: .braintreeBackendClientSecret)
        }
        switch path {
        case Self.connectURLPath:
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return connectURL(request)
        case Self.callbackPath:
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return callback(request, now: now)
        case Self.connectPath:
            guard request.method == "GET" else { return Persona.methodNotAllowed(allow: "GET") }
            return connect(request, now: now)
        case Self.loginPath:
            guard request.method == "POST" else { return Persona.methodNotAllowed(allow: "POST") }
            return login(request, now: now)
        case Self.accessTokensPath:
            guard request.method == "POST" else { return Persona.noStore(Persona.methodNotAllowed(allow: "POST")) }
            return accessTokens(request, now: now)
        default:
            return Persona.notFound
        }
    }

    /// `http://HOST` from the request's `Host` header, or nil when it is missing or holds
    /// anything but a host name, an IPv4 or bracketed IPv6 address and an optional port (so
    /// a hostile Host cannot smuggle a path or query into the URLs built from it).
    static func origin(of request: HTTPRequest) -> String? {
        guard let host = request.headers["Host"], !host.isEmpty,
              host.utf8.allSatisfy({ hostBytes.contains($0) })
        else { return nil }
        return "http://" + host
    }

    private static let hostBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-:[]".utf8)
}
