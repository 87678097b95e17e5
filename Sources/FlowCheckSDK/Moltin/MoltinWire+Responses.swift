import Foundation

extension MoltinWire {
    /// How a products response ended.
    enum ProductsOutcome: Sendable {
        case products([MoltinProduct])
        /// The server refused the token it was sent (RFC 6750 §3.1): worth one recovery.
        case tokenRejected(OAuthError)
        case failure(OAuthError)
    }

    /// The error text Moltin sends for an expired or unknown token (seed 003, "Using an expired
    /// token").
    static let invalidTokenMessage = "access token is not valid"

    /// Reads a token endpoint answer.
    ///
    /// Unlike the tutorial (seed 003, `Moltin.auth`), a parse failure is not overwritten by the
    /// error-body check, and nothing here touches the store: the caller saves only on success.
    /// - Throws: `.serverError` for 5xx (whatever the body: a proxy's HTML page too),
    ///   `.httpStatus` for 429 (RFC 6585 §4: slow down, no verdict on the grant, so the renewal
    ///   does not fall back to another grant and hit the rate-limited server again),
    ///   `.tokenEndpoint` with the server's message for other refusals, `.invalidResponse` for a
    ///   body without a usable token (truncated JSON included) and for a redirect, never followed.
    static func token(from response: TransportResponse, now: Date, secrets: [String]) throws -> StoredToken {
        let status = response.status
        let json = JSONValue.parse(response.body)
        let serverText = json?.errorMessage.map { Redaction.serverMessage($0, secrets: secrets) }
        switch status {
        case 200..<300:
            guard let json, json.objectValue != nil else {
                throw OAuthError.invalidResponse("the token response is not a JSON object", status: status)
            }
            guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else {
                let detail = serverText.map { ": \($0)" } ?? ""
                throw OAuthError.invalidResponse("the token response has no access_token\(detail)", status: status)
            }
            let expiresAt: Date
            if let expires = json["expires"]?.numberValue {
                expiresAt = Date(timeIntervalSince1970: expires)
            } else if let expiresIn = json["expires_in"]?.numberValue {
                expiresAt = now.addingTimeInterval(expiresIn)
            } else {
                expiresAt = now.addingTimeInterval(defaultLifetime)
            }
            return StoredToken(
                accessToken: accessToken,
                tokenType: json["token_type"]?.stringValue ?? "Bearer",
                expiresAt: expiresAt,
                refreshToken: json["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                scope: json["scope"]?.stringValue
            )
        case 300..<400:
            throw OAuthError.unexpectedRedirect(status: status)
        case 500..<600:
            throw OAuthError.serverError(serverText ?? "the token endpoint failed", status: status)
        case 429:
            throw OAuthError.httpStatus(serverText ?? "the token endpoint asked the client to slow down", status: status)
        case 400..<500:
            throw OAuthError.tokenEndpoint(serverText ?? "the token endpoint refused the request", status: status)
        default:
            throw OAuthError.invalidResponse("the token endpoint answered with an unexpected status", status: status)
        }
    }

    /// Reads a products answer.
    /// - Parameters:
    ///   - response: The server's answer.
    ///   - sentToken: Whether the request carried a token; only then can a refusal be a token
    ///     rejection rather than Moltin's plain 400 "Access token is required".
    ///   - secrets: Values to scrub from server text.
    static func productsOutcome(from response: TransportResponse, sentToken: Bool, secrets: [String]) -> ProductsOutcome {
        let status = response.status
        let json = JSONValue.parse(response.body)
        let rawServerText = json?.errorMessage
        let serverText = rawServerText.map { Redaction.serverMessage($0, secrets: secrets) }
        switch status {
        case 200..<300:
            do {
                return .products(try products(from: json, status: status))
            } catch let error as OAuthError {
                return .failure(error)
            } catch {
                return .failure(OAuthError.invalidResponse("the products response could not be read", status: status))
            }
        case 300..<400:
            // Before the refusal branch: a redirect is no verdict on the token, so no recovery.
            return .failure(OAuthError.unexpectedRedirect(status: status))
        case 500..<600:
            return .failure(OAuthError.serverError(serverText ?? "the products request failed on the server", status: status))
        default:
            let saysInvalidToken = rawServerText?.lowercased() == invalidTokenMessage
                || (response.header("WWW-Authenticate")?.contains("invalid_token") ?? false)
            if sentToken && (status == 401 || saysInvalidToken) {
                return .tokenRejected(OAuthError.tokenRejected(serverText ?? "the access token was rejected", status: status))
            }
            return .failure(OAuthError.httpStatus(serverText ?? "the products request was refused", status: status))
        }
    }

    /// `{"status":true,"result":[{"id":...,"title":...}, ...]}`.
    private static func products(from json: JSONValue?, status: Int) throws -> [MoltinProduct] {
        guard let json else {
            throw OAuthError.invalidResponse("the products response is not JSON", status: status)
        }
        guard let items = json["result"]?.arrayValue else {
            throw OAuthError.invalidResponse("the products response has no result list", status: status)
        }
        return try items.map { item in
            guard let id = item["id"]?.identifierValue, let title = item["title"]?.stringValue else {
                throw OAuthError.invalidResponse("a product in the response has no id or title", status: status)
            }
            return MoltinProduct(id: id, title: title)
        }
    }
}
