import Foundation

/// The data a ``FakeClever`` starts from: the applications' iOS platform credentials, the
/// users who may log in, and how long each credential lives. Plain values so a spec file can
/// describe it.
public struct CleverFixture: Sendable, Equatable {
    /// An application with the iOS platform enabled (seed 004, "Enabling Instant Login for
    /// native iOS applications": "a new custom Redirect URL and Client ID").
    public struct Client: Sendable, Equatable {
        /// The iOS platform client id, sent as `client_id` and as the Basic user name.
        public var id: String
        /// The custom redirect URL Clever registered for the iOS platform, e.g.
        /// `clever-cle1://oauth`. Authorize requires `redirect_uri` to equal it exactly.
        public var redirectURL: String

        public init(id: String, redirectURL: String) {
            self.id = id
            self.redirectURL = redirectURL
        }
    }

    /// A user who logs in on the Clever page with email and password.
    public struct User: Sendable, Equatable {
        /// Compared case-insensitively, as email logins usually are.
        public var email: String
        /// Compared exactly.
        public var password: String

        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }
    }

    public var clients: [Client]
    public var users: [User]
    /// Seconds an authorization code lives. DECISION: the seed is silent; RFC 6749 §4.1.2
    /// recommends at most 10 minutes, and 5 is short enough that a test moving the clock
    /// notices.
    public var codeLifetime: TimeInterval = 300
    /// Seconds the login page (its `request_id`) stays usable after authorize.
    public var loginRequestLifetime: TimeInterval = 600

    public init(clients: [Client], users: [User], codeLifetime: TimeInterval = 300, loginRequestLifetime: TimeInterval = 600) {
        self.clients = clients
        self.users = users
        self.codeLifetime = codeLifetime
        self.loginRequestLifetime = loginRequestLifetime
    }
}
