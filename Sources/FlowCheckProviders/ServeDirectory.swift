import Foundation
import FlowCheckSpec

/// What `GET /` on a provider's port of `flowcheck serve` lists, so a person can discover a
/// fake without reading its source: its endpoints and the fixture's accounts. It never holds
/// a secret (passwords and client secrets are left out, not masked).
public struct ServeDirectory: Sendable, Equatable {
    /// One route the fake answers.
    public struct Endpoint: Sendable, Equatable {
        public var method: String
        /// The path; `{mId}` marks a path parameter.
        public var path: String
        /// The origin (listener) that serves it: `main`, or Clover's `api` / `web`.
        public var origin: String
        public var summary: String

        public init(_ method: String, _ path: String, origin: String, _ summary: String) {
            self.method = method
            self.path = path
            self.origin = origin
            self.summary = summary
        }
    }

    /// One fixture account: its kind ("client", "user", "app", "merchant", "employee"), its
    /// id or user name, and facts about it that are not secret.
    public struct Account: Sendable, Equatable {
        public var kind: String
        public var id: String
        public var details: [String: String]

        public init(kind: String, id: String, details: [String: String] = [:]) {
            self.kind = kind
            self.id = id
            self.details = details
        }
    }

    public var endpoints: [Endpoint]
    public var accounts: [Account]

    public init(endpoints: [Endpoint], accounts: [Account]) {
        self.endpoints = endpoints
        self.accounts = accounts
    }
}

/// A provider kit that can describe its fake for `GET /`.
public protocol ServeDirectoryProviding {
    /// The fake's endpoints and `fixture`'s accounts; nil for another provider's fixture.
    func serveDirectory(for fixture: any ProviderFixture) -> ServeDirectory?
}
