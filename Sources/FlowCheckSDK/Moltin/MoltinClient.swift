import Foundation

/// A Moltin API client: the tutorial's actions (seed 003, "Preview of the View Controller
/// Actions": Auth, Bad Auth, Refresh Token, Delete Token, Products) plus the token expiry the
/// tutorial leaves as an exercise ("Add token expiration code").
///
/// The client credentials are remembered in memory only, after a successful `auth`, so the client
/// can refresh or re-authenticate on its own; the token is persisted in the `TokenStore` under
/// `MoltinConfiguration.storeKey`. No failure ever changes the store: a failed `auth` does not
/// clobber an earlier good token. Concurrent callers that find an expired token share one renewal.
///
/// ```swift
/// let client = MoltinClient(
///     configuration: .production,
///     transport: URLSessionTransport(),
///     store: try FileTokenStore(directory: tokensDirectory),
///     clock: SystemTimeSource()
/// )
/// try await client.auth(clientId: id, clientSecret: secret)
/// let products = try await client.products()
/// ```
public actor MoltinClient {
    let configuration: MoltinConfiguration
    let transport: any HTTPTransport
    let persistence: TokenPersistence
    let clock: any TimeSource

    /// Set by a successful `auth`; persisted only to `credentialStore`, when one is given.
    var credentials: ClientCredentials?

    /// Where the client credentials are kept besides memory, under
    /// `MoltinClient.credentialsKey`; nil, the default and the right choice, keeps them in
    /// memory only, so a relaunched app must call `auth` again and no client secret rests on
    /// the device. An app that passes a store gets "stay logged in" at the price of a secret at
    /// rest.
    let credentialStore: (any TokenStore)?

    /// The key of the credentials in `credentialStore`.
    public static let credentialsKey = "moltin.clientCredentials"

    /// The renewal in flight, shared by every caller that needs a fresh token meanwhile
    /// (model: AppAuth's pending actions in `OIDAuthState.m`).
    var renewal: Task<StoredToken, any Error>?

    /// Bumped by every explicit change of the stored token (`auth`, `refreshToken`,
    /// `deleteToken`), so a renewal that started earlier does not overwrite it when it finishes.
    var generation = 0

    /// Test hook: called when a caller joins a renewal already in flight.
    var renewalJoinObserver: (@Sendable () -> Void)?

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: The API root and refresh margin.
    ///   - transport: The network seam.
    ///   - store: Where the token is persisted.
    ///   - clock: The time source for every expiry decision.
    ///   - credentialStore: Where the client credentials are kept besides memory; nil (the
    ///     default) keeps them in memory only.
    public init(configuration: MoltinConfiguration, transport: any HTTPTransport, store: any TokenStore, clock: any TimeSource, credentialStore: (any TokenStore)? = nil) {
        self.configuration = configuration
        self.transport = transport
        self.persistence = TokenPersistence(store: store, key: MoltinConfiguration.storeKey)
        self.clock = clock
        self.credentialStore = credentialStore
        // An unreadable copy means no credentials: the client then asks for `auth`, the safe side.
        if let credentialStore, let data = try? credentialStore.read(Self.credentialsKey),
           let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: String],
           let id = object["clientId"], let secret = object["clientSecret"] {
            self.credentials = ClientCredentials(clientId: id, clientSecret: secret)
        }
    }

    /// Obtains a token with the `client_credentials` grant and stores it (the tutorial's "Auth"
    /// and "Bad Auth").
    ///
    /// On success the credentials are remembered in memory for later refresh and re-auth. On
    /// failure neither the store nor the remembered credentials change.
    /// - Parameters:
    ///   - clientId: The store's client id.
    ///   - clientSecret: The store's client secret; sent form-encoded, never logged or reported.
    /// - Returns: The stored token.
    /// - Throws: `OAuthError`: `.tokenEndpoint` with the server's message (e.g. "Invalid client id
    ///   or secret"), `.serverError`, `.invalidResponse`, `.transport`, `.storage`, `.configuration`.
    @discardableResult
    public func auth(clientId: String, clientSecret: String) async throws -> StoredToken {
        let newCredentials = ClientCredentials(clientId: clientId, clientSecret: clientSecret)
        let startedAt = generation
        let token = try await requestToken(
            fields: MoltinWire.clientCredentialsFields(newCredentials),
            secrets: [clientSecret]
        )
        try save(token, unlessChangedSince: startedAt)
        if let credentialStore {
            let object = ["clientId": clientId, "clientSecret": clientSecret]
            do {
                try credentialStore.write(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), for: Self.credentialsKey)
            } catch {
                throw OAuthError.storage("the client credentials could not be stored")
            }
        }
        credentials = newCredentials
        return token
    }

    /// Renews the stored token with the `refresh_token` grant (the tutorial's exercise) and stores
    /// the result.
    ///
    /// Sends the stored refresh token, or the stored access token when there is none (seed 003,
    /// "Refreshing a token"). Does not fall back to `client_credentials`: this is the explicit
    /// "Refresh Token" action, so a refusal is reported as such.
    /// - Returns: The new stored token.
    /// - Throws: `OAuthError` `.notLoggedIn` without a stored token or remembered credentials;
    ///   otherwise as `auth`. The store is unchanged on failure.
    @discardableResult
    public func refreshToken() async throws -> StoredToken {
        guard let credentials else {
            throw OAuthError.notLoggedIn("no client credentials in memory to refresh with; call auth first")
        }
        guard let current = try persistence.load() else {
            throw OAuthError.notLoggedIn("there is no stored token to refresh")
        }
        let startedAt = generation
        let token = try await requestToken(
            fields: MoltinWire.refreshFields(credentials, token: current),
            secrets: secrets(credentials: credentials, tokens: [current])
        )
        // The store is shared: another SDK instance (after a relaunch) may have deleted the token
        // meanwhile, and then nothing is stored. Replaced meanwhile (a renewal of this instance,
        // or another instance's), the newer token wins and is returned.
        guard let stored = try persistence.load() else {
            throw OAuthError.notLoggedIn("the stored token was deleted while this refresh was under way; nothing was stored")
        }
        guard stored.accessToken == current.accessToken else { return stored }
        try save(token, unlessChangedSince: startedAt)
        return token
    }

    /// Stores `token` (and counts the change) only if no explicit change (`auth`,
    /// `refreshToken`, `deleteToken`) happened since `startedAt`: a call in flight when the token
    /// was deleted must not bring it back, nor write an older token over a newer one.
    /// - Throws: `OAuthError` `.notLoggedIn` when the token changed meanwhile (nothing is
    ///   stored); `.storage` when the store fails.
    private func save(_ token: StoredToken, unlessChangedSince startedAt: Int) throws {
        guard generation == startedAt else {
            throw OAuthError.notLoggedIn("the stored token was deleted or replaced while this call was under way; nothing was stored")
        }
        try persistence.save(token)
        generation += 1
    }

    /// Removes the stored token (local only, like the tutorial's "Delete Token"). The remembered
    /// credentials stay, but `products()` will then send no token and get Moltin's 400.
    /// - Throws: `OAuthError` `.storage` when the store fails.
    public func deleteToken() throws {
        try persistence.clear()
        generation += 1
    }

    /// The token currently in the store, or nil.
    /// - Throws: `OAuthError` `.storage` when the store fails or holds unreadable data.
    public func currentToken() throws -> StoredToken? {
        try persistence.load()
    }

    /// Sets or clears the renewal-join hook (tests use it to hold a renewal until a second caller
    /// has joined it).
    func setRenewalJoinObserver(_ observer: (@Sendable () -> Void)?) {
        renewalJoinObserver = observer
    }
}
