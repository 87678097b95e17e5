extension HTTPTransport {
    /// Sends `request`, normalising failures the way every provider reports them: an
    /// `OAuthError` passes through with `secrets` scrubbed from its message, cancellation stays
    /// cancellation, and anything else becomes `.transport` without its description (a foreign
    /// error's text may quote the URL, and with it a code).
    /// - Parameters:
    ///   - request: The request to send.
    ///   - secrets: Values the request carries that must not reach an error message.
    /// - Returns: The response, for any HTTP status.
    func sendReportingFailures(_ request: TransportRequest, secrets: [String]) async throws -> TransportResponse {
        do {
            return try await send(request)
        } catch let error as OAuthError {
            throw OAuthError(code: error.code, message: Redaction.scrub(error.message, secrets: secrets), status: error.status)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw OAuthError.transport("network failure (\(type(of: error)))")
        }
    }
}
