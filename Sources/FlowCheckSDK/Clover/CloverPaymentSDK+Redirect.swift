import Foundation

extension CloverPaymentSDK {
    /// Handles the URL the login redirected to (seed 000, "Full OAuth Flow": "pass the full URL
    /// containing the code back using CloverPaymentSDK.shared.receivedOAuthCodeOrToken").
    ///
    /// Judged by `CloverRedirect` before anything is sent: a redirect with no login in progress
    /// (including a replay: state is single use), with a missing or different `state`, or not
    /// under the redirect URI makes no request and keeps the login in progress. An `error`
    /// redirect (RFC 6749 §4.1.2.1), another `client_id`, or a missing `code` or `merchant_id`
    /// ends the login. Otherwise the login ends, the code is exchanged with its verifier, the
    /// session is stored under the redirect's merchant, the callbacks fire once, and the browser
    /// is dismissed.
    /// - Parameter url: The redirect URL, exactly as the app received it.
    /// - Throws: `OAuthError` `.stateMismatch`, `.authorization` (with the server's error code,
    ///   e.g. `access_denied`), or as the code exchange: `.tokenEndpoint`, `.serverError`,
    ///   `.httpStatus`, `.invalidResponse`, `.transport`, `.storage`. None holds the code.
    public func receivedOAuthCodeOrToken(_ url: URL) async throws {
        let pending = pendingLogin
        switch CloverRedirect.evaluate(url, pending: pending) {
        case .reject(let error, let endsLogin):
            if endsLogin {
                pendingLogin = nil
                await userAgent.dismiss()
            }
            throw error
        case .exchange(let code, let merchantID):
            guard let pending else {
                throw OAuthError.stateMismatch("no login is in progress")
            }
            // Cleared before the first suspension, so the same redirect delivered twice at once
            // finds no login the second time.
            pendingLogin = nil
            do {
                _ = try await exchangeCode(
                    code,
                    verifier: pending.pkce.verifier,
                    merchantID: merchantID,
                    appID: pending.appID,
                    apiBaseURL: pending.apiBaseURL,
                    secrets: (configuration?.secrets ?? []) + pending.secrets + [code]
                )
            } catch {
                await userAgent.dismiss()
                throw error
            }
            await userAgent.dismiss()
        }
    }

    /// Starts a Full OAuth login: a new verifier and state for every login, remembered before the
    /// browser opens (the redirect may arrive while `open` is still suspended), then the
    /// authorization URL opened through the user agent, never fetched here.
    ///
    /// A login already in progress is replaced: only the latest login's redirect is accepted.
    func startLogin(_ flow: FullOAuth, redirectURL: URL, configuration: CloverConfiguration) async throws {
        let pkce = PKCE(random: random)
        let state = OAuthState.generate(random: random)
        let url = try CloverWire.authorizeURL(
            webBaseURL: configuration.environment.webBaseURL,
            appID: configuration.appID,
            redirectURI: flow.redirectURI,
            challenge: pkce.challenge,
            state: state
        )
        pendingLogin = CloverPendingLogin(
            state: state,
            pkce: pkce,
            redirectURL: redirectURL,
            appID: configuration.appID,
            apiBaseURL: configuration.environment.apiBaseURL
        )
        do {
            try await userAgent.open(url)
        } catch {
            if pendingLogin?.state == state {
                pendingLogin = nil
            }
            if error is CancellationError {
                throw error
            }
            if let error = error as? OAuthError {
                throw OAuthError(code: error.code, message: Redaction.scrub(error.message, secrets: [pkce.verifier]), status: error.status)
            }
            // The user agent's own error text may quote the URL; it is not repeated.
            throw OAuthError.authorization("the browser could not open the login page (\(type(of: error)))")
        }
    }
}
