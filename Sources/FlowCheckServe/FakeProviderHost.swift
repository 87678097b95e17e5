import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec

/// The fake providers standalone, for `flowcheck serve`: point a simulator build of a mobile
/// app, or any HTTP tool, at them. Each provider gets its own loopback server.
public final class FakeProviderHost: Sendable {
    /// A running provider and where it listens.
    public struct Endpoint: Sendable {
        public var provider: Provider
        /// The primary origin's.
        public var baseURL: URL
        /// Every origin by name (Clover: `api`, the primary, and `web`, its login pages).
        public var baseURLs: [String: URL] = [:]
    }

    /// What a host keeps and accepts, so it can run for days (`flowcheck serve`'s options).
    public struct Options: Sendable, Equatable {
        /// Exchanges each provider keeps, the latest (``RecordingBounds/keepLast``).
        public var keepExchanges: Int
        /// Longest body kept in a recorded exchange, in bytes.
        public var maxRecordedBodyBytes: Int
        /// Connections served at once on each port (``HTTPServerLimits/maxConnections``); nil:
        /// each port's share of the process's descriptors (``ConnectionCap``).
        public var maxConnections: Int?

        public init(keepExchanges: Int = 1_000, maxRecordedBodyBytes: Int = 64 * 1024, maxConnections: Int? = nil) {
            self.keepExchanges = keepExchanges
            self.maxRecordedBodyBytes = maxRecordedBodyBytes
            self.maxConnections = maxConnections
        }
    }

    private let fixtures: [(Provider, any ProviderFixture)]
    private let providers: [any ProviderKit]
    private let now: @Sendable () -> Date
    private let log: @Sendable (String) -> Void
    private let options: Options
    private let derivedCap = Locked<Int?>(nil)
    /// The host's one redactor, for the log and the control API: every provider's fixture
    /// secrets by name, and everything any fake issued by its shape (``MintedSecret``), so it
    /// keeps nothing per issued secret and masks a token on every port, even one the fakes
    /// have long forgotten.
    private let redactor: Redactor

    /// What `start` and `stop` change, and the control API reads from its connections' threads.
    private struct State {
        var worlds: [FakeWorld] = []
        var served: [(provider: Provider, world: FakeWorld, fixtureSecrets: [String])] = []
        var advanceClock: (@Sendable (TimeInterval) -> Void)?
    }

    private let state = Locked(State())

    /// `text` with every secret of every provider masked: the fixtures' and whatever any of
    /// them has issued, whichever port it was sent to (the log's one redactor).
    func redacted(_ text: String) -> String {
        redactor.scrub(text)
    }

    /// Each started provider with its world and fixture secrets, for ``ServeControl``.
    var served: [(provider: Provider, world: FakeWorld, fixtureSecrets: [String])] {
        state.withLock { $0.served }
    }

    /// Moves `now` (a `stall` fault's `clockAdvance`); set before `start`; nil on the wall clock.
    public var advanceClock: (@Sendable (TimeInterval) -> Void)? {
        get { state.withLock { $0.advanceClock } }
        set { state.withLock { $0.advanceClock = newValue } }
    }

    /// - Parameters:
    ///   - fixtures: the providers to serve, in order.
    ///   - providers: the kits the fixtures belong to.
    ///   - now: the time the fakes read (the executable passes the wall clock).
    ///   - options: what each provider keeps and how many connections it serves at once.
    ///   - log: receives one redacted line per exchange, on the thread serving the connection (the event loop's on Linux): it must
    ///     not block (the executable hands it to a ``LogQueue``).
    public init(fixtures: [(Provider, any ProviderFixture)], providers: [any ProviderKit] = ProviderRegistry.kits, now: @escaping @Sendable () -> Date, options: Options = Options(), log: @escaping @Sendable (String) -> Void) {
        self.fixtures = fixtures
        self.providers = providers
        self.now = now
        self.options = options
        self.log = log
        redactor = Redactor(secrets: fixtures.flatMap { $0.1.secrets }, recognising: { MintedSecret.spans(in: $0) })
    }

    /// How many ports ``start(firstPort:address:)`` binds: one per origin of every provider
    /// served (two for Braintree's, for one).
    ///
    /// (See ``maxConnectionsPerPort`` for what each of them takes.)
    public var portsNeeded: Int {
        fixtures.reduce(0) { count, fixture in count + ((try? providers.registeredKit(for: fixture.0))?.origins.count ?? 1) }
    }

    /// Connections each port takes at once: the option's, or each port's share of the
    /// process's descriptors, the control port counted (``ConnectionCap``), computed once.
    public var maxConnectionsPerPort: Int {
        if let chosen = options.maxConnections { return chosen }
        return derivedCap.withLock { cap in
            if let cap { return cap }
            let derived = ConnectionCap.perPort(ports: portsNeeded + 1)
            cap = derived
            return derived
        }
    }

    /// Starts every provider: on `firstPort`, `firstPort + 1`, ... in order (a provider with
    /// two origins takes two ports), or on ephemeral ports when `firstPort` is 0.
    /// - Parameter address: where every provider binds (loopback unless `serve --host`).
    /// - Throws: when a port cannot be bound (the ones already started are stopped).
    public func start(firstPort: Int = 0, address: BindAddress = .loopback) throws -> [Endpoint] {
        var endpoints: [Endpoint] = []
        let limits = HTTPServerLimits(maxConnections: maxConnectionsPerPort)
        let recording = RecordingBounds(keepLast: options.keepExchanges, maxBodyBytes: options.maxRecordedBodyBytes)
        do {
            var offset = 0
            for (provider, fixture) in fixtures {
                let log = self.log
                let redactor = self.redactor
                let kit = try providers.registeredKit(for: provider)
                let port = firstPort == 0 ? 0 : firstPort + offset
                offset += kit.origins.count
                // `GET /` lists the fake's endpoints and accounts (ServeIndexProvider).
                let directory = (kit as? any ServeDirectoryProviding)?.serveDirectory(for: fixture)
                var index: (any FakeProvider & BaseURLSettable)?
                let front: ((any FakeProvider) -> any FakeProvider)? = directory.map { directory in
                    { persona in
                        let wrapped = indexed(persona, provider: provider.rawValue, directory: directory)
                        index = wrapped
                        return wrapped
                    }
                }
                let world = try FakeWorld(kit: kit, fixture: fixture, now: now, advanceClock: advanceClock, port: port, address: address, front: front, limits: limits, recording: recording) { exchange in
                    // Structure first (the query's sensitive values), then every fixture secret and
                    // anything a fake issued.
                    let head = Transcript.head(exchange)
                    log(ControlCharacters.escaped(redactor.scrub("\(provider.rawValue)  \(head)")))
                }
                let baseURLs = world.server.baseURLs.mapValues { Self.reachable($0, bound: address) }
                index?.setBaseURLs(baseURLs)
                let secrets = fixture.secrets
                state.withLock { state in
                    state.worlds.append(world)
                    state.served.append((provider, world, secrets))
                }
                endpoints.append(Endpoint(provider: provider, baseURL: Self.reachable(world.server.baseURL, bound: address), baseURLs: baseURLs))
            }
        } catch {
            stop()
            throw error
        }
        return endpoints
    }

    /// The recorded exchanges of the provider at `position` in the fixtures, the latest
    /// ``Options/keepExchanges`` of them.
    public func exchanges(ofProviderAt position: Int) -> [RecordedExchange] {
        let worlds = state.withLock { $0.worlds }
        return worlds.indices.contains(position) ? worlds[position].server.exchanges : []
    }

    /// Stops every provider. Idempotent.
    public func stop() {
        for world in state.withLock({ $0.worlds }) { world.stop() }
        state.withLock { state in
            state.worlds = []
            state.served = []
        }
    }

    /// `url` (a server's 127.0.0.1 URL) as a client reaches it when the server binds `address`:
    /// unchanged for loopback and 0.0.0.0 (every interface, loopback included), with the
    /// address as host otherwise.
    private static func reachable(_ url: URL, bound address: BindAddress) -> URL {
        guard !address.isAny, address != .loopback, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.host = address.description
        return components.url ?? url
    }

    /// ``start(firstPort:address:)`` on the IPv4 address `host` names (`serve --host`).
    /// - Throws: when `host` is not an IPv4 address, or a port cannot be bound.
    public func start(firstPort: Int = 0, host: String) throws -> [Endpoint] {
        guard let address = BindAddress(host) else { throw DriverError("\(host) is not an IPv4 address") }
        return try start(firstPort: firstPort, address: address)
    }

    /// Whether `host` binds loopback only (127.0.0.0/8): no warning is due.
    public static func isLoopbackHost(_ host: String) -> Bool {
        BindAddress(host)?.isLoopback ?? false
    }

    /// Whether `text` is an IPv4 address `start(address:)` can bind (`serve --host`).
    public static func isBindableHost(_ text: String) -> Bool {
        BindAddress(text) != nil
    }

    /// The documented default fixture of `flowcheck serve` (docs/serve.md):
    /// every registered provider's own default.
    public static var defaultFixtureJSON: String { ProviderRegistry.defaultServeFixtures }
}
