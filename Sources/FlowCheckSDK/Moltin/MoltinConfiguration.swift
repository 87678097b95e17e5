import Foundation

/// Where a `MoltinClient` talks to and how early it renews tokens.
public struct MoltinConfiguration: Sendable {
    /// The API root; endpoint paths (`oauth/access_token`, `v1/products`) are appended to it.
    /// Production is `https://api.molt.in/`; tests use `http://127.0.0.1:PORT`.
    public var baseURL: URL

    /// Seconds before expiry from which a token is renewed before use: the client refreshes when
    /// `now >= expiresAt - refreshMargin`, so a token never expires on its way to the server.
    public var refreshMargin: TimeInterval

    /// The longest `Retry-After` (on a 429 or 503) the client waits out on its clock before
    /// sending the request once more (RFC 9110 §10.2.3, RFC 6585 §4). 0, the default: never
    /// wait; the call ends with the error at once and the app decides when to try again. Either
    /// conforms; a retry never comes before the time the server named.
    public var retryAfterLimit: TimeInterval = 0

    /// Creates a configuration.
    /// - Parameters:
    ///   - baseURL: The API root. Must be `https://`, or `http://` to a loopback host
    ///     (`localhost`, `127.0.0.0/8`, `::1`) for local fake servers.
    ///   - refreshMargin: Seconds before expiry to renew; defaults to 60.
    /// - Throws: `OAuthError` `.configuration` for a non-loopback `http://` URL, another scheme, a
    ///   missing host, or a negative or non-finite margin.
    public init(baseURL: URL, refreshMargin: TimeInterval = 60) throws {
        try BaseURLPolicy.validate(baseURL)
        guard refreshMargin.isFinite, refreshMargin >= 0 else {
            throw OAuthError.configuration("the refresh margin must be a non-negative number of seconds")
        }
        self.baseURL = baseURL
        self.refreshMargin = refreshMargin
    }

    private init(knownGoodBaseURL: URL, refreshMargin: TimeInterval) {
        self.baseURL = knownGoodBaseURL
        self.refreshMargin = refreshMargin
    }

    /// The production API, `https://api.molt.in/` (seed 003, "Obtaining a new token"), with the
    /// default 60-second margin.
    public static let production = MoltinConfiguration(
        knownGoodBaseURL: URL(string: "https://api.molt.in/")!,
        refreshMargin: 60
    )

    /// The `TokenStore` key under which the client keeps its token.
    public static let storeKey = "moltin.token"
}
