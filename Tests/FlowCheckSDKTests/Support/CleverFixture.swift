import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

/// A `CleverInstantLogin` wired to a `StubClever`, a recording browser, an in-memory store and a
/// pinned random source; with `deadline`, through a `DeadlineTransport` on `clock`.
///
/// ```swift
/// let fixture = try CleverFixture()
/// let token = try await fixture.logIn()
/// #expect(fixture.server.tokenRequests.count == 1)
/// ```
struct CleverFixture {
    let server: StubClever
    let store: InMemoryTokenStore
    let browser: RecordingUserAgent
    let random: any RandomSource
    let clock: ManualClock
    let login: CleverInstantLogin

    init(
        clientID: String = StubClever.clientID,
        store: InMemoryTokenStore = InMemoryTokenStore(),
        server: StubClever? = nil,
        browser: RecordingUserAgent = RecordingUserAgent(),
        random: any RandomSource = PinnedRandomSource(),
        clock: ManualClock = ManualClock(),
        deadline: TimeInterval? = nil
    ) throws {
        self.server = server ?? StubClever()
        self.store = store
        self.browser = browser
        self.random = random
        self.clock = clock
        let server = self.server
        let transport: any HTTPTransport = deadline.map { DeadlineTransport(base: server, clock: clock, timeout: $0) } ?? server
        login = CleverInstantLogin(
            configuration: try CleverConfiguration(clientID: clientID, redirectURI: StubClever.redirectURI, baseURL: StubClever.base),
            transport: transport,
            userAgent: browser,
            store: store,
            random: random
        )
    }

    /// A new instance on the same store and server, as after an app restart: the token survives,
    /// a login in progress does not.
    func relaunched() throws -> CleverFixture {
        try CleverFixture(store: store, server: server, random: PinnedRandomSource(seed: 99))
    }

    /// `startLogin`, the user signs in, the redirect is handed over.
    @discardableResult
    func logIn() async throws -> CleverToken {
        let url = try await login.startLogin()
        return try await login.handleRedirect(try server.authorize(url))
    }

    /// The `state` of the latest URL the browser opened.
    var lastState: String? {
        browser.openedURLs.last?.queryParameters.first { $0.0 == "state" }?.1
    }
}
