import Foundation

/// A token-endpoint error object (RFC 6749 §5.2), as FakeClover, FakeClever and
/// FakeBraintreeConnect answer it: `{"error", "error_description"}` with
/// `Cache-Control: no-store`, `Pragma: no-cache` and the ``FlowCheckRule`` that refused.
struct TokenEndpointError: Error, Equatable {
    var status: Int
    var code: String
    var description: String
    var rule: FlowCheckRule
    /// The `WWW-Authenticate` challenge of a 401; RFC 6749 §5.2 requires one when the client
    /// tried to authenticate with the Authorization header.
    var challenge: String?

    /// RFC 6749 §5.2 `invalid_request`: missing, repeated or malformed parameters, or more
    /// than one way of authenticating the client.
    static func invalidRequest(_ description: String, _ rule: FlowCheckRule) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "invalid_request", description: description, rule: rule)
    }

    /// RFC 6749 §5.2 `invalid_grant`: the code is unknown, spent, expired, another client's,
    /// or bound to another redirect URI.
    static func invalidGrant(_ description: String, _ rule: FlowCheckRule) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "invalid_grant", description: description, rule: rule)
    }

    /// RFC 6749 §5.2 `unsupported_grant_type`.
    static func unsupportedGrantType(_ description: String) -> TokenEndpointError {
        TokenEndpointError(status: 400, code: "unsupported_grant_type", description: description, rule: .tokenUnsupportedGrantType)
    }

    /// RFC 6749 §5.2 `invalid_client`: 401 with a Basic challenge for `realm`. The description
    /// never repeats what was sent, so a secret in a wrong header cannot leak into reports.
    static func invalidClient(realm: String, description: String = "client authentication failed") -> TokenEndpointError {
        TokenEndpointError(
            status: 401, code: "invalid_client", description: description, rule: .tokenInvalidClient,
            challenge: "Basic realm=\"\(realm)\""
        )
    }

    var response: HTTPResponse {
        var response = HTTPResponse.json(status, ["error": code, "error_description": description])
        if let challenge { response.headers.set("WWW-Authenticate", challenge) }
        return Persona.noStore(response).refused(by: rule)
    }
}
