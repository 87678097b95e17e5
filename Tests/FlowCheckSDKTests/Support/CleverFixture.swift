import Foundation
import FlowCheckSDK

/// A `CleverInstantLogin` wired to a `StubClever`, a recording browser, an in-memory store and a
/// pinned random source.
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
    let login: CleverInstantLogin

    init(
        clientID: String = StubClever.clientID,
        store: InMemoryTokenStore = InMemoryTokenStore(),
        server: StubClever? = nil,
        browser: RecordingUserAgent = RecordingUserAgent(),
        random: any RandomSource = PinnedRandomSource()
    ) throws {
        self.server = server ?? StubClever()
        self.store = store
        self.browser = browser
        self.random = random
        login = CleverInstantLogin(
            configuration: try CleverConfiguration(clientID: clientID, redirectURI: StubClever.redirectURI, baseURL: StubClever.base),
            transport: self.server,
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
