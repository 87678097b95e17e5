import Foundation
import FlowCheckFakeServer
import FlowCheckRunner

/// The one redactor of a ``FakeProviderHost``: every provider's fixture secrets and everything
/// any of them has issued, masked on every port. Secrets are added as they are issued, so a
/// line costs the same to mask after ten thousand tokens as after one.
final class HostRedactor: @unchecked Sendable {
    private let lock = NSLock()
    private var redactor: Redactor
    /// Each started provider's server and how many of its issued secrets are already added.
    private var sources: [(server: FakeProviderServer, added: Int)] = []

    init(fixtureSecrets: [String]) {
        redactor = Redactor(secrets: fixtureSecrets)
    }

    /// Starts following what `server` issues.
    func follow(_ server: FakeProviderServer) {
        lock.lock()
        sources.append((server, 0))
        lock.unlock()
    }

    /// `text` with every secret known now masked: anything a provider issued before the
    /// exchange being logged was answered is known.
    func scrub(_ text: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        for index in sources.indices {
            let issued = sources[index].server.issuedSecrets
            guard issued.count > sources[index].added else { continue }
            redactor.add(Array(issued[sources[index].added...]))
            sources[index].added = issued.count
        }
        return redactor.scrub(text)
    }
}
