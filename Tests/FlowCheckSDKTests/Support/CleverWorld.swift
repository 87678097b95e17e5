import Foundation
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// A `CleverInstantLogin` against the real `FakeClever`, with a recording browser, an in-memory
/// store and a pinned random source; socket-free or over loopback; with `deadline`, through a
/// `DeadlineTransport` on `clock`. The user's part is played by `FakeBrowserUser`.
///
/// ```swift
/// let world = try CleverWorld()
/// let token = try await world.logIn()
/// #expect(world.tokenRequests.count == 1)
/// ```
struct CleverWorld {
    static let clientID = "cle-ios-1"
    static let redirectURI = "clever-cle1://oauth"
    static let user = (email: "teacher@example.com", password: "pw-teacher-1")

    static func fixture(clientID: String = clientID, registered: String = redirectURI) -> CleverFixture {
        CleverFixture(clients: [.init(id: clientID, redirectURL: registered)], users: [.init(email: user.email, password: user.password)])
    }

    let mode: FakeTransportMode
    let clever: FakeClever
    let server: FakeProviderServer
    let wiring: WorldWiring
    let store: InMemoryTokenStore
    let browser: RecordingUserAgent
    let random: any RandomSource
    let clock: ManualClock
    let login: CleverInstantLogin

    /// - Parameters:
    ///   - clientID: The client the SDK is configured with (and the fake registers).
    ///   - registered: The redirect URL the fake registers for it; the SDK always uses
    ///     `redirectURI`.
    init(
        mode: FakeTransportMode = .socketFree,
        clientID: String = CleverWorld.clientID,
        registered: String = CleverWorld.redirectURI,
        random: any RandomSource = PinnedRandomSource(),
        deadline: TimeInterval? = nil,
        rawAnswers: Bool = false,
        foreign: Bool = false
    ) throws {
        let clock = ManualClock()
        let stalled = Gate("stall began")
        let clever = FakeClever(fixture: Self.fixture(clientID: clientID, registered: registered))
        let server = FakeProviderServer(provider: clever, now: { clock.now }, stallObserver: { _ in stalled.open() })
        let wiring = try WorldWiring.connect(
            server, mode: mode, rawAnswers: rawAnswers, stalled: stalled, clock: clock, deadline: deadline, foreign: foreign)
        try self.init(mode: mode, clientID: clientID, clever: clever, server: server, wiring: wiring,
                      store: InMemoryTokenStore(), random: random, clock: clock)
    }

    private init(
        mode: FakeTransportMode, clientID: String, clever: FakeClever, server: FakeProviderServer, wiring: WorldWiring,
        store: InMemoryTokenStore, random: any RandomSource, clock: ManualClock
    ) throws {
        self.mode = mode
        self.clever = clever
        self.server = server
        self.wiring = wiring
        self.store = store
        self.browser = RecordingUserAgent()
        self.random = random
        self.clock = clock
        login = CleverInstantLogin(
            configuration: try CleverConfiguration(clientID: clientID, redirectURI: Self.redirectURI, baseURL: wiring.connection.baseURL),
            transport: wiring.transport,
            userAgent: browser,
            store: store,
            random: random
        )
    }

    /// A new instance on the same store and fake, as after an app restart: the token survives,
    /// a login in progress does not.
    func relaunched() throws -> CleverWorld {
        try CleverWorld(mode: mode, clientID: Self.clientID, clever: clever, server: server, wiring: wiring,
                        store: store, random: PinnedRandomSource(seed: 99), clock: clock)
    }

    var baseURL: URL { wiring.connection.baseURL }

    /// The transport tap: what the SDK itself sent.
    var tap: TransportTap { wiring.tap }

    /// The raw-answer slot; only in a world made with `rawAnswers: true`.
    var raw: RawAnswers? { wiring.raw }

    /// The user on the fake's page: logs in (or denies) and returns the redirect.
    func authorize(_ url: URL, deny: Bool = false) async throws -> URL {
        try await FakeBrowserUser(transport: wiring.connection.transport)
            .complete(url, deny ? .deny : .logIn(email: Self.user.email, password: Self.user.password))
    }

    /// `startLogin`, the user signs in, the redirect is handed over.
    @discardableResult
    func logIn() async throws -> CleverToken {
        let url = try await login.startLogin()
        return try await login.handleRedirect(try await authorize(url))
    }

    /// The `state` of the latest URL the browser opened.
    var lastState: String? {
        browser.openedURLs.last?.queryParameter("state")
    }

    var requests: [HTTPRequest] { server.exchanges.map(\.request) }

    var tokenRequests: [HTTPRequest] { requests.filter { $0.path == FakeClever.tokenPath } }

    /// The access tokens the fake issued, in order, from its recorded answers.
    var issuedTokens: [String] {
        server.exchanges.compactMap { exchange in
            guard exchange.request.path == FakeClever.tokenPath, exchange.response.status == 200 else { return nil }
            return exchange.response.jsonFields()?["access_token"]
        }
    }
}
