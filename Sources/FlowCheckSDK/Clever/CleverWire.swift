import Foundation

/// The Clever wire contract for Instant Login (seed 004 steps 3 to 5; flows.md "Clever Instant
/// Login"): the authorize URL, the token request and its answer.
enum CleverWire {
    /// `GET {base}/oauth/authorize`, opened in the browser, never fetched by the SDK.
    static let authorizePath = "oauth/authorize"

    /// `POST {base}/oauth/tokens`: the code for a bearer token.
    static let tokenPath = "oauth/tokens"

    /// The authorization URL, parameters in seed 004's order (`response_type`, `client_id`,
    /// `redirect_uri`, `state`), each form-encoded so a redirect URI's `:` and `/` cannot end or
    /// split a parameter.
    ///
    /// DECISION: `response_type=code`, lower case. Seed 004 step 3 writes `response_type=CODE`,
    /// but RFC 6749 §4.1.1 defines the value as `code` and response types are compared as exact
    /// strings (§3.1.1); Clever's own web flow sends `code` too.
    static func authorizeURL(baseURL: URL, clientID: String, redirectURI: String, state: String) throws -> URL {
        try BaseURLPolicy.validate(baseURL)
        let query = FormURLEncoding.encode([
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI),
            ("state", state),
        ])
        let endpoint = baseURL.appendingPathComponent(authorizePath)
        guard let url = URL(string: endpoint.absoluteString + "?" + query) else {
            throw OAuthError.configuration("could not build the Clever authorization URL")
        }
        return url
    }

    /// The `Authorization` header of the token request: HTTP Basic with the client ID as the user
    /// name and a blank password.
    ///
    /// Seed 004 step 4: "use the client ID for the iOS platform and a blank client secret, like
    /// so: `"Authorization: Basic " + Base64.encode(ios_client_id + ":")`". The client ID is
    /// form-encoded first, as RFC 6749 §2.3.1 requires of Basic client credentials; for the
    /// alphanumeric IDs Clever issues that changes nothing, and for any other ID it keeps a `:`
    /// in the ID from being read as the end of the user name.
    static func basicAuthorization(clientID: String) -> String {
        "Basic " + Data((FormURLEncoding.encodeComponent(clientID) + ":").utf8).base64EncodedString()
    }

    /// The code exchange: `POST {base}/oauth/tokens`, Basic client authentication with the blank
    /// secret, and the JSON body `{"code", "grant_type": "authorization_code", "redirect_uri"}`
    /// (keys in that order, compact, slashes unescaped) and nothing else. Never a client secret.
    static func tokenRequest(baseURL: URL, clientID: String, code: String, redirectURI: String) throws -> TransportRequest {
        try BaseURLPolicy.validate(baseURL)
        let encoder = JSONEncoder()
        // Sorted keys give the contract's order: code, grant_type, redirect_uri.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body: Data
        do {
            body = try encoder.encode([
                "code": code,
                "grant_type": "authorization_code",
                "redirect_uri": redirectURI,
            ])
        } catch {
            throw OAuthError.configuration("could not encode the Clever token request")
        }
        return TransportRequest(
            method: "POST",
            url: baseURL.appendingPathComponent(tokenPath),
            headers: [
                ("Authorization", basicAuthorization(clientID: clientID)),
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            body: body
        )
    }

    /// Reads the token answer: 200 `{"access_token", "token_type"}` (seed 004 step 5; RFC 6749
    /// §5.1 makes both required).
    /// - Throws: `.tokenEndpoint` for any 4xx, with the server's `error` (RFC 6749 §5.2: the code
    ///   or the client was refused; the login is over either way), `.serverError` for 5xx
    ///   (whatever the body), `.invalidResponse` for a body that is not JSON (truncated included)
    ///   or lacks either field, a redirect (never followed), or any other status.
    static func token(from response: TransportResponse, secrets: [String]) throws -> CleverToken {
        let status = response.status
        let json = JSONValue.parse(response.body)
        let serverText = json.flatMap { $0.oauthErrorText(secrets: secrets) }
        switch status {
        case 200..<300:
            guard let json, json.objectValue != nil else {
                throw OAuthError.invalidResponse("the Clever token response is not a JSON object", status: status)
            }
            guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else {
                throw OAuthError.invalidResponse("the Clever token response has no access_token", status: status)
            }
            guard let tokenType = json["token_type"]?.stringValue, !tokenType.isEmpty else {
                throw OAuthError.invalidResponse("the Clever token response has no token_type", status: status)
            }
            return CleverToken(accessToken: accessToken, tokenType: tokenType)
        case 300..<400:
            throw OAuthError.unexpectedRedirect(status: status)
        case 400..<500:
            throw OAuthError.tokenEndpoint(serverText ?? "the Clever token endpoint refused the request", status: status)
        case 500..<600:
            throw OAuthError.serverError(serverText ?? "the Clever token endpoint failed", status: status)
        default:
            throw OAuthError.invalidResponse("the Clever token endpoint answered with an unexpected status", status: status)
        }
    }
}
