import Foundation

extension CloverWire {
    /// Reads a token or refresh answer into a session for `merchantID`.
    ///
    /// 200 `{"access_token", "access_token_expiration", "refresh_token",
    /// "refresh_token_expiration"}` with Unix-second expiries. Nothing here touches the store: the
    /// caller saves only on success.
    /// - Throws: `.tokenEndpoint` for 400 and 401 (RFC 6749 §5.2: the grant or client was
    ///   refused), `.httpStatus` for other 4xx (e.g. 429: not a verdict on the grant),
    ///   `.serverError` for 5xx (whatever the body), `.invalidResponse` for a body without a usable
    ///   token (truncated JSON included), a redirect (never followed) or any other status. For a
    ///   refresh, all but `.tokenEndpoint` are transient: the session is kept.
    static func session(from response: TransportResponse, merchantID: String, now: Date, secrets: [String]) throws -> CloverStoredSession {
        let status = response.status
        let json = JSONValue.parse(response.body)
        let serverText = json.flatMap { oauthErrorText($0, secrets: secrets) }
        switch status {
        case 200..<300:
            guard let json, json.objectValue != nil else {
                throw OAuthError.invalidResponse("the token response is not a JSON object", status: status)
            }
            guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else {
                throw OAuthError.invalidResponse("the token response has no access_token", status: status)
            }
            let accessExpiry = json["access_token_expiration"]?.numberValue.map(Date.init(timeIntervalSince1970:))
                ?? now.addingTimeInterval(defaultAccessTokenLifetime)
            return CloverStoredSession(
                accessToken: accessToken,
                accessTokenExpiration: accessExpiry,
                refreshToken: json["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                refreshTokenExpiration: json["refresh_token_expiration"]?.numberValue.map(Date.init(timeIntervalSince1970:)),
                merchantID: merchantID
            )
        case 300..<400:
            throw OAuthError.unexpectedRedirect(status: status)
        case 400, 401:
            throw OAuthError.tokenEndpoint(serverText ?? "the token endpoint refused the request", status: status)
        case 402..<500:
            throw OAuthError.httpStatus(serverText ?? "the token endpoint refused the request", status: status)
        case 500..<600:
            throw OAuthError.serverError(serverText ?? "the token endpoint failed", status: status)
        default:
            throw OAuthError.invalidResponse("the token endpoint answered with an unexpected status", status: status)
        }
    }

    /// Reads a merchant answer: 200 `{"id", "name"}`.
    /// - Throws: `.tokenRejected` for 401 (RFC 6750 §3.1: the token is not valid for this
    ///   merchant), `.serverError` for 5xx (whatever the body), `.httpStatus` for any other
    ///   refusal, `.invalidResponse` for a body without an id and a name (truncated JSON included)
    ///   and for a redirect, never followed.
    static func merchant(from response: TransportResponse, secrets: [String]) throws -> CloverMerchant {
        let status = response.status
        let json = JSONValue.parse(response.body)
        let serverText = json.flatMap { oauthErrorText($0, secrets: secrets) }
        switch status {
        case 200..<300:
            guard let json, let id = json["id"]?.identifierValue, !id.isEmpty, let name = json["name"]?.stringValue else {
                throw OAuthError.invalidResponse("the merchant response has no id or name", status: status)
            }
            return CloverMerchant(id: id, name: name)
        case 300..<400:
            throw OAuthError.unexpectedRedirect(status: status)
        case 401:
            throw OAuthError.tokenRejected(serverText ?? "the access token was rejected", status: status)
        case 500..<600:
            throw OAuthError.serverError(serverText ?? "the merchant request failed on the server", status: status)
        default:
            throw OAuthError.httpStatus(serverText ?? "the merchant request was refused", status: status)
        }
    }

    /// `error: error_description` (RFC 6749 §5.2), either alone, or another provider-style
    /// message; sanitised and scrubbed of `secrets`.
    static func oauthErrorText(_ json: JSONValue, secrets: [String]) -> String? {
        let code = json["error"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let detail = json["error_description"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let text: String?
        switch (code, detail) {
        case let (code?, detail?): text = "\(code): \(detail)"
        case let (code?, nil): text = code
        default: text = json.errorMessage
        }
        return text.map { Redaction.serverMessage($0, secrets: secrets) }
    }
}
