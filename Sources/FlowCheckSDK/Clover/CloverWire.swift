import Foundation

/// The Clover wire contract: endpoint paths, query parameters, JSON bodies and headers (seed 000
/// "OAuth Flow", flows.md "Clover Go SDK"; the low-trust PKCE variant of Clover's OAuth v2).
enum CloverWire {
    /// `GET {web}/oauth/v2/authorize`, opened in the browser, never fetched by the SDK.
    static let authorizePath = "oauth/v2/authorize"

    /// `POST {api}/oauth/v2/token`: code + verifier for the first token pair.
    static let tokenPath = "oauth/v2/token"

    /// `POST {api}/oauth/v2/refresh`: a refresh token for a new (rotated) pair.
    static let refreshPath = "oauth/v2/refresh"

    /// `GET {api}/v3/merchants/{mId}`.
    static let merchantsPath = "v3/merchants"

    /// "Tokens need to be refreshed every 30 minutes" (seed 000, "No OAuth"): the lifetime
    /// assumed when a token response names no `access_token_expiration`.
    static let defaultAccessTokenLifetime: TimeInterval = 30 * 60

    /// The authorization URL. Parameters in a fixed order (the fake server checks it), each
    /// form-encoded so `&`, `=`, `+` and spaces in a redirect URI survive.
    static func authorizeURL(webBaseURL: URL, appID: String, redirectURI: String, challenge: String, state: String) throws -> URL {
        try BaseURLPolicy.validate(webBaseURL)
        let query = FormURLEncoding.encode([
            ("client_id", appID),
            ("redirect_uri", redirectURI),
            ("response_type", "code"),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
            ("state", state),
        ])
        let endpoint = webBaseURL.appendingPathComponent(authorizePath)
        guard let url = URL(string: endpoint.absoluteString + "?" + query) else {
            throw OAuthError.configuration("could not build the authorization URL")
        }
        return url
    }

    /// The code exchange: JSON `{"client_id", "code", "code_verifier"}` and nothing else. No app
    /// secret: the low-trust flow proves possession with the verifier instead (RFC 7636 §4.5).
    static func tokenRequest(apiBaseURL: URL, appID: String, code: String, verifier: String) throws -> TransportRequest {
        try jsonPost(apiBaseURL: apiBaseURL, path: tokenPath, fields: [
            "client_id": appID,
            "code": code,
            "code_verifier": verifier,
        ])
    }

    /// The refresh: JSON `{"client_id", "refresh_token"}`.
    static func refreshRequest(apiBaseURL: URL, appID: String, refreshToken: String) throws -> TransportRequest {
        try jsonPost(apiBaseURL: apiBaseURL, path: refreshPath, fields: [
            "client_id": appID,
            "refresh_token": refreshToken,
        ])
    }

    /// `GET /v3/merchants/{mId}` with the Bearer token.
    static func merchantRequest(apiBaseURL: URL, merchantID: String, accessToken: String) throws -> TransportRequest {
        try BaseURLPolicy.validate(apiBaseURL)
        guard isUsableMerchantID(merchantID) else {
            throw OAuthError.configuration("the merchant ID is empty or not a path segment")
        }
        let collection = apiBaseURL.appendingPathComponent(merchantsPath).absoluteString
        guard let url = URL(string: collection + "/" + encodePathSegment(merchantID)) else {
            throw OAuthError.configuration("could not build the merchant URL")
        }
        return TransportRequest(
            method: "GET",
            url: url,
            headers: [("Accept", "application/json"), ("Authorization", "Bearer \(accessToken)")]
        )
    }

    /// Whether `merchantID` can name one path segment: not empty, not a dot segment (which a
    /// server would resolve to another resource, RFC 3986 §5.2.4).
    static func isUsableMerchantID(_ merchantID: String) -> Bool {
        !merchantID.isEmpty && merchantID != "." && merchantID != ".."
    }

    private static func jsonPost(apiBaseURL: URL, path: String, fields: [String: String]) throws -> TransportRequest {
        try BaseURLPolicy.validate(apiBaseURL)
        let encoder = JSONEncoder()
        // Sorted keys give the contract's order (client_id, code, code_verifier / refresh_token).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body: Data
        do {
            body = try encoder.encode(fields)
        } catch {
            throw OAuthError.configuration("could not encode the token request")
        }
        return TransportRequest(
            method: "POST",
            url: apiBaseURL.appendingPathComponent(path),
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: body
        )
    }

    /// RFC 3986 §3.3: unreserved characters as they are, every other UTF-8 byte as `%XX`, so a
    /// merchant ID from a redirect can never add a path segment or a query.
    private static func encodePathSegment(_ segment: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
