import Foundation

/// Judges a redirect against the pending login, without I/O: the client half of the
/// authorization response (RFC 6749 §4.1.2), as a pure function from inputs to a decision
/// (the style of async-http-client's connection state machines), so every refusal is testable
/// without a server.
enum CloverRedirect {
    /// What to do with a redirect.
    enum Decision: Sendable, Equatable {
        /// Exchange `code` for tokens; the pending login is consumed.
        case exchange(code: String, merchantID: String)

        /// Refuse with `error`, making no request. `endsLogin` says whether the pending login is
        /// consumed (its state is single use once a redirect carrying it has been seen) or kept
        /// (the redirect was not for it, so the real one may still come).
        case reject(OAuthError, endsLogin: Bool)
    }

    /// Checks, in order: a login is pending; the URL is under its redirect URI; the query is well
    /// formed with no repeated parameter; an `error` (RFC 6749 §4.1.2.1); the `state`
    /// (§10.12, exact byte comparison); the `client_id` Clover adds; the `code`; the
    /// `merchant_id`.
    /// - Parameters:
    ///   - url: The URL the app received.
    ///   - pending: The login in progress, if any.
    /// - Returns: The decision.
    static func evaluate(_ url: URL, pending: CloverPendingLogin?) -> Decision {
        guard let pending else {
            // Also what a replayed redirect meets: the state it carries was used up.
            return .reject(OAuthError.stateMismatch("no login is in progress; a redirect is accepted once, for the login that sent its state"), endsLogin: false)
        }
        guard CallbackURL.isUnder(url, expected: pending.redirectURL) else {
            return .reject(OAuthError.authorization("the URL is not under the configured redirect URI"), endsLogin: false)
        }
        // Clover form-encodes the redirect's parameters, so `+` is a space here.
        let rawQuery = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let fields = FormURLEncoding.decode(rawQuery) else {
            return .reject(OAuthError.authorization("the redirect's query is malformed"), endsLogin: false)
        }
        var parameters: [String: String] = [:]
        for (name, value) in fields {
            guard parameters[name] == nil else {
                // RFC 6749 §3.1: parameters must not be included more than once; which copy
                // would count is exactly what an attacker would like to choose.
                return .reject(OAuthError.authorization("the redirect repeats a parameter"), endsLogin: false)
            }
            parameters[name] = value
        }
        let state = parameters["state"]
        let stateMatches = state.map { $0.utf8.elementsEqual(pending.state.utf8) } ?? false

        if let error = parameters["error"] {
            // Only an error carrying this login's state ends it (RFC 6749 §4.1.2.1 returns the
            // state with errors too). One without it could come from any page that opens the
            // redirect URI, and would let that page cancel a real login: keep waiting, as the
            // Clever client does.
            guard stateMatches else {
                return .reject(OAuthError.stateMismatch(state == nil ? "the error redirect carries no state, but one was sent" : "the error redirect's state differs from the one sent"), endsLogin: false)
            }
            var text = error
            if let detail = parameters["error_description"], !detail.isEmpty {
                text += ": " + detail
            }
            let message = Redaction.serverMessage(text, secrets: pending.secrets)
            return .reject(OAuthError.authorization(message.isEmpty ? "the authorization server refused the login" : message), endsLogin: true)
        }
        guard state != nil else {
            return .reject(OAuthError.stateMismatch("the redirect carries no state, but one was sent"), endsLogin: false)
        }
        guard stateMatches else {
            return .reject(OAuthError.stateMismatch("the redirect's state differs from the one sent"), endsLogin: false)
        }
        // From here on the redirect carries our state: whatever follows, it is used up.
        if let clientID = parameters["client_id"], !clientID.utf8.elementsEqual(pending.appID.utf8) {
            return .reject(OAuthError.authorization("the redirect is for another client_id"), endsLogin: true)
        }
        guard let code = parameters["code"], !code.isEmpty else {
            return .reject(OAuthError.authorization("the redirect carries no code"), endsLogin: true)
        }
        guard let merchantID = parameters["merchant_id"], CloverWire.isUsableMerchantID(merchantID) else {
            return .reject(OAuthError.authorization("the redirect carries no usable merchant_id"), endsLogin: true)
        }
        return .exchange(code: code, merchantID: merchantID)
    }
}
