import Foundation

/// The data a ``FakeBraintreeConnect`` starts from: the merchant backend's OAuth credentials,
/// the merchants who may connect, and where the backend sends them back in the app.
public struct BraintreeFixture: Sendable, Equatable {
    /// A Braintree merchant who logs in on the connect page and approves or declines.
    public struct Merchant: Sendable, Equatable {
        /// The merchant id, returned as `merchantId` and `merchant_id`.
        public var id: String
        /// Compared case-insensitively, as email logins usually are.
        public var email: String
        /// Compared exactly.
        public var password: String

        public init(id: String, email: String, password: String) {
            self.id = id
            self.email = email
            self.password = password
        }
    }

    /// The merchant backend's OAuth client id; it appears in the connect URL.
    public var clientID: String
    /// The merchant backend's client secret, held server-side only (seed 002: the
    /// client-side flow "avoids exposing your client_secret"). The backend refuses any
    /// request that carries it: a device must never hold it.
    public var clientSecret: String
    public var merchants: [Merchant]
    /// The app's custom return URL, `examplescheme://braintree` (seed 002's URL scheme) or the
    /// reverse-domain `com.example.merchantapp:/braintree` (RFC 8252 §7.1); the backend
    /// appends `/connected?merchant_id=M` or `/failed?error=E`.
    public var returnURL: String
    /// Seconds an authorization code lives. DECISION: the seed is silent; 5 minutes, as the
    /// other fakes.
    public var codeLifetime: TimeInterval = 300
    /// Seconds the connect page (its `request_id`) stays usable.
    public var loginRequestLifetime: TimeInterval = 600
    /// Connect URLs the merchant's backend hands out verbatim, one per request in this order,
    /// before it goes back to building its own: a misconfigured or compromised backend (a
    /// clear-text `http://` URL to a remote host, a custom-scheme URL) whose URL the app must
    /// refuse to open. No state is remembered for them, so the callback would refuse one anyway.
    public var backendConnectURLs: [String]

    public init(
        clientID: String,
        clientSecret: String,
        merchants: [Merchant],
        returnURL: String,
        codeLifetime: TimeInterval = 300,
        loginRequestLifetime: TimeInterval = 600,
        backendConnectURLs: [String] = []
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.merchants = merchants
        self.returnURL = returnURL
        self.codeLifetime = codeLifetime
        self.loginRequestLifetime = loginRequestLifetime
        self.backendConnectURLs = backendConnectURLs
    }
}
