/// An error thrown by the SDK core.
///
/// A struct over a private enum (model: async-http-client's `HTTPClientError`), so new codes can
/// be added without breaking callers that switch over them. Its `description` is built only from
/// the code, the HTTP status and `message`, and `message` never holds a secret: no token, code,
/// client secret, request body or URL query. Server-provided text is sanitised and scrubbed of the
/// client's own secrets before it lands here (see `Redaction`).
public struct OAuthError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is; decides whether the session survives it.
    public var code: Code

    /// Human-readable text, safe to print and to put in reports.
    public var message: String

    /// The HTTP status of the response that caused the error, when there was one.
    public var status: Int?

    /// Creates an error.
    ///
    /// Transports written outside the SDK use this to report network failures as `.transport`.
    /// - Parameters:
    ///   - code: The failure class.
    ///   - message: Text safe to print; must not contain a secret.
    ///   - status: The HTTP status, if a response was received.
    public init(code: Code, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `code [HTTP status]: message`, e.g. `tokenEndpoint [HTTP 401]: Invalid client id or secret`.
    public var description: String {
        var text = code.name
        if let status {
            text += " [HTTP \(status)]"
        }
        return text + ": " + message
    }
}
