import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec

/// The fake providers standalone, for `flowcheck serve`: point a simulator build of a mobile
/// app, or any HTTP tool, at them. Each provider gets its own loopback server.
public final class FakeProviderHost: @unchecked Sendable {
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
        /// Connections served at once on each port; more are answered 503 and closed.
        public var maxConnections: Int

        public init(keepExchanges: Int = 1_000, maxRecordedBodyBytes: Int = 64 * 1024, maxConnections: Int = 128) {
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
    private let redactor: HostRedactor
    private var worlds: [FakeWorld] = []

    /// - Parameters:
    ///   - fixtures: the providers to serve, in order.
    ///   - providers: the kits the fixtures belong to.
    ///   - now: the time the fakes read (the executable passes the wall clock).
    ///   - options: what each provider keeps and how many connections it serves at once.
    ///   - log: receives one redacted line per exchange, on the connection's thread: it must
    ///     not block (the executable hands it to a ``LogQueue``).
    public init(fixtures: [(Provider, any ProviderFixture)], providers: [any ProviderKit] = ProviderRegistry.kits, now: @escaping @Sendable () -> Date, options: Options = Options(), log: @escaping @Sendable (String) -> Void) {
        self.fixtures = fixtures
        self.providers = providers
        self.now = now
        self.options = options
        self.log = log
        redactor = HostRedactor(fixtureSecrets: fixtures.flatMap { $0.1.secrets })
    }

    /// Starts every provider: on `firstPort`, `firstPort + 1`, ... in order (a provider with
    /// two origins takes two ports), or on ephemeral ports when `firstPort` is 0.
    /// - Throws: when a port cannot be bound (the ones already started are stopped).
    public func start(firstPort: Int = 0) throws -> [Endpoint] {
        var endpoints: [Endpoint] = []
        let limits = HTTPServerLimits(maxConnections: options.maxConnections)
        let recording = RecordingBounds(keepLast: options.keepExchanges, maxBodyBytes: options.maxRecordedBodyBytes)
        do {
            var offset = 0
            for (provider, fixture) in fixtures {
                let log = self.log
                let redactor = self.redactor
                let kit = try providers.registeredKit(for: provider)
                let port = firstPort == 0 ? 0 : firstPort + offset
                offset += kit.origins.count
                let world = try FakeWorld(kit: kit, fixture: fixture, now: now, port: port, limits: limits, recording: recording) { exchange in
                    // Structure first (bodies, Authorization, query), then every secret known now.
                    let head = Transcript.render(exchange).split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
                    log(ControlCharacters.escaped(redactor.scrub("\(provider.rawValue)  \(head)")))
                }
                redactor.follow(world.server)
                worlds.append(world)
                endpoints.append(Endpoint(provider: provider, baseURL: world.server.baseURL, baseURLs: world.server.baseURLs))
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
        worlds.indices.contains(position) ? worlds[position].server.exchanges : []
    }

    /// Stops every provider. Idempotent.
    public func stop() {
        for world in worlds { world.stop() }
        worlds = []
    }

    /// The documented default fixture of `flowcheck serve` (README, "Serving the fakes"):
    /// every registered provider's own default.
    public static var defaultFixtureJSON: String { ProviderRegistry.defaultServeFixtures }
}
