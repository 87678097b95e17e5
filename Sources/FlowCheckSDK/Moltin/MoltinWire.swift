import Foundation

/// The Moltin wire contract: endpoint paths, form fields and headers (seed 003, "Overview of the
/// Moltin API").
enum MoltinWire {
    /// `POST {base}/oauth/access_token` for every grant.
    static let tokenPath = "oauth/access_token"

    /// `GET {base}/v1/products`, the tutorial's example resource.
    static let productsPath = "v1/products"

    /// "Tokens are valid for an hour" (seed 003, "Token Storage"): the lifetime assumed when the
    /// token response names none.
    static let defaultLifetime: TimeInterval = 3600

    /// The `client_credentials` grant. Field order is fixed because the fake server checks it.
    static func clientCredentialsFields(_ credentials: ClientCredentials) -> [(String, String)] {
        [
            ("grant_type", "client_credentials"),
            ("client_id", credentials.clientId),
            ("client_secret", credentials.clientSecret),
        ]
    }

    /// The `refresh_token` grant. Moltin issues no refresh token, and the tutorial says
    /// "`refresh_token` should have the value of the previously expired token" (seed 003,
    /// "Refreshing a token"), so the access token stands in when there is no refresh token.
    static func refreshFields(_ credentials: ClientCredentials, token: StoredToken) -> [(String, String)] {
        [
            ("grant_type", "refresh_token"),
            ("client_id", credentials.clientId),
            ("client_secret", credentials.clientSecret),
            ("refresh_token", token.refreshToken ?? token.accessToken),
        ]
    }

    static func tokenRequest(baseURL: URL, fields: [(String, String)]) throws -> TransportRequest {
        try BaseURLPolicy.validate(baseURL)
        return TransportRequest(
            method: "POST",
            url: baseURL.appendingPathComponent(tokenPath),
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
            ],
            body: Data(FormURLEncoding.encode(fields).utf8)
        )
    }

    /// The products request; without a token it carries no `Authorization` header at all (the
    /// tutorial sends `Bearer ` with an empty token), and Moltin answers 400.
    static func productsRequest(baseURL: URL, accessToken: String?) throws -> TransportRequest {
        try BaseURLPolicy.validate(baseURL)
        var headers = [("Accept", "application/json")]
        if let accessToken {
            headers.append(("Authorization", "Bearer \(accessToken)"))
        }
        return TransportRequest(method: "GET", url: baseURL.appendingPathComponent(productsPath), headers: headers)
    }
}
