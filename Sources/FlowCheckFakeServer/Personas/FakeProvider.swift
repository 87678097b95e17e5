import Foundation

/// A provider persona: pure request-to-response logic over its own state, driven by a
/// virtual clock so expiry can be tested without waiting.
public protocol FakeProvider: AnyObject, Sendable {
    /// Short identifier used in reports, e.g. "moltin".
    var name: String { get }
    /// Answers `request` as the provider would at time `now`.
    func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse
    /// Every token, code or other credential the fake has issued so far (for redaction in reports).
    var issuedSecrets: [String] { get }
    /// The origins (listeners) the provider serves on, primary first. Most providers have one,
    /// ``FakeOrigin/main``; Clover splits its login pages and its API over two hosts.
    static var origins: [String] { get }
    /// The origin that serves `path`; a request for it arriving on another origin is refused
    /// with 404, as a real provider's other host would.
    func origin(serving path: String) -> String
    /// When the access token `token`, one this fake issued, stops being valid (the moment the
    /// client was told), or nil for a token it did not issue or one without an expiry. The
    /// harness judges INV-EXPIRED by it.
    func accessTokenExpiry(_ token: String) -> Date?
}

/// Origin names shared by the fakes.
public enum FakeOrigin {
    /// The one origin of a provider that serves everything on one host.
    public static let main = "main"
}

extension FakeProvider {
    public static var origins: [String] { [FakeOrigin.main] }
    public func origin(serving path: String) -> String { Self.origins[0] }
    public func accessTokenExpiry(_ token: String) -> Date? { nil }
}
