import Foundation

extension CloverPaymentSDK {
    /// Stores `session` (and counts the change) only if nothing ended or replaced the session
    /// since `startedAt` (a `logout`, another setup): a call that was in flight then must not
    /// bring back what the user ended, nor write an older result over a newer one.
    /// - Throws: `OAuthError` `.notLoggedIn` when the session was ended meanwhile (nothing is
    ///   stored); `.storage` when the store fails.
    func save(_ session: CloverStoredSession, unlessEndedSince startedAt: Int) throws {
        guard generation == startedAt else {
            throw OAuthError.notLoggedIn("the session was ended (a logout) while this call was under way; nothing was stored")
        }
        try persistence.save(session)
        generation += 1
    }

    /// Exchanges a code for the first token pair (`POST /oauth/v2/token` with the verifier),
    /// stores it and fires the callbacks once. On failure nothing is stored and a session already
    /// there is kept: a failed exchange (the same code twice, say) says nothing about it. An
    /// exchange that a logout overtook stores nothing either.
    func exchangeCode(
        _ code: String,
        verifier: String,
        merchantID: String,
        appID: String,
        apiBaseURL: URL,
        secrets: [String]
    ) async throws -> CloverStoredSession {
        let secrets = secrets + [code, verifier]
        let startedAt = generation
        let request = try CloverWire.tokenRequest(apiBaseURL: apiBaseURL, appID: appID, code: code, verifier: verifier)
        let response = try await send(request, secrets: secrets)
        let session = try CloverWire.session(from: response, merchantID: merchantID, now: clock.now, secrets: secrets)
        try save(session, unlessEndedSince: startedAt)
        notifyTokenChange()
        return session
    }

    /// `GET /v3/merchants/{mId}` with the session's access token.
    ///
    /// Refuses to send an access token known to have expired: callers refresh first, and this is
    /// the last guard (RFC 6750 §5.3: bearer tokens must not be used past their lifetime).
    func fetchMerchant(with session: CloverStoredSession, configuration: CloverConfiguration) async throws -> CloverMerchant {
        guard !session.accessTokenIsExpired(at: clock.now) else {
            throw OAuthError.notLoggedIn("the access token has expired and could not be refreshed")
        }
        let secrets = configuration.secrets + session.secrets
        let request = try CloverWire.merchantRequest(
            apiBaseURL: configuration.environment.apiBaseURL,
            merchantID: session.merchantID,
            accessToken: session.accessToken
        )
        let response = try await send(request, secrets: secrets)
        return try CloverWire.merchant(from: response, secrets: secrets)
    }

    /// Sends through the transport, normalising its failures: `OAuthError`s pass through with any
    /// secret scrubbed from their message, cancellation stays cancellation, and anything else
    /// becomes `.transport` without its (possibly URL-bearing) description.
    func send(_ request: TransportRequest, secrets: [String]) async throws -> TransportResponse {
        do {
            return try await transport.send(request)
        } catch let error as OAuthError {
            throw OAuthError(code: error.code, message: Redaction.scrub(error.message, secrets: secrets), status: error.status)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw OAuthError.transport("network failure (\(type(of: error)))")
        }
    }
}
