import Foundation

/// Judges an Instant Login redirect against the pending login, without I/O (seed 004 step 4:
/// "Clever will then redirect the user back to your custom URL with a code and the state
/// parameter as provided"), so every refusal is testable without a server.
enum CleverRedirect {
    /// What to do with a redirect.
    enum Decision: Sendable, Equatable {
        /// Exchange `code` for a token; the pending login is consumed.
        case exchange(code: String)

        /// Refuse with `error`, making no request. `endsLogin` says whether the pending login is
        /// consumed (a redirect carrying its state has been seen: state is single use) or kept
        /// (the redirect was not for it, so the real one may still come).
        case reject(OAuthError, endsLogin: Bool)
    }

    /// Checks, in order: a login is pending; the URL is under its redirect URI; the query is well
    /// formed with no repeated parameter and no credential-like parameter besides `code`
    /// (`access_token`, `id_token`, `refresh_token`, `client_secret`, ...); the `state`, compared byte for byte (seed 004 step 2:
    /// "verify that it matches the original value"; RFC 6749 §10.12); an `error` (RFC 6749
    /// §4.1.2.1); the `code`.
    ///
    /// An error redirect must carry the right state too: one without it could come from anyone,
    /// and accepting it would let any page cancel the user's login. (`CloverRedirect` lets a
    /// state-less error end its login; Clever's flows.md rows ask for the stricter rule.)
    /// - Parameters:
    ///   - url: The URL the app was opened with.
    ///   - pending: The login in progress, if any.
    /// - Returns: The decision.
    static func evaluate(_ url: URL, pending: CleverPendingLogin?) -> Decision {
        guard let pending else {
            // Also what a replayed redirect meets: the state it carries was used up.
            return .reject(OAuthError.stateMismatch("no login is in progress; a redirect is accepted once, for the login that sent its state"), endsLogin: false)
        }
        guard CallbackURL.isUnder(url, expected: pending.redirectURL) else {
            return .reject(OAuthError.authorization("the URL is not under the configured redirect URI"), endsLogin: false)
        }
        let parameters: [String: String]
        switch CallbackURL.parameters(of: url) {
        case .success(let values):
            parameters = values
        case .failure(.malformed):
            return .reject(OAuthError.authorization("the redirect's query is malformed"), endsLogin: false)
        case .failure(.repeated):
            return .reject(OAuthError.authorization("the redirect repeats a parameter"), endsLogin: false)
        }
        // Seed 004 step 4: the redirect carries "a code and the state parameter", nothing more.
        // A token or secret beside them did not come from Clever's authorization endpoint (an
        // implicit-flow injection, RFC 6749 §10.16): refused, and the real redirect may still come.
        if parameters.keys.contains(where: { $0 != "code" && BraintreeReturnURL.isCredentialLike($0) }) {
            return .reject(OAuthError.authorization("the redirect carries a credential-like parameter besides its code"), endsLogin: false)
        }
        guard let state = parameters["state"] else {
            return .reject(OAuthError.stateMismatch("the redirect carries no state, but one was sent"), endsLogin: false)
        }
        guard state.utf8.elementsEqual(pending.state.utf8) else {
            return .reject(OAuthError.stateMismatch("the redirect's state differs from the one sent"), endsLogin: false)
        }
        // From here on the redirect carries our state: whatever follows, it is used up.
        if let error = parameters["error"] {
            var text = error
            if let detail = parameters["error_description"], !detail.isEmpty {
                text += ": " + detail
            }
            let message = Redaction.serverMessage(text, secrets: [])
            return .reject(OAuthError.authorization(message.isEmpty ? "Clever refused the login" : message), endsLogin: true)
        }
        guard let code = parameters["code"], !code.isEmpty else {
            return .reject(OAuthError.authorization("the redirect carries no code"), endsLogin: true)
        }
        return .exchange(code: code)
    }
}
