import Foundation

/// Clever Instant Login for a native app, built from scratch as seed 004 outlines it ("If you'd
/// prefer to build your integration from scratch, we've outlined the necessary steps below").
///
/// A public client: no client secret exists on the device. The login is protected by a fresh
/// random `state` per login, kept in memory until its redirect returns and accepted once (seed
/// 004 steps 2 and 4), and the code is exchanged with HTTP Basic client authentication whose
/// secret is blank (step 4). The token is stored in the injected `TokenStore` (Keychain on iOS).
///
/// Every dependency is injected: the transport, the browser (Safari or `SFSafariViewController`
/// in seed 004 step 3), the store and the random source, so the harness can run it against a
/// fake Clever with pinned states.
///
/// ```swift
/// let login = CleverInstantLogin(configuration: try CleverConfiguration(clientID: "abc123",
///                                redirectURI: "clever-abc123://oauth"),
///                                transport: URLSessionTransport(), userAgent: browser,
///                                store: KeychainTokenStore(service: "app"))
/// try await login.startLogin()                       // Clever's page opens
/// // SceneDelegate, on the custom URL: let token = try await login.handleRedirect(url)
/// ```
public actor CleverInstantLogin {
    /// The `TokenStore` key under which the token is kept.
    public static let storeKey = "clever.token"

    let configuration: CleverConfiguration
    let transport: any HTTPTransport
    let userAgent: any ExternalUserAgent
    let persistence: CleverTokenPersistence
    let random: any RandomSource

    /// The login waiting for its redirect; in memory only.
    var pendingLogin: CleverPendingLogin?

    /// Creates a login client.
    /// - Parameters:
    ///   - configuration: The iOS platform's client ID and custom redirect URL, and Clever's base.
    ///   - transport: The network seam.
    ///   - userAgent: The browser that shows Clever's login page.
    ///   - store: Where the token is kept (Keychain on iOS, a file store on Linux).
    ///   - random: The source of `state` values; the system CSPRNG unless a test pins it.
    public init(
        configuration: CleverConfiguration,
        transport: any HTTPTransport,
        userAgent: any ExternalUserAgent,
        store: any TokenStore,
        random: any RandomSource = SystemRandomSource()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.userAgent = userAgent
        self.persistence = CleverTokenPersistence(store: store, key: Self.storeKey)
        self.random = random
    }

    /// Steps 2 and 3 of seed 004: a fresh random state per login (`OAuthState`, 256 bits; step 2:
    /// "create and store a random state parameter for each login"), remembered before the
    /// browser opens (the redirect may arrive while `open` is still suspended), then the
    /// authorization URL opened with the user agent, never fetched here.
    ///
    /// A login already in progress is replaced: only the latest login's redirect is accepted.
    /// - Returns: The authorization URL that was opened:
    ///   `{base}/oauth/authorize?response_type=code&client_id=..&redirect_uri=..&state=..`
    ///   (lower-case `code`; see `CleverWire.authorizeURL` for why not the seed's `CODE`).
    /// - Throws: `OAuthError` `.configuration` when the configuration no longer passes its own
    ///   checks; `.authorization` when the browser cannot open the page (the login is then
    ///   forgotten); or whatever `OAuthError` the user agent threw; `CancellationError`.
    @discardableResult
    public func startLogin() async throws -> URL {
        let redirectURL = try configuration.validatedRedirectURL()
        let state = OAuthState.generate(random: random)
        let url = try CleverWire.authorizeURL(
            baseURL: configuration.baseURL,
            clientID: configuration.clientID,
            redirectURI: configuration.redirectURI,
            state: state
        )
        pendingLogin = CleverPendingLogin(
            state: state,
            redirectURL: redirectURL,
            redirectURI: configuration.redirectURI,
            clientID: configuration.clientID,
            baseURL: configuration.baseURL
        )
        do {
            try await userAgent.open(url)
        } catch {
            // Only this login's state is forgotten: a newer login may have replaced it meanwhile.
            if pendingLogin?.state == state {
                pendingLogin = nil
            }
            if error is CancellationError || error is OAuthError {
                throw error
            }
            // The user agent's own error text may quote the URL; it is not repeated.
            throw OAuthError.authorization("the browser could not open the Clever login page (\(type(of: error)))")
        }
        return url
    }

    /// The token in the store, or nil (its `description` is redacted).
    /// - Throws: `OAuthError` `.storage` when the store fails or holds unreadable data.
    public func storedToken() throws -> CleverToken? {
        try persistence.load()
    }
}
