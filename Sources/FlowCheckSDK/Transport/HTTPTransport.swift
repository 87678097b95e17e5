/// The network seam: sends one request and returns the response, whatever its status.
///
/// The SDK interprets statuses itself, so a transport returns every HTTP answer, 3xx included
/// (redirects are not followed: a custom-scheme redirect is an OAuth result, not a place to go).
/// Tests replace it with a stub; production uses `URLSessionTransport`, wrapped in
/// `DeadlineTransport` for a request deadline measured by the injected clock.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's answer.
    /// - Parameter request: The request to send.
    /// - Returns: The response, for any HTTP status.
    /// - Throws: `OAuthError` with code `.transport` when no HTTP answer was received (connection
    ///   refused, DNS failure, timeout, TLS failure), or `CancellationError` when the calling task
    ///   was cancelled.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
