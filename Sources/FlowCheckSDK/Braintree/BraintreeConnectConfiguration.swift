import Foundation

/// What `BraintreeConnect` needs: where the merchant's own backend hands out the connect URL, and
/// the app URL that backend sends the merchant back to.
///
/// Seed 002, "iOS OAuth sequence": the client-side flow "avoids exposing your client_secret"; the
/// backend holds the secret, creates the access token, "then redirects the merchant to a URL that
/// is captured by a custom URL scheme in your app". So nothing here is secret.
public struct BraintreeConnectConfiguration: Sendable {
    /// The merchant's own backend endpoint that hands out the connect URL (seed 002: "a connect
    /// URL retrieved from your server"). `GET` with `Accept: application/json`, answering
    /// `{"connectURL": "..."}`.
    public var connectURLEndpoint: URL

    /// Where the backend sends the merchant back: the app's custom URL. Either a bare scheme with
    /// a host, `"examplescheme://braintree"`, or the RFC 8252 §7.1 reverse-domain form,
    /// `"com.example.merchantapp:/braintree"`. Connected/failed URLs are this plus `"/connected"`
    /// or `"/failed"` (one trailing `/` here is ignored).
    public var returnURL: String

    /// Which connect URLs the backend may hand out (and which endpoints are accepted): https, or
    /// http to loopback, unless you have reason to differ.
    public var urlPolicy: BaseURLPolicy

    /// Creates a configuration.
    /// - Parameters:
    ///   - connectURLEndpoint: The backend endpoint handing out the connect URL; https, or http
    ///     to loopback.
    ///   - returnURL: The app's custom URL the backend returns to; needs a scheme, and carries no
    ///     query or fragment (the connected/failed URLs extend its path).
    ///   - urlPolicy: Which endpoint and connect URLs are accepted; ``BaseURLPolicy/standard``.
    /// - Throws: `OAuthError` `.configuration` when `returnURL` has no scheme (or a query or a
    ///   fragment), or when the endpoint is plain `http://` to a host that is not loopback, uses
    ///   another scheme or has no host (`BaseURLPolicy`).
    public init(connectURLEndpoint: URL, returnURL: String, urlPolicy: BaseURLPolicy = .standard) throws {
        self.connectURLEndpoint = connectURLEndpoint
        self.returnURL = returnURL
        self.urlPolicy = urlPolicy
        try urlPolicy.check(connectURLEndpoint)
        _ = try BraintreeReturnURL(returnURL)
    }

    /// True when the return URL's scheme is reverse-domain (contains a `.`), as RFC 8252 §7.1
    /// asks of private-use schemes: a scheme based on a domain name the app's publisher controls,
    /// in reverse order (`com.example.merchantapp`), so another app is unlikely to claim it too.
    ///
    /// Seed 002's `examplescheme` falls short of that: any app can register it, and iOS picks
    /// one of the claimants when two do. It is accepted, not refused, because that is what the
    /// seed documents; the returned URL carries only a merchant ID, never a token, so a hijacked
    /// return leaks no credential, but a reverse-domain scheme is the better choice.
    public var usesReverseDomainScheme: Bool {
        guard let scheme = URL(string: returnURL)?.scheme else { return false }
        return scheme.contains(".")
    }
}
