import Foundation
import FlowCheckFakeServer
import FlowCheckSpec
import FlowCheckTestSupport

/// The other side of one flow: the provider's fake behind a real loopback server.
final class FakeWorld: @unchecked Sendable {
    let server: FakeProviderServer
    private let moltin: FakeMoltin?
    private let clover: FakeClover?
    private let clever: FakeClever?
    private let braintree: FakeBraintreeConnect?

    /// Builds the fake for the spec's provider from its fixture and starts it.
    /// - Throws: when the server cannot listen.
    convenience init(spec: FlowSpec, clock: ManualClock) throws {
        try self.init(fixture: spec.fixture, now: { clock.now }, advanceClock: { clock.advance(by: $0) })
    }

    /// How far the virtual clock moves while the server stalls a request (a `stall` fault's
    /// `clockAdvance`), so the SDK's timeout on that clock fires with no real waiting.
    private let stallAdvance: Locked<TimeInterval?>

    /// Builds the fake for a fixture's provider and starts it.
    /// - Parameters:
    ///   - now: the fake's time (a flow's virtual clock; the wall clock for `flowcheck serve`).
    ///   - port: 0 for an ephemeral port.
    ///   - observer: told of every exchange.
    init(fixture: Fixture, now: @escaping @Sendable () -> Date, advanceClock: (@Sendable (TimeInterval) -> Void)? = nil, port: Int = 0, observer: (@Sendable (RecordedExchange) -> Void)? = nil) throws {
        let advance = Locked<TimeInterval?>(nil)
        stallAdvance = advance
        let stallObserver: @Sendable (HTTPRequest) -> Void = { _ in
            if let seconds = advance.withLock({ $0 }) { advanceClock?(seconds) }
        }
        switch fixture {
        case .moltin(let fixture):
            let provider = FakeMoltin(fixture: MoltinFixture(
                clients: fixture.clients.map { MoltinFixture.Client(id: $0.id, secret: $0.secret) },
                products: fixture.products.map { $0.map { MoltinFixture.Product(id: $0.id, title: $0.title, price: $0.price) } }
                    ?? MoltinFixture.defaultProducts,
                tokenLifetime: TimeInterval(fixture.tokenLifetime ?? 3600)
            ))
            (moltin, clover, clever, braintree) = (provider, nil, nil, nil)
            server = FakeProviderServer(provider: provider, now: now, observer: observer, stallObserver: stallObserver)
        case .clover(let fixture):
            var world = CloverFixture(
                apps: fixture.apps.map { CloverFixture.App(id: $0.id, secret: $0.secret, siteURL: $0.siteURL) },
                merchants: fixture.merchants.map { CloverFixture.Merchant(id: $0.id, name: $0.name, installedApps: $0.installedApps) },
                employees: fixture.employees.map { CloverFixture.Employee(email: $0.email, password: $0.password, merchantID: $0.merchant) }
            )
            if let lifetime = fixture.accessTokenLifetime { world.accessTokenLifetime = TimeInterval(lifetime) }
            if let lifetime = fixture.refreshTokenLifetime { world.refreshTokenLifetime = TimeInterval(lifetime) }
            if let lifetime = fixture.codeLifetime { world.codeLifetime = TimeInterval(lifetime) }
            let provider = FakeClover(fixture: world)
            (moltin, clover, clever, braintree) = (nil, provider, nil, nil)
            server = FakeProviderServer(provider: provider, now: now, observer: observer, stallObserver: stallObserver)
        case .clever(let fixture):
            let provider = FakeClever(fixture: CleverFixture(
                clients: fixture.clients.map { CleverFixture.Client(id: $0.id, redirectURL: $0.redirectURL) },
                users: fixture.users.map { CleverFixture.User(email: $0.email, password: $0.password) }
            ))
            (moltin, clover, clever, braintree) = (nil, nil, provider, nil)
            server = FakeProviderServer(provider: provider, now: now, observer: observer, stallObserver: stallObserver)
        case .braintree(let fixture):
            let provider = FakeBraintreeConnect(fixture: BraintreeFixture(
                clientID: fixture.clientID, clientSecret: fixture.clientSecret,
                merchants: fixture.merchants.map { BraintreeFixture.Merchant(id: $0.id, email: $0.email, password: $0.password) },
                returnURL: fixture.returnURL
            ))
            (moltin, clover, clever, braintree) = (nil, nil, nil, provider)
            server = FakeProviderServer(provider: provider, now: now, observer: observer, stallObserver: stallObserver)
        }
        try server.start(port: port)
    }

    /// Runs a server-side operation named in a spec.
    func perform(_ operation: String) throws {
        switch operation {
        case "revokeTokens":
            moltin?.revokeAllTokens()
            clover?.revokeAllTokens()
            clever?.revokeAllTokens()
            braintree?.revokeAllTokens()
        default:
            throw DriverError("unknown server operation \(operation)")
        }
    }

    /// Tells the server to misbehave as a spec asks.
    func inject(_ fault: FaultSpec) throws {
        guard let kind = FaultKind(rawValue: fault.kind) else { throw DriverError("unknown fault \(fault.kind)") }
        if let seconds = fault.clockAdvance { stallAdvance.withLock { $0 = TimeInterval(seconds) } }
        server.inject(Fault(kind: kind, path: fault.path, times: fault.times))
    }

    /// Ends every fault; the server must be listening again afterwards.
    func clearFaults() throws {
        stallAdvance.withLock { $0 = nil }
        server.clearFaults()
        if let error = server.listenerError {
            throw DriverError("the fake server could not listen again after its faults were cleared: \(error)")
        }
    }

    func stop() {
        server.stop()
    }
}
