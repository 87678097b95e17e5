import Foundation

extension MoltinClient {
    /// A renewed token, from the renewal in flight if there is one, else from a new one.
    ///
    /// Actor reentrancy lets other callers run while the first awaits the network; they find
    /// `renewal` set and await the same task, so N concurrent callers cause one token request.
    func sharedRenewal() async throws -> StoredToken {
        if let inFlight = renewal {
            renewalJoinObserver?()
            return try await inFlight.value
        }
        let task = Task { try await self.renew() }
        renewal = task
        defer { renewal = nil }
        return try await task.value
    }

    /// Refreshes the stored token, falling back to `client_credentials` when the token endpoint
    /// refuses the refresh (Moltin may not accept an expired token as a refresh token; the
    /// remembered credentials always yield a new one). Stores the result unless the token was
    /// changed explicitly meanwhile, by this instance or another over the same store.
    private func renew() async throws -> StoredToken {
        guard let credentials else {
            throw OAuthError.notLoggedIn("no client credentials in memory to renew the token with")
        }
        let startGeneration = generation
        let current = try persistence.load()
        let secrets = secrets(credentials: credentials, tokens: [current].compactMap { $0 })
        let token: StoredToken
        if let current {
            do {
                token = try await requestToken(fields: MoltinWire.refreshFields(credentials, token: current), secrets: secrets)
            } catch let error as OAuthError where error.code == .tokenEndpoint {
                token = try await requestToken(fields: MoltinWire.clientCredentialsFields(credentials), secrets: secrets)
            }
        } else {
            token = try await requestToken(fields: MoltinWire.clientCredentialsFields(credentials), secrets: secrets)
        }
        // The store is shared (another SDK instance, e.g. after a relaunch, may have deleted or
        // replaced the token meanwhile): a renewal replaces only the token it started from, and
        // a renewal that started from none (the token deleted before it began) stores nothing.
        let stored = try persistence.load()
        if generation == startGeneration, let current, stored?.accessToken == current.accessToken {
            try persistence.save(token)
        }
        return token
    }
}
