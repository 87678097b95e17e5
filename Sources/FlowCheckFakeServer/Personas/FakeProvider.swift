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
}
