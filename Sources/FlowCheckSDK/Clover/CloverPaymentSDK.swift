import Foundation

/// The Clover Go SDK core: Full, Partial and No OAuth over Clover's low-trust PKCE flow, with the
/// session persisted in a `TokenStore` and kept fresh (seed 000 "Main SDK Class", seed 001
/// "OAuth flow").
///
/// Unlike the seed's `CloverPaymentSDK.shared`, every dependency is injected: the store (Keychain
/// on iOS), the transport, the browser, the clock and the random source, so the harness can run
/// it against a fake Clover with a manual clock. A relaunch is a new instance over the same store:
/// the session survives, a login in progress does not.
///
/// Token-change callbacks fire exactly once per change of the stored session (new, refreshed,
/// deleted, invalidated; seed 000 `addOnTokenChangeCallback`), synchronously, after the SDK's
/// state is consistent and before the call that caused the change returns. They run on the
/// actor, so they must not block; to call back into the SDK, start a `Task`.
///
/// ```swift
/// let sdk = CloverPaymentSDK(store: KeychainTokenStore(service: "app"), transport: URLSessionTransport(),
///                            userAgent: browser, clock: SystemTimeSource())
/// _ = await sdk.addOnTokenChangeCallback { Task { try await sdk.setup(configuration: configuration) } }
/// if case .loginStarted = try await sdk.setup(configuration: configuration) { /* wait for the redirect */ }
/// // SceneDelegate: try await sdk.receivedOAuthCodeOrToken(url)
/// ```
public actor CloverPaymentSDK {
    /// The `TokenStore` key under which the session is kept.
    public static let storeKey = "clover.session"

    let persistence: CloverSessionPersistence
    let transport: any HTTPTransport
    let userAgent: any ExternalUserAgent
    let clock: any TimeSource
    let random: any RandomSource
    let refreshMargin: TimeInterval

    /// The configuration of the latest `setup`; later calls (`merchant`, `updateToken`) act in its
    /// flow type.
    var configuration: CloverConfiguration?

    /// The Full OAuth login waiting for its redirect; in memory only.
    var pendingLogin: CloverPendingLogin?

    /// The refresh in flight, shared by every caller that needs a fresh token meanwhile
    /// (model: AppAuth's pending actions in `OIDAuthState.m`).
    var refreshTask: Task<CloverStoredSession, any Error>?

    /// Bumped by every change of the stored session, so a refresh that started before a logout
    /// or a new login does not write over it when it finishes.
    var generation = 0

    /// Registered token-change callbacks, in registration order.
    var callbacks: [(identifier: String, callback: @Sendable () -> Void)] = []

    /// Source of callback identifiers: unique per instance, deterministic for tests.
    var callbackCount = 0

    /// Test hook: called when a caller joins a refresh already in flight.
    var refreshJoinObserver: (@Sendable () -> Void)?

    /// Creates an SDK instance.
    /// - Parameters:
    ///   - store: Where the session is persisted (Keychain on iOS, a file store on Linux).
    ///   - transport: The network seam.
    ///   - userAgent: The browser that shows Clover's login page (Full OAuth).
    ///   - clock: The time source for every expiry decision.
    ///   - random: The source of PKCE verifiers and `state` values; the system CSPRNG by default.
    ///   - refreshMargin: Seconds before the access token's expiry from which it is refreshed
    ///     before use, so it cannot expire on its way to the server; negative or non-finite values
    ///     count as 0.
    public init(
        store: any TokenStore,
        transport: any HTTPTransport,
        userAgent: any ExternalUserAgent,
        clock: any TimeSource,
        random: any RandomSource = SystemRandomSource(),
        refreshMargin: TimeInterval = 60
    ) {
        self.persistence = CloverSessionPersistence(store: store, key: Self.storeKey)
        self.transport = transport
        self.userAgent = userAgent
        self.clock = clock
        self.random = random
        self.refreshMargin = refreshMargin.isFinite && refreshMargin > 0 ? refreshMargin : 0
    }

    /// True when the store holds a session that can still yield a usable token: a refresh token
    /// not known to have expired (Full, Partial), or a No OAuth token (seed 000: "True if we have
    /// valid OAuth credentials, signifying the User is logged in").
    ///
    /// Local knowledge only, no request: a revoked refresh token still counts until the server
    /// refuses it. A store that cannot be read counts as logged out.
    public var isLoggedIn: Bool {
        guard let session = try? persistence.load() else { return false }
        return !session.isDead(at: clock.now)
    }

    /// Deletes the stored session and forgets any login in progress (seed 000: "Deletes the OAuth
    /// credentials and triggers an onTokenChangeCallback").
    ///
    /// Callbacks fire once if a session was deleted; logging out with nothing stored changes no
    /// token and fires nothing. A refresh still in flight is not stored when it finishes. The next
    /// Full OAuth `setup` opens the browser. Local only: Clover's OAuth v2 has no revocation
    /// endpoint in this contract, and an open browser is left as it is (this call cannot wait).
    /// - Throws: `OAuthError` `.storage` when the store fails; the login in progress is forgotten
    ///   even then.
    public func logout() throws {
        pendingLogin = nil
        let existed = try persistence.exists()
        try persistence.clear()
        generation += 1
        if existed {
            notifyTokenChange()
        }
    }

    /// Registers a callback for every change of the stored session: new, refreshed, deleted or
    /// invalidated (seed 000 `addOnTokenChangeCallback`).
    /// - Parameter callback: Runs synchronously on the SDK's actor, before the call that changed
    ///   the token returns; must not block.
    /// - Returns: An identifier for `removeOnTokenChangeCallback`, unique within this instance.
    public func addOnTokenChangeCallback(_ callback: @escaping @Sendable () -> Void) -> String {
        callbackCount += 1
        let identifier = "token-change-callback-\(callbackCount)"
        callbacks.append((identifier, callback))
        return identifier
    }

    /// Removes a callback added with `addOnTokenChangeCallback`; it never fires again.
    /// - Parameter identifier: The identifier `addOnTokenChangeCallback` returned.
    /// - Returns: True when a callback had that identifier and was removed; false otherwise
    ///   (unknown, or already removed).
    public func removeOnTokenChangeCallback(identifier: String) -> Bool {
        guard let index = callbacks.firstIndex(where: { $0.identifier == identifier }) else {
            return false
        }
        callbacks.remove(at: index)
        return true
    }

    /// A fresh PKCE verifier and its `S256` challenge, for apps that run their own login (seed
    /// 000, "Partial OAuth Flow": "the CloverPaymentSDK.OAuthCodeChallenge object may be utilized
    /// to facilitate the PKCE flow"). Send `challenge` to the authorize page, then pass `verifier`
    /// back in `OAuthCodeResponse.codeVerifier`. Make a new one for every login.
    /// - Parameter random: The byte source; the system CSPRNG unless a test pins it.
    /// - Returns: The verifier and challenge.
    public static func makeCodeChallenge(random: any RandomSource = SystemRandomSource()) -> PKCE {
        PKCE(random: random)
    }

    /// The session currently in the store, or nil (for the harness and diagnostics; its
    /// `description` is redacted).
    /// - Throws: `OAuthError` `.storage` when the store fails or holds unreadable data.
    public func storedSession() throws -> CloverStoredSession? {
        try persistence.load()
    }

    /// Runs every registered callback once, in registration order.
    func notifyTokenChange() {
        for entry in callbacks {
            entry.callback()
        }
    }

    /// Sets or clears the refresh-join hook (tests use it to hold a refresh until a second caller
    /// has joined it).
    func setRefreshJoinObserver(_ observer: (@Sendable () -> Void)?) {
        refreshJoinObserver = observer
    }
}
