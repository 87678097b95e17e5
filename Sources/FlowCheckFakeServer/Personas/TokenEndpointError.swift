import Foundation

/// A token-endpoint error object (RFC 6749 §5.2), as FakeClever and FakeBraintreeConnect
/// answer it: `{"error", "error_description"}` with `Cache-Control: no-store`.
struct TokenEndpointError: Error, Equatable {
    var status: Int
    var code: String
    var description: String
    /// The `WWW-Authenticate` challenge of a 401; RFC 6749 §5.2 requires one when the client
    /// tried to authenticate with the Authorization header.
    var challenge: String?

    /// RFC 6749 §5.2 `invalid_request`: missing, repeated or malformed parameters, or more
    /// than one way of authenticating the client.
    static func invalidRequest(_ description: String) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "invalid_request", description: description)
    }

    /// RFC 6749 §5.2 `invalid_grant`: the code is unknown, spent, expired, another client's,
    /// or bound to another redirect URI.
    static func invalidGrant(_ description: String) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "invalid_grant", description: description)
    }

    /// RFC 6749 §5.2 `unsupported_grant_type`.
    static func unsupportedGrantType(_ description: String) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "unsupported_grant_type", description: description)
    }

    /// RFC 6749 §5.2 `invalid_client`: 401 with a Basic challenge for `realm`. The description
    /// never repeats what was sent, so a secret in a wrong header cannot leak into reports.
    static func invalidClient(realm: String) -> TokenEndpointError {
        TokenEndpointError(
            status: 401, code: "invalid_client", description: "client authentication failed",
            challenge: "Basic realm=\"\(realm)\""
        )
    }

    var response: HTTPResponse {
        var response = HTTPResponse.json(status, ["error": code, "error_description": description])
        if let challenge { response.headers.set("WWW-Authenticate", challenge) }
        // RFC 6749 §5.1: token responses, errors included, must not be cached.
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
        return response
    }
}
