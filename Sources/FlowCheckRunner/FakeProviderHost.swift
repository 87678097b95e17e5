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

    private let fixtures: [(Provider, any ProviderFixture)]
    private let providers: [any ProviderKit]
    private let now: @Sendable () -> Date
    private let log: @Sendable (String) -> Void
    private var worlds: [FakeWorld] = []

    /// - Parameters:
    ///   - fixtures: the providers to serve, in order.
    ///   - providers: the kits the fixtures belong to.
    ///   - now: the time the fakes read (the executable passes the wall clock).
    ///   - log: receives one redacted line per exchange.
    public init(fixtures: [(Provider, any ProviderFixture)], providers: [any ProviderKit] = ProviderRegistry.kits, now: @escaping @Sendable () -> Date, log: @escaping @Sendable (String) -> Void) {
        self.fixtures = fixtures
        self.providers = providers
        self.now = now
        self.log = log
    }

    /// Starts every provider: on `firstPort`, `firstPort + 1`, ... in order (a provider with
    /// two origins takes two ports), or on ephemeral ports when `firstPort` is 0.
    /// - Throws: when a port cannot be bound (the ones already started are stopped).
    public func start(firstPort: Int = 0) throws -> [Endpoint] {
        var endpoints: [Endpoint] = []
        do {
            var offset = 0
            for (provider, fixture) in fixtures {
                let box = WorldBox()
                let log = self.log
                let secrets = fixture.secrets
                let kit = try providers.registeredKit(for: provider)
                let port = firstPort == 0 ? 0 : firstPort + offset
                offset += kit.origins.count
                let world = try FakeWorld(kit: kit, fixture: fixture, now: now, port: port) { exchange in
                    // Structure first (bodies, Authorization, query), then every secret known now.
                    let redactor = Redactor(secrets: secrets + (box.world?.server.issuedSecrets ?? []))
                    let head = Transcript.render(exchange).split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
                    log(ControlCharacters.escaped(redactor.scrub("\(provider.rawValue)  \(head)")))
                }
                box.world = world
                worlds.append(world)
                endpoints.append(Endpoint(provider: provider, baseURL: world.server.baseURL, baseURLs: world.server.baseURLs))
            }
        } catch {
            stop()
            throw error
        }
        return endpoints
    }

    /// Stops every provider. Idempotent.
    public func stop() {
        for world in worlds { world.stop() }
        worlds = []
    }

    /// Lets an exchange observer reach the world it belongs to, which exists only after start.
    private final class WorldBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: FakeWorld?
        var world: FakeWorld? {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; lock.unlock() }
        }
    }

    /// The documented default fixture of `flowcheck serve` (README, "Serving the fakes"):
    /// every registered provider's own default.
    public static var defaultFixtureJSON: String { ProviderRegistry.defaultServeFixtures }
}
