/// The SDK runs the whole login: it opens the Clover login page in the browser and exchanges the
/// code that comes back (seed 000, "Full OAuth": "the SDK takes care of managing the OAuth process
/// for you").
public struct FullOAuth: OAuthFlowType, Equatable {
    /// Where Clover sends the browser after login, with `merchant_id`, `client_id`, `code` and
    /// `state`. Must have the same base as the Clover app's site URL (seed 001) and be routed to
    /// the app (associated domain or custom scheme); the app passes what arrives there to
    /// `CloverPaymentSDK.receivedOAuthCodeOrToken`.
    public var redirectURI: String

    /// Creates the flow type.
    /// - Parameter redirectURI: The redirect URI, an absolute URL.
    public init(redirectURI: String) {
        self.redirectURI = redirectURI
    }
}
