import Foundation
import FlowCheckFakeServer
import FlowCheckSpec
import FlowCheckTestSupport

/// The other side of one flow: the provider's fake behind a real loopback server.
final class FakeWorld: @unchecked Sendable {
    let server: FakeProviderServer
    private let moltin: FakeMoltin?

    /// Builds the fake for the spec's provider from its fixture and starts it.
    /// - Throws: when the server cannot listen.
    init(spec: FlowSpec, clock: ManualClock) throws {
        switch spec.fixture {
        case .moltin(let fixture):
            let provider = FakeMoltin(fixture: MoltinFixture(
                clients: fixture.clients.map { MoltinFixture.Client(id: $0.id, secret: $0.secret) },
                products: fixture.products.map { $0.map { MoltinFixture.Product(id: $0.id, title: $0.title, price: $0.price) } }
                    ?? MoltinFixture.defaultProducts,
                tokenLifetime: TimeInterval(fixture.tokenLifetime ?? 3600)
            ))
            moltin = provider
            server = FakeProviderServer(provider: provider, now: { clock.now })
        }
        try server.start()
    }

    /// Runs a server-side operation named in a spec.
    func perform(_ operation: String) throws {
        switch operation {
        case "revokeTokens":
            guard let moltin else { throw DriverError("revokeTokens needs the Moltin fake") }
            moltin.revokeAllTokens()
        default:
            throw DriverError("unknown server operation \(operation)")
        }
    }

    /// Tells the server to misbehave as a spec asks.
    func inject(_ fault: FaultSpec) throws {
        guard let kind = FaultKind(rawValue: fault.kind) else { throw DriverError("unknown fault \(fault.kind)") }
        server.inject(Fault(kind: kind, path: fault.path, times: fault.times))
    }

    func stop() {
        server.stop()
    }
}
