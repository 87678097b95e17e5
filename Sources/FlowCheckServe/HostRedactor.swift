import Foundation
import FlowCheckFakeServer
import FlowCheckRunner

/// The one redactor of a ``FakeProviderHost``: every provider's fixture secrets and everything
/// any of them has issued, masked on every port. Secrets are added as they are issued, so a
/// line costs the same to mask after ten thousand tokens as after one.
final class HostRedactor: Sendable {
    private struct State {
        var redactor: Redactor
        /// Each started provider's server and how many of its issued secrets are already added.
        var sources: [(server: FakeProviderServer, added: Int)] = []
    }

    private let state: Locked<State>

    init(fixtureSecrets: [String]) {
        state = Locked(State(redactor: Redactor(secrets: fixtureSecrets)))
    }

    /// Starts following what `server` issues.
    func follow(_ server: FakeProviderServer) {
        state.withLock { $0.sources.append((server, 0)) }
    }

    /// `text` with every secret known now masked: anything a provider issued before the
    /// exchange being logged was answered is known.
    func scrub(_ text: String) -> String {
        state.withLock { state in
            for index in state.sources.indices {
                let issued = state.sources[index].server.issuedSecrets
                guard issued.count > state.sources[index].added else { continue }
                state.redactor.add(Array(issued[state.sources[index].added...]))
                state.sources[index].added = issued.count
            }
            return state.redactor.scrub(text)
        }
    }
}
