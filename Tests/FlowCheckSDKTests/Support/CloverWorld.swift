import Foundation
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// A `CloverPaymentSDK` against the real `FakeClover` (web and API host on one base URL), with
/// a recording browser, an in-memory store, a manual clock shared with the fake and a pinned
/// random source; socket-free or over loopback; with `deadline`, through a `DeadlineTransport`.
///
/// The employee's part in the browser is played by `FakeBrowserUser` on the fake's login page;
/// the app's own login (Partial OAuth) and token (No OAuth) go through the fake's endpoints too,
/// on the connection, not through the SDK's transport, so `tap.requests` is the SDK's alone.
///
/// ```swift
/// let world = try CloverWorld()
/// try await world.logInWithFullOAuth()
/// #expect(world.merchantRequests.isEmpty)
/// ```
struct CloverWorld {
    static let appID = "CLVAPP7Q2K"
    /// A secret that would show up (raw or encoded) if the SDK ever sent it.
    static let appSecret = "app-s3cr&t=+ é"
    static let apiKey = "api-key-4f1c9e"
    static let apiSecret = "api-s3cret-77ab"
    static let merchantID = "MERCH0001"
    static let merchantName = "Bean There Café"
    static let otherMerchantID = "MERCH0002"
    static let siteURL = "https://app.example.com/clover"
    static let redirectURI = "https://app.example.com/clover/callback"
    static let employee = (email: "barista@example.com", password: "pw-barista-1")
    static let otherEmployee = (email: "owner@example.net", password: "pw-owner-2")
    static let fixture = CloverFixture(
        apps: [.init(id: appID, secret: appSecret, siteURL: siteURL)],
        merchants: [
            .init(id: merchantID, name: merchantName, installedApps: [appID]),
            .init(id: otherMerchantID, name: "Other Shop", installedApps: [appID]),
        ],
        employees: [
            .init(email: employee.email, password: employee.password, merchantID: merchantID),
            .init(email: otherEmployee.email, password: otherEmployee.password, merchantID: otherMerchantID),
        ]
    )

    let mode: FakeTransportMode
    let clock: ManualClock
    let clover: FakeClover
    let server: FakeProviderServer
    let wiring: WorldWiring
    let watch: ExchangeWatch
    let store: InMemoryTokenStore
    let browser: RecordingUserAgent
    let random: PinnedRandomSource
    let sdk: CloverPaymentSDK

    init(
        mode: FakeTransportMode = .socketFree,
        deadline: TimeInterval? = nil,
        rawAnswers: Bool = false,
        foreign: Bool = false,
        random: PinnedRandomSource = PinnedRandomSource()
    ) throws {
        let clock = ManualClock()
        let watch = ExchangeWatch()
        let stalled = Gate("stall began")
        let clover = FakeClover(fixture: Self.fixture)
        let server = FakeProviderServer(
            provider: clover, now: { clock.now }, observer: { watch.observe($0) }, stallObserver: { _ in stalled.open() })
        let wiring = try WorldWiring.connect(
            server, mode: mode, rawAnswers: rawAnswers, stalled: stalled, clock: clock, deadline: deadline, foreign: foreign)
        self.init(mode: mode, clock: clock, clover: clover, server: server, wiring: wiring, watch: watch,
                  store: InMemoryTokenStore(), browser: RecordingUserAgent(), random: random)
    }

    private init(
        mode: FakeTransportMode, clock: ManualClock, clover: FakeClover, server: FakeProviderServer, wiring: WorldWiring,
        watch: ExchangeWatch, store: InMemoryTokenStore, browser: RecordingUserAgent, random: PinnedRandomSource
    ) {
        self.mode = mode
        self.clock = clock
        self.clover = clover
        self.server = server
        self.wiring = wiring
        self.watch = watch
        self.store = store
        self.browser = browser
        self.random = random
        sdk = CloverPaymentSDK(store: store, transport: wiring.transport, userAgent: browser, clock: clock, random: random)
    }

    /// A new SDK instance on the same store, fake and clock, as after an app restart (with a
    /// fresh browser): the session survives, a pending login does not.
    func relaunched() -> CloverWorld {
        CloverWorld(mode: mode, clock: clock, clover: clover, server: server, wiring: wiring, watch: watch,
                    store: store, browser: RecordingUserAgent(), random: PinnedRandomSource(seed: 99))
    }

    /// The transport tap: what the SDK itself sent, and hooks before a request goes on.
    var tap: TransportTap { wiring.tap }

    /// The raw-answer slot; only in a world made with `rawAnswers: true`.
    var raw: RawAnswers? { wiring.raw }

    // MARK: Configurations

    var baseURL: URL { wiring.connection.baseURL }
    /// The login host: the fake's web origin over loopback, or the one socket-free address
    /// (which reaches every origin).
    var webBaseURL: URL {
        wiring.connection.baseURL == server.baseURL ? server.baseURLs["web"] ?? baseURL : baseURL
    }

    func configuration(_ flow: any OAuthFlowType) throws -> CloverConfiguration {
        try CloverConfiguration(
            environment: .custom(web: webBaseURL, api: baseURL),
            appID: Self.appID,
            appSecret: Self.appSecret,
            apiKey: Self.apiKey,
            apiSecret: Self.apiSecret,
            oauthFlowType: flow
        )
    }

    var full: CloverConfiguration {
        get throws { try configuration(FullOAuth(redirectURI: Self.redirectURI)) }
    }

    func partial(_ response: OAuthCodeResponse?) throws -> CloverConfiguration {
        try configuration(PartialOAuth(codeResponse: response))
    }

    func none(_ token: String, merchantID: String = CloverWorld.merchantID) throws -> CloverConfiguration {
        try configuration(NoOAuth(token: token, merchantID: merchantID))
    }

    var merchant: CloverMerchant { CloverMerchant(id: Self.merchantID, name: Self.merchantName) }

    // MARK: The people and the app

    /// The employee on the fake's login page: logs in (or denies) and returns the redirect.
    /// - Throws: `FakeBrowserUser.Stopped` when the fake refuses at authorize.
    func authorize(_ url: URL, deny: Bool = false, as account: (email: String, password: String) = CloverWorld.employee) async throws -> URL {
        let user = FakeBrowserUser(transport: wiring.connection.transport)
        return try await user.complete(url, deny ? .deny : .logIn(email: account.email, password: account.password))
    }

    /// `setup(FullOAuth)` on an empty store, the employee logs in, the redirect is handed over:
    /// the whole first launch of seed 001 steps 2 to 6, minus the second `setup`.
    func logInWithFullOAuth() async throws {
        let outcome = try await sdk.setup(configuration: try full)
        guard outcome == .loginStarted, let url = browser.openedURLs.last else {
            throw FakeBrowserUser.Stopped(status: 0, description: "setup did not open the browser")
        }
        try await sdk.receivedOAuthCodeOrToken(try await authorize(url))
    }

    /// The app's own login for Partial OAuth: PKCE with the SDK's helper, the employee logs in
    /// on the fake, and the code comes back on the app's redirect URI.
    func appLogin(seed: UInt64 = 500, as account: (email: String, password: String) = CloverWorld.employee) async throws -> OAuthCodeResponse {
        let pkce = CloverPaymentSDK.makeCodeChallenge(random: PinnedRandomSource(seed: seed))
        let redirect = try await authorize(authorizeURL(challenge: pkce.challenge), as: account)
        guard let code = redirect.queryParameter("code"), let merchantID = redirect.queryParameter("merchant_id") else {
            throw FakeBrowserUser.Stopped(status: 0, description: "no code in \(redirect.path)")
        }
        return OAuthCodeResponse(code: code, codeVerifier: pkce.verifier, merchantID: merchantID)
    }

    /// The app's own token for No OAuth: its own login and code exchange on the fake.
    func mintAccessToken(as account: (email: String, password: String) = CloverWorld.employee, seed: UInt64 = 600) async throws -> String {
        let login = try await appLogin(seed: seed, as: account)
        let body = try JSONSerialization.data(withJSONObject: ["client_id": Self.appID, "code": login.code, "code_verifier": login.codeVerifier])
        let response = try await wiring.connection.transport.send(TransportRequest(
            method: "POST", url: baseURL.appendingPathComponent("oauth/v2/token"),
            headers: [("Content-Type", "application/json")], body: body))
        guard let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let token = object["access_token"] as? String
        else { throw FakeBrowserUser.Stopped(status: response.status, description: "no access token") }
        return token
    }

    private func authorizeURL(challenge: String) throws -> URL {
        let query = FlowCheckSDK.FormURLEncoding.encode([
            ("client_id", Self.appID), ("redirect_uri", Self.redirectURI), ("response_type", "code"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("state", "app-own-state"),
        ])
        return URL(string: webBaseURL.absoluteString + FakeClover.authorizePath + "?" + query)!
    }

    // MARK: What the fake received and issued

    var requests: [HTTPRequest] { server.exchanges.map(\.request) }

    var tokenRequests: [HTTPRequest] { requests.filter { $0.path == FakeClover.tokenPath } }

    var refreshRequests: [HTTPRequest] { requests.filter { $0.path == FakeClover.refreshPath } }

    var merchantRequests: [HTTPRequest] { requests.filter { $0.path.hasPrefix(FakeClover.merchantsPrefix) } }

    /// Every access/refresh pair the fake issued, in order, from its recorded answers.
    var issuedPairs: [(access: String, refresh: String)] {
        server.exchanges.compactMap { exchange in
            guard exchange.request.path == FakeClover.tokenPath || exchange.request.path == FakeClover.refreshPath,
                  exchange.response.status == 200, let fields = exchange.response.jsonFields(),
                  let access = fields["access_token"], let refresh = fields["refresh_token"]
            else { return nil }
            return (access, refresh)
        }
    }

    /// The status the fake's refresh endpoint gives `token` now (the probe is recorded, and
    /// spends a live token: call it last).
    func refreshStatus(_ token: String) -> Int {
        let body = Data(#"{"client_id":"\#(Self.appID)","refresh_token":"\#(token)"}"#.utf8)
        return server.responder.respond(to: HTTPRequest(
            method: "POST", target: FakeClover.refreshPath, headers: [("Content-Type", "application/json")], body: body)).status
    }

    /// The latest authorization URL's query, decoded, in order.
    func lastAuthorizeQuery() -> [(String, String)]? {
        browser.openedURLs.last?.queryParameters
    }

    func lastAuthorizeParameter(_ name: String) -> String? {
        lastAuthorizeQuery()?.first { $0.0 == name }?.1
    }

    var session: CloverStoredSession? {
        get async throws { try await sdk.storedSession() }
    }

    /// The session in the store right now, read synchronously (for a watcher).
    var storedSessionNow: CloverStoredSession? {
        (try? store.read(CloverPaymentSDK.storeKey)).flatMap { $0 }
            .flatMap { try? JSONDecoder.unixSeconds.decode(CloverStoredSession.self, from: $0) }
    }
}

extension JSONDecoder {
    /// A decoder for what the SDK stores: dates in Unix seconds.
    static var unixSeconds: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
