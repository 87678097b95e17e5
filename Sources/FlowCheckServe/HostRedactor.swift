import Foundation
import FlowCheckFakeServer
import FlowCheckRunner

/// The one redactor of a ``FakeProviderHost``: every provider's fixture secrets, by name, and
/// everything any of them has issued, by its shape (``MintedSecret``), masked on every port.
///
/// It keeps no string per issued secret: a host that has issued a million tokens masks a line
/// at the cost of one that has issued none, with memory that does not grow, and a token the
/// fakes have long forgotten is still masked when a client sends it again.
final class HostRedactor: Sendable {
    private let redactor: Redactor

    init(fixtureSecrets: [String]) {
        redactor = Redactor(secrets: fixtureSecrets, recognising: { MintedSecret.spans(in: $0) })
    }

    /// `text` with every fixture secret and every secret this process issued masked.
    func scrub(_ text: String) -> String {
        redactor.scrub(text)
    }
}
