import Foundation
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// A `MoltinClient` against the real `FakeMoltin`, with an in-memory store and a manual clock
/// shared by client and fake; socket-free or over loopback; with `deadline`, through a
/// `DeadlineTransport` on that clock, as the harness wires it.
///
/// ```swift
/// let world = try MoltinWorld(mode: .loopback)
/// let token = try await world.authenticate()
/// world.server.inject(Fault(kind: .serverError, path: FakeMoltin.productsPath, times: 1))
/// #expect(world.productsRequests.count == 0)
/// ```
struct MoltinWorld {
    static let clientID = "client-id-1234"
    /// A secret the tutorial's URL-host encoding would mangle (seed 003 defect).
    static let clientSecret = "s3cr&t=+ é/€"
    static let fixture = MoltinFixture(
        clients: [.init(id: clientID, secret: clientSecret)],
        products: [.init(id: "1001", title: "Moltin T-shirt", price: 1000), .init(id: "1002", title: "Mug", price: 800)]
    )

    let mode: FakeTransportMode
    let clock: ManualClock
    let moltin: FakeMoltin
    let server: FakeProviderServer
    let wiring: WorldWiring
    let watch: ExchangeWatch
    let store: InMemoryTokenStore
    let client: MoltinClient

    /// - Parameters:
    ///   - rawAnswers: Puts a `RawAnswers` slot in front of the fake (see `raw`).
    ///   - foreign: Puts a `ForeignTransport` in front of the connection.
    init(
        mode: FakeTransportMode = .socketFree,
        deadline: TimeInterval? = nil,
        rawAnswers: Bool = false,
        foreign: Bool = false,
        store: InMemoryTokenStore = InMemoryTokenStore()
    ) throws {
        let clock = ManualClock()
        let watch = ExchangeWatch()
        let stalled = Gate("stall began")
        let moltin = FakeMoltin(fixture: Self.fixture)
        let server = FakeProviderServer(
            provider: moltin, now: { clock.now }, observer: { watch.observe($0) }, stallObserver: { _ in stalled.open() })
        let wiring = try WorldWiring.connect(
            server, mode: mode, rawAnswers: rawAnswers, stalled: stalled, clock: clock, deadline: deadline, foreign: foreign)
        try self.init(mode: mode, clock: clock, moltin: moltin, server: server, wiring: wiring, watch: watch, store: store)
    }

    private init(
        mode: FakeTransportMode, clock: ManualClock, moltin: FakeMoltin, server: FakeProviderServer,
        wiring: WorldWiring, watch: ExchangeWatch, store: InMemoryTokenStore
    ) throws {
        self.mode = mode
        self.clock = clock
        self.moltin = moltin
        self.server = server
        self.wiring = wiring
        self.watch = watch
        self.store = store
        client = MoltinClient(
            configuration: try MoltinConfiguration(baseURL: wiring.connection.baseURL),
            transport: wiring.transport,
            store: store,
            clock: clock
        )
    }

    /// A second client on the same store, fake and clock, as after an app restart: the token
    /// survives, the in-memory credentials do not.
    func relaunched() throws -> MoltinWorld {
        try MoltinWorld(mode: mode, clock: clock, moltin: moltin, server: server, wiring: wiring, watch: watch, store: store)
    }

    @discardableResult
    func authenticate() async throws -> StoredToken {
        try await client.auth(clientId: Self.clientID, clientSecret: Self.clientSecret)
    }

    var storedBytes: Data? {
        get throws { try store.read(MoltinConfiguration.storeKey) }
    }

    /// The transport tap: what the SDK handed over, and hooks before a request goes on.
    var tap: TransportTap { wiring.tap }

    /// The raw-answer slot; only in a world made with `rawAnswers: true`.
    var raw: RawAnswers? { wiring.raw }

    // MARK: What the fake received

    var requests: [HTTPRequest] { server.exchanges.map(\.request) }

    var tokenRequests: [HTTPRequest] { requests.filter { $0.path == FakeMoltin.tokenPath } }

    var productsRequests: [HTTPRequest] { requests.filter { $0.path == FakeMoltin.productsPath } }

    func tokenRequests(grant: String) -> [HTTPRequest] {
        tokenRequests.filter { $0.formField("grant_type") == grant }
    }

    /// The `n`th access token the fake issued, from 1.
    func issuedToken(_ n: Int) -> String? {
        let issued = moltin.issuedSecrets
        return issued.indices.contains(n - 1) ? issued[n - 1] : nil
    }
}
