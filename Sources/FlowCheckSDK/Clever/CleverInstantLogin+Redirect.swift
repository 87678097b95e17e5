import Foundation

extension CleverInstantLogin {
    /// Steps 4 and 5 of seed 004: the redirect the app was opened with ("Clever will then
    /// redirect the user back to your custom URL with a code and the state parameter as
    /// provided"), checked, and its code exchanged for the token.
    ///
    /// Judged by `CleverRedirect` before anything is sent. No login in progress (including a
    /// replay after a completed login: state is single use), or a missing or different `state`:
    /// `.stateMismatch`, no request, a login in progress kept. A URL not under the redirect URI:
    /// `.authorization`, login kept. An `error` redirect with the right state: the login ends,
    /// `.authorization` carrying the error code. Otherwise the state is used up before anything
    /// is sent, the code is exchanged with `POST {base}/oauth/tokens` (Basic client ID with a
    /// blank secret, JSON body), and the token is stored and returned. The browser is dismissed
    /// whenever a login ends, however it ends.
    /// - Parameter url: The redirect URL, exactly as the app received it.
    /// - Returns: The token, already stored under `storeKey`.
    /// - Throws: `OAuthError` `.stateMismatch`, `.authorization`; from the exchange
    ///   `.tokenEndpoint` (4xx, with the server's `error`), `.serverError` (5xx),
    ///   `.invalidResponse` (not JSON, or a field missing), `.transport`, `.configuration`,
    ///   `.storage`; `CancellationError`. None holds the code. Nothing is stored on failure.
    @discardableResult
    public func handleRedirect(_ url: URL) async throws -> CleverToken {
        let pending = pendingLogin
        switch CleverRedirect.evaluate(url, pending: pending) {
        case .reject(let error, let endsLogin):
            if endsLogin {
                pendingLogin = nil
                await userAgent.dismiss()
            }
            throw error
        case .exchange(let code):
            guard let pending else {
                throw OAuthError.stateMismatch("no login is in progress")
            }
            // Cleared before the first suspension, so the same redirect delivered twice at once
            // finds no login the second time.
            pendingLogin = nil
            let token: CleverToken
            do {
                token = try await exchangeCode(code, pending: pending)
            } catch {
                await userAgent.dismiss()
                throw error
            }
            await userAgent.dismiss()
            return token
        }
    }

    /// Exchanges `code` for the token and stores it; on failure nothing is stored and a token
    /// already there is kept.
    private func exchangeCode(_ code: String, pending: CleverPendingLogin) async throws -> CleverToken {
        let secrets = [code]
        let request = try CleverWire.tokenRequest(
            baseURL: pending.baseURL,
            clientID: pending.clientID,
            code: code,
            redirectURI: pending.redirectURI
        )
        let response = try await transport.sendReportingFailures(request, secrets: secrets)
        let token = try CleverWire.token(from: response, secrets: secrets)
        try persistence.save(token)
        return token
    }
}
