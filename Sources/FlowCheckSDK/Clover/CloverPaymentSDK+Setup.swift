import Foundation

extension CloverPaymentSDK {
    /// Initialises the SDK for `configuration` (seed 000 `setup`): finds or obtains a session and
    /// fetches the merchant with it.
    ///
    /// - `FullOAuth`: a stored session is used (refreshed first when its access token is expired
    ///   or within the refresh margin) and the merchant fetched: `.ready`. Without one, a fresh
    ///   PKCE verifier and `state` are made, the login page is opened through the user agent, and
    ///   `.loginStarted` is returned; the redirect goes to `receivedOAuthCodeOrToken`, which fires
    ///   the token-change callbacks, and the app calls `setup` again (seed 001 steps 3 to 6).
    /// - `PartialOAuth`: a code response is exchanged (with its verifier), stored, the callbacks
    ///   fired and the merchant fetched. Nil uses the stored session like Full OAuth; with an empty
    ///   store it throws `.notLoggedIn` without any request (seed 001: "pass in nil ... to
    ///   maintain and use the token already acquired").
    /// - `NoOAuth`: the merchant is fetched with the given token; on success the token is stored
    ///   (no refresh token, no known expiry) and `.ready` returned, with no callback since the app
    ///   handed the token over itself. Never any OAuth or refresh request (seed 000: "will not
    ///   attempt any OAuth or token refresh operations").
    ///
    /// A refresh refused by the token endpoint ends the session (deleted, callbacks fired) and
    /// throws `.tokenEndpoint`; the next Full `setup` opens the browser. A failed code exchange
    /// never touches a stored session.
    /// - Parameter configuration: Environment, app identity and flow type.
    /// - Returns: `.ready` with the merchant, or `.loginStarted` (Full OAuth only).
    /// - Throws: `OAuthError`: `.configuration` (bad redirect URI, unknown flow type, empty code,
    ///   token or merchant ID), `.notLoggedIn`, `.tokenEndpoint`, `.tokenRejected` (merchant 401),
    ///   `.authorization` (the browser could not be opened), `.serverError`, `.httpStatus`,
    ///   `.invalidResponse`, `.transport`, `.storage`.
    @discardableResult
    public func setup(configuration: CloverConfiguration) async throws -> CloverSetupOutcome {
        switch configuration.oauthFlowType {
        case let flow as FullOAuth:
            return try await setupFull(flow, configuration: configuration)
        case let flow as PartialOAuth:
            return try await setupPartial(flow, configuration: configuration)
        case let flow as NoOAuth:
            return try await setupNone(flow, configuration: configuration)
        default:
            throw OAuthError.configuration("unsupported OAuth flow type; use FullOAuth, PartialOAuth or NoOAuth")
        }
    }

    /// Replaces the No OAuth token (seed 000 `updateToken`: "this will trigger a re-download of
    /// merchant information, as the token must be verified to belong to the merchant in use").
    ///
    /// Exactly one request: `GET /v3/merchants/{mId}` with the new token. On success the token is
    /// stored and the callbacks fire once; on failure nothing changes.
    /// - Parameter token: The new access token.
    /// - Throws: `OAuthError` `.configuration` unless the latest `setup` was No OAuth (the other
    ///   flows manage their tokens themselves) or when `token` is empty; `.tokenRejected` when
    ///   Clover refuses it for the merchant; `.serverError`, `.httpStatus`, `.invalidResponse`,
    ///   `.transport`, `.storage`.
    public func updateToken(_ token: String) async throws {
        guard let configuration, var flow = configuration.oauthFlowType as? NoOAuth else {
            throw OAuthError.configuration("updateToken is only for NoOAuth; call setup with NoOAuth first")
        }
        guard !token.isEmpty else {
            throw OAuthError.configuration("the token is empty")
        }
        let session = CloverStoredSession(accessToken: token, merchantID: flow.merchantID)
        let startedAt = generation
        _ = try await fetchMerchant(with: session, configuration: configuration)
        try save(session, unlessEndedSince: startedAt)
        flow.token = token
        // Keeps the remembered configuration in step with the token now in use.
        if self.configuration?.oauthFlowType is NoOAuth {
            self.configuration?.oauthFlowType = flow
        }
        notifyTokenChange()
    }

    /// Fetches the session's merchant: `GET /v3/merchants/{mId}` (an API call standing for every
    /// call a payment SDK makes).
    ///
    /// In Full and Partial OAuth the access token is refreshed first when it is expired or within
    /// the refresh margin, concurrent callers sharing one refresh, so an expired token is never
    /// sent. In No OAuth the stored token is sent as it is, never refreshed.
    /// - Returns: The merchant.
    /// - Throws: `OAuthError` `.configuration` before any `setup`; `.notLoggedIn` with no stored
    ///   session; otherwise as `setup`.
    public func merchant() async throws -> CloverMerchant {
        guard let configuration else {
            throw OAuthError.configuration("call setup before making API calls")
        }
        guard let session = try persistence.load() else {
            throw OAuthError.notLoggedIn("there is no stored Clover session")
        }
        if configuration.oauthFlowType is NoOAuth {
            return try await fetchMerchant(with: session, configuration: configuration)
        }
        let usable = try await usableSession(session, configuration: configuration)
        return try await fetchMerchant(with: usable, configuration: configuration)
    }

    private func setupFull(_ flow: FullOAuth, configuration: CloverConfiguration) async throws -> CloverSetupOutcome {
        let redirectURL = try CloverConfiguration.redirectURL(flow)
        self.configuration = configuration
        guard let session = try persistence.load() else {
            try await startLogin(flow, redirectURL: redirectURL, configuration: configuration)
            return .loginStarted
        }
        let usable = try await usableSession(session, configuration: configuration)
        return .ready(try await fetchMerchant(with: usable, configuration: configuration))
    }

    private func setupPartial(_ flow: PartialOAuth, configuration: CloverConfiguration) async throws -> CloverSetupOutcome {
        if let response = flow.codeResponse {
            guard !response.code.isEmpty, !response.codeVerifier.isEmpty else {
                throw OAuthError.configuration("the code response has an empty code or verifier")
            }
            guard CloverWire.isUsableMerchantID(response.merchantID) else {
                throw OAuthError.configuration("the code response has no usable merchant ID")
            }
            self.configuration = configuration
            // The verifier is passed through as the app made it: judging it is the token
            // endpoint's job (RFC 7636 §4.6), and its refusal is the clearer error.
            let session = try await exchangeCode(
                response.code,
                verifier: response.codeVerifier,
                merchantID: response.merchantID,
                appID: configuration.appID,
                apiBaseURL: configuration.environment.apiBaseURL,
                secrets: configuration.secrets
            )
            return .ready(try await fetchMerchant(with: session, configuration: configuration))
        }
        self.configuration = configuration
        guard let session = try persistence.load() else {
            throw OAuthError.notLoggedIn("there is no stored Clover session; pass the code response from the app's login")
        }
        let usable = try await usableSession(session, configuration: configuration)
        return .ready(try await fetchMerchant(with: usable, configuration: configuration))
    }

    private func setupNone(_ flow: NoOAuth, configuration: CloverConfiguration) async throws -> CloverSetupOutcome {
        guard !flow.token.isEmpty else {
            throw OAuthError.configuration("the NoOAuth token is empty")
        }
        guard CloverWire.isUsableMerchantID(flow.merchantID) else {
            throw OAuthError.configuration("the NoOAuth merchant ID is empty or not a path segment")
        }
        // Remembered even if the token is refused, so the app can follow up with `updateToken`.
        self.configuration = configuration
        let session = CloverStoredSession(accessToken: flow.token, merchantID: flow.merchantID)
        let startedAt = generation
        let merchant = try await fetchMerchant(with: session, configuration: configuration)
        try save(session, unlessEndedSince: startedAt)
        return .ready(merchant)
    }
}
