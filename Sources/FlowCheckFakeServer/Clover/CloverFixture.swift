import Foundation

/// The data a ``FakeClover`` starts from: which apps exist, which merchants installed them,
/// which employees may log in, and how long each credential lives. Plain values so a spec
/// file can describe it.
///
/// The three parties mirror seed 000 ("A Clover merchant ... Must have your Clover app
/// installed"; "An employee ... Is tied to a merchant as an employee").
public struct CloverFixture: Sendable, Equatable {
    /// A Clover app as registered on Developer Home.
    public struct App: Sendable, Equatable {
        /// The App ID, sent as `client_id`.
        public var id: String
        /// The App Secret. A PKCE (low-trust) client must never send it; the fake refuses it.
        public var secret: String
        /// Every `redirect_uri` must lie under this URL (seed 000: "The redirect URI must have
        /// the same base as the site URL configured for your Clover app").
        public var siteURL: String

        public init(id: String, secret: String, siteURL: String) {
            self.id = id
            self.secret = secret
            self.siteURL = siteURL
        }
    }

    /// A merchant and the apps installed on it.
    public struct Merchant: Sendable, Equatable {
        /// The merchant ID, as in `GET /v3/merchants/{mId}`.
        public var id: String
        public var name: String
        /// App IDs installed on this merchant; logging in for any other app is refused.
        public var installedApps: [String]

        public init(id: String, name: String, installedApps: [String]) {
            self.id = id
            self.name = name
            self.installedApps = installedApps
        }
    }

    /// An employee who logs in on the OAuth page with email and password.
    public struct Employee: Sendable, Equatable {
        /// Compared case-insensitively, as email logins usually are.
        public var email: String
        /// Compared exactly.
        public var password: String
        /// The merchant this employee works for; one that names no fixture merchant makes
        /// every login of this employee fail with 403.
        public var merchantID: String

        public init(email: String, password: String, merchantID: String) {
            self.email = email
            self.password = password
            self.merchantID = merchantID
        }
    }

    public var apps: [App]
    public var merchants: [Merchant]
    public var employees: [Employee]
    /// Seconds an access token lives; seed 000: "Tokens need to be refreshed every 30 minutes".
    public var accessTokenLifetime: TimeInterval = 1800
    /// Seconds a refresh token lives. DECISION: the seeds are silent; 30 days.
    public var refreshTokenLifetime: TimeInterval = 2_592_000
    /// Seconds an authorization code lives. DECISION: RFC 6749 §4.1.2 recommends at most
    /// 10 minutes; 5 is short enough that a test moving the clock notices.
    public var codeLifetime: TimeInterval = 300
    /// Seconds the login page (its `request_id`) stays usable after authorize.
    public var loginRequestLifetime: TimeInterval = 600

    public init(
        apps: [App],
        merchants: [Merchant],
        employees: [Employee],
        accessTokenLifetime: TimeInterval = 1800,
        refreshTokenLifetime: TimeInterval = 2_592_000,
        codeLifetime: TimeInterval = 300,
        loginRequestLifetime: TimeInterval = 600
    ) {
        self.apps = apps
        self.merchants = merchants
        self.employees = employees
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.codeLifetime = codeLifetime
        self.loginRequestLifetime = loginRequestLifetime
    }
}
