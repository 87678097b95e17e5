import Foundation
import FlowCheckSDK
import FlowCheckTestSupport

/// A `CloverPaymentSDK` wired to a `StubClover`, a recording browser, an in-memory store, a
/// manual clock and a pinned random source, with the harness's usual moves as helpers; with
/// `deadline`, through a `DeadlineTransport` on that clock.
struct CloverFixture {
    let clock: ManualClock
    let server: StubClover
    let store: InMemoryTokenStore
    let browser: RecordingUserAgent
    let random: PinnedRandomSource
    let sdk: CloverPaymentSDK

    init(
        store: InMemoryTokenStore = InMemoryTokenStore(),
        clock: ManualClock = ManualClock(),
        server: StubClover? = nil,
        browser: RecordingUserAgent = RecordingUserAgent(),
        random: PinnedRandomSource = PinnedRandomSource(),
        deadline: TimeInterval? = nil
    ) {
        self.clock = clock
        self.server = server ?? StubClover(clock: clock)
        self.store = store
        self.browser = browser
        self.random = random
        let server = self.server
        let transport: any HTTPTransport = deadline.map { DeadlineTransport(base: server, clock: clock, timeout: $0) } ?? server
        sdk = CloverPaymentSDK(store: store, transport: transport, userAgent: browser, clock: clock, random: random)
    }

    /// A new SDK instance on the same store, server and clock, as after an app restart (with a
    /// fresh browser): the session survives, a pending login does not.
    func relaunched() -> CloverFixture {
        CloverFixture(store: store, clock: clock, server: server, random: PinnedRandomSource(seed: 99))
    }

    static func configuration(_ flow: any OAuthFlowType) throws -> CloverConfiguration {
        try CloverConfiguration(
            environment: .custom(web: StubClover.webBase, api: StubClover.apiBase),
            appID: StubClover.appID,
            appSecret: StubClover.appSecret,
            apiKey: StubClover.apiKey,
            apiSecret: StubClover.apiSecret,
            oauthFlowType: flow
        )
    }

    static var full: CloverConfiguration {
        get throws { try configuration(FullOAuth(redirectURI: StubClover.redirectURI)) }
    }

    static func partial(_ response: OAuthCodeResponse?) throws -> CloverConfiguration {
        try configuration(PartialOAuth(codeResponse: response))
    }

    static func none(_ token: String, merchantID: String = StubClover.merchantID) throws -> CloverConfiguration {
        try configuration(NoOAuth(token: token, merchantID: merchantID))
    }

    /// `setup(FullOAuth)` on an empty store, the employee logs in, the redirect is handed over:
    /// the whole first launch of seed 001 steps 2 to 6, minus the second `setup`.
    func logInWithFullOAuth() async throws {
        let outcome = try await sdk.setup(configuration: try Self.full)
        guard outcome == .loginStarted, let url = browser.openedURLs.last else {
            throw StubClover.AuthorizeRefusal(reason: "setup did not open the browser")
        }
        try await sdk.receivedOAuthCodeOrToken(try server.authorize(url))
    }

    /// The latest authorization URL's query, decoded, in order.
    func lastAuthorizeQuery() -> [(String, String)]? {
        guard let url = browser.openedURLs.last else { return nil }
        return FormURLEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
    }

    func lastAuthorizeParameter(_ name: String) -> String? {
        lastAuthorizeQuery()?.first { $0.0 == name }?.1
    }

    var session: CloverStoredSession? {
        get async throws { try await sdk.storedSession() }
    }
}

/// Counts calls from any thread; for token-change callbacks.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    /// A callback that counts.
    var callback: @Sendable () -> Void {
        { [self] in self.increment() }
    }
}

extension URL {
    /// `self` with its query replaced by `parameters`, form-encoded in order.
    func replacingQuery(_ parameters: [(String, String)]) -> URL {
        var text = absoluteString
        if let index = text.firstIndex(of: "?") {
            text = String(text[..<index])
        }
        return URL(string: text + (parameters.isEmpty ? "" : "?" + FormURLEncoding.encode(parameters)))!
    }

    /// The decoded query parameters, in order.
    var queryParameters: [(String, String)] {
        FormURLEncoding.decode(URLComponents(url: self, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
    }
}
