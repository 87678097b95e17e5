import Foundation

extension CloverPaymentSDK {
    /// A session whose access token may be sent now (Full and Partial OAuth).
    ///
    /// A session that can no longer yield a token (its refresh token is known to have expired)
    /// is ended without a request, as the server's refusal would end it. An access token within
    /// the refresh margin is refreshed first through the shared refresh; one past expiry is never
    /// returned.
    func usableSession(_ session: CloverStoredSession, configuration: CloverConfiguration) async throws -> CloverStoredSession {
        let now = clock.now
        if session.isDead(at: now) {
            try endSession(startedAt: generation)
            throw OAuthError.notLoggedIn("the Clover session has expired; log in again")
        }
        guard session.accessTokenNeedsRefresh(at: now, margin: refreshMargin), session.refreshToken != nil else {
            // Fresh, or inside the margin with nothing to refresh with (not dead, so not yet
            // expired): still usable.
            return session
        }
        let refreshed = try await sharedRefresh()
        guard !refreshed.accessTokenIsExpired(at: clock.now) else {
            throw OAuthError.invalidResponse("the token endpoint issued an access token that has already expired")
        }
        return refreshed
    }

    /// The refreshed session, from the refresh in flight if there is one, else from a new one.
    ///
    /// Actor reentrancy lets other callers run while the first awaits the network; they find
    /// `refreshTask` set and await the same task, so N concurrent callers cause one refresh
    /// request. That matters doubly here: Clover rotates refresh tokens, so a second refresh with
    /// the same token would be refused and end the session.
    func sharedRefresh() async throws -> CloverStoredSession {
        if let inFlight = refreshTask {
            refreshJoinObserver?()
            return try await inFlight.value
        }
        let task = Task { try await self.performRefresh() }
        refreshTask = task
        defer { refreshTask = nil }
        return try await task.value
    }

    /// One refresh: `POST /oauth/v2/refresh` with the stored refresh token.
    ///
    /// The rotated pair is stored before anyone uses it (the old refresh token is dead the moment
    /// the server answers, so losing the new one would lose the session) and the callbacks fire
    /// once. A 400/401 from the token endpoint (`invalid_grant`: expired, revoked or already
    /// used) ends the session, if it is still the one refreshed: deleted, callbacks fired,
    /// `.tokenEndpoint` thrown. Any other
    /// failure (transport, a deadline, 5xx, a bad or truncated body, a redirect) is transient and
    /// keeps the session, refresh token included. If the session was
    /// changed meanwhile (logout, a new login, by this instance or another over the same
    /// store) the result is not stored.
    private func performRefresh() async throws -> CloverStoredSession {
        guard let configuration else {
            throw OAuthError.configuration("call setup before making API calls")
        }
        let startGeneration = generation
        guard let current = try persistence.load(), let refreshToken = current.refreshToken else {
            throw OAuthError.notLoggedIn("there is no stored refresh token")
        }
        let secrets = configuration.secrets + current.secrets
        let request = try CloverWire.refreshRequest(
            apiBaseURL: configuration.environment.apiBaseURL,
            appID: configuration.appID,
            refreshToken: refreshToken
        )
        var refreshed: CloverStoredSession
        do {
            let response = try await send(request, secrets: secrets)
            refreshed = try CloverWire.session(from: response, merchantID: current.merchantID, now: clock.now, secrets: secrets)
        } catch let error as OAuthError where error.code == .tokenEndpoint {
            // The refusal is about the refresh token sent. Another instance over the same store
            // may have refreshed it first (rotation makes the server refuse it now) or logged in
            // anew: then the stored session is not the one refused, and ending it would log the
            // user out of a session the server still honours.
            if try persistence.load()?.refreshToken == refreshToken {
                try endSession(startedAt: startGeneration)
            }
            throw error
        }
        if refreshed.refreshToken == nil {
            // RFC 6749 §6: with no new refresh token issued, the client keeps the one it has.
            refreshed.refreshToken = current.refreshToken
            refreshed.refreshTokenExpiration = current.refreshTokenExpiration
        }
        // The store is shared (another SDK instance, e.g. after a relaunch, may have logged
        // out or logged in meanwhile): only the session this refresh started from may be
        // replaced, so this instance's generation alone is not enough.
        let stored = try persistence.load()
        guard generation == startGeneration, stored?.refreshToken == refreshToken else {
            // Logged out or logged in anew meanwhile: that session wins.
            guard let latest = stored else {
                throw OAuthError.notLoggedIn("the Clover session ended while it was being refreshed")
            }
            return latest
        }
        try persistence.save(refreshed)
        generation += 1
        notifyTokenChange()
        return refreshed
    }

    /// Ends the stored session (the token is invalidated): deletes it and fires the callbacks
    /// once, unless it was changed since `startedAt` (then it is someone else's to end).
    func endSession(startedAt startGeneration: Int) throws {
        guard generation == startGeneration else { return }
        let existed = try persistence.exists()
        try persistence.clear()
        generation += 1
        if existed {
            notifyTokenChange()
        }
    }
}
