import Foundation

extension MoltinClient {
    /// Posts a grant to the token endpoint and reads the token; never touches the store.
    func requestToken(fields: [(String, String)], secrets: [String]) async throws -> StoredToken {
        let request = try MoltinWire.tokenRequest(baseURL: configuration.baseURL, fields: fields)
        let response = try await send(request, secrets: secrets)
        return try MoltinWire.token(from: response, now: clock.now, secrets: secrets + fieldSecrets(fields))
    }

    /// Sends through the transport, normalising its failures: `OAuthError`s pass through with any
    /// secret scrubbed from their message, cancellation stays cancellation, and anything else
    /// becomes `.transport` without its (possibly URL-bearing) description.
    ///
    /// A 429 or 503 whose `Retry-After` is within `configuration.retryAfterLimit` is waited out
    /// on the client's clock and the request sent once more (RFC 9110 §10.2.3); the second
    /// answer is final. Unless `stillFit`, asked after the wait, says no: a bearer token that
    /// expired while the client waited is never sent (seed 003: a token is renewed before it
    /// is used past its expiry), and the first answer stands.
    func send(_ request: TransportRequest, secrets: [String], stillFit: () -> Bool = { true }) async throws -> TransportResponse {
        do {
            let response = try await transport.send(request)
            guard let delay = RetryAfter.delay(of: response, now: clock.now), delay <= configuration.retryAfterLimit else {
                return response
            }
            try await clock.pause(until: clock.now.addingTimeInterval(delay))
            guard stillFit() else { return response }
            return try await transport.send(request)
        } catch let error as OAuthError {
            throw OAuthError(code: error.code, message: Redaction.scrub(error.message, secrets: secrets), status: error.status)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // A clock that refuses the wait, a transport's own error: no detail leaves the SDK.
            throw OAuthError.transport("network failure (\(type(of: error)))")
        }
    }

    /// Values that must not appear in any error text.
    func secrets(credentials: ClientCredentials?, tokens: [StoredToken]) -> [String] {
        var values = tokens.flatMap { [$0.accessToken, $0.refreshToken].compactMap { $0 } }
        if let credentials {
            values.append(credentials.clientSecret)
        }
        return values
    }

    /// The secret-bearing values of a grant's form fields.
    private func fieldSecrets(_ fields: [(String, String)]) -> [String] {
        fields.filter { ["client_secret", "refresh_token", "code", "code_verifier"].contains($0.0) }.map(\.1)
    }
}
