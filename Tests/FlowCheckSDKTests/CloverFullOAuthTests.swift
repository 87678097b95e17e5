import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-FULL-1 to CLV-FULL-9 against the real `FakeClover`; the employee logs in on its page.
@Suite("Clover Full OAuth", .integration, .timeLimit(.minutes(20)))
struct CloverFullOAuthTests {
    /// CLV-FULL-1: the whole first launch of seed 001, steps 1 to 6, socket-free and over loopback.
    @Test("first launch: browser, redirect, one exchange with the verifier, callback once, second setup ready",
          arguments: FakeTransportMode.allCases)
    func firstLaunch(_ mode: FakeTransportMode) async throws {
        let world = try CloverWorld(mode: mode)
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)

        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
        #expect(world.requests.isEmpty, "the SDK opens the authorize URL, it never fetches it")
        #expect(world.browser.openedURLs.count == 1)
        #expect(await !world.sdk.isLoggedIn)
        #expect(callbacks.value == 0)

        let authorize = try #require(world.browser.openedURLs.first)
        #expect(authorize.absoluteString.hasPrefix(world.webBaseURL.absoluteString + "/oauth/v2/authorize?client_id=CLVAPP7Q2K&redirect_uri="
            + "https%3A%2F%2Fapp.example.com%2Fclover%2Fcallback&response_type=code&code_challenge="))
        let query = try #require(world.lastAuthorizeQuery())
        #expect(query.map(\.0) == ["client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state"])
        #expect(world.lastAuthorizeParameter("client_id") == CloverWorld.appID)
        #expect(world.lastAuthorizeParameter("redirect_uri") == CloverWorld.redirectURI)
        #expect(world.lastAuthorizeParameter("response_type") == "code")
        #expect(world.lastAuthorizeParameter("code_challenge_method") == "S256")
        let sentState = try #require(world.lastAuthorizeParameter("state"))
        #expect(Base64URL.decode(sentState)?.count == 32)
        let challenge = try #require(world.lastAuthorizeParameter("code_challenge"))

        let redirect = try await world.authorize(authorize)
        #expect(redirect.queryParameter("state") == sentState, "the state returned is the state sent")
        try await world.sdk.receivedOAuthCodeOrToken(redirect)

        let tokenRequests = world.tokenRequests
        #expect(tokenRequests.count == 1)
        let exchange = try #require(tokenRequests.first)
        #expect(exchange.method == "POST")
        #expect(exchange.target == "/oauth/v2/token")
        #expect(exchange.headers["Content-Type"] == "application/json")
        let body = try #require(exchange.jsonObject)
        #expect(Set(body.keys) == ["client_id", "code", "code_verifier"])
        #expect(body["client_id"] == CloverWorld.appID)
        let code = try #require(redirect.queryParameter("code"))
        #expect(body["code"] == code)
        let verifier = try #require(body["code_verifier"])
        #expect(PKCE.challenge(for: verifier) == challenge, "the challenge sent is the S256 of the verifier sent later")
        #expect(exchange.bodyText == #"{"client_id":"CLVAPP7Q2K","code":"\#(code)","code_verifier":"\#(verifier)"}"#)

        #expect(callbacks.value == 1)
        #expect(world.browser.dismissCount == 1)
        let pair = try #require(world.issuedPairs.first)
        let session = try #require(try await world.session)
        #expect(session.accessToken == pair.access)
        #expect(session.refreshToken == pair.refresh)
        #expect(session.merchantID == CloverWorld.merchantID)
        #expect(session.accessTokenExpiration == world.clock.now.addingTimeInterval(30 * 60))
        #expect(session.refreshTokenExpiration == world.clock.now.addingTimeInterval(CloverWorld.fixture.refreshTokenLifetime))
        #expect(try world.store.keys() == [CloverPaymentSDK.storeKey])
        #expect(await world.sdk.isLoggedIn)

        // Seed 001 step 6: the callback's `setup` now finds the token.
        #expect(try await world.sdk.setup(configuration: try world.full) == .ready(world.merchant))
        #expect(world.merchantRequests.map(\.bearerToken) == [pair.access])
        #expect(world.merchantRequests.first?.target == "/v3/merchants/MERCH0001")
        #expect(world.tokenRequests.count == 1)
        #expect(world.refreshRequests.isEmpty)
        #expect(world.browser.openedURLs.count == 1)
        #expect(callbacks.value == 1)

        // No client secret, API key or API secret anywhere, raw or encoded.
        let everything = world.requests.map(\.allText) + world.browser.openedURLs.map(\.absoluteString)
        for text in everything {
            for secret in [CloverWorld.appSecret, CloverWorld.apiKey, CloverWorld.apiSecret] {
                #expect(!text.contains(secret))
                #expect(!text.contains(FormURLEncoding.encodeComponent(secret)))
            }
            #expect(!text.lowercased().contains("secret"))
        }
    }

    /// CLV-FULL-2.
    @Test("relaunch with a valid stored token: no browser, no token request, merchant fetched")
    func relaunchWithValidToken() async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        world.clock.advance(by: 10 * 60)
        let relaunched = world.relaunched()
        let before = world.tap.requests.count

        #expect(await relaunched.sdk.isLoggedIn)
        let outcome = try await relaunched.sdk.setup(configuration: try world.full)
        #expect(outcome == .ready(world.merchant))
        #expect(relaunched.browser.openedURLs.isEmpty)
        let after = world.tap.requests.dropFirst(before)
        #expect(after.map(\.url.path) == ["/v3/merchants/MERCH0001"])
        #expect(after.first?.bearerToken == world.issuedPairs.first?.access)
    }

    struct ExpiryCase: CustomTestStringConvertible, Sendable {
        let name: String
        let minutes: Double
        let refreshes: Bool
        var testDescription: String { name }
    }

    /// CLV-FULL-3: the refresh margin is 60 s by default.
    @Test("relaunch near or past expiry refreshes once first; before the margin it does not", arguments: [
        ExpiryCase(name: "28 minutes: fresh", minutes: 28, refreshes: false),
        ExpiryCase(name: "29.5 minutes: inside the margin", minutes: 29.5, refreshes: true),
        ExpiryCase(name: "31 minutes: expired", minutes: 31, refreshes: true),
    ])
    func relaunchAfterExpiry(_ testCase: ExpiryCase) async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        world.clock.advance(by: testCase.minutes * 60)
        let relaunched = world.relaunched()
        let callbacks = CallCounter()
        _ = await relaunched.sdk.addOnTokenChangeCallback(callbacks.callback)

        // The rotated pair must be in the store before the new access token is first used.
        let store = world.store
        let storedAtUse = StoredAtUse()
        world.watch.set { exchange in
            if exchange.request.path.hasPrefix(FakeClover.merchantsPrefix) {
                storedAtUse.record(bearer: exchange.request.bearerToken, stored: try? store.read(CloverPaymentSDK.storeKey))
            }
        }

        let outcome = try await relaunched.sdk.setup(configuration: try world.full)
        #expect(outcome == .ready(world.merchant))
        #expect(relaunched.browser.openedURLs.isEmpty)
        let refreshes = world.refreshRequests
        let first = try #require(world.issuedPairs.first)
        if testCase.refreshes {
            #expect(refreshes.count == 1)
            let second = try #require(world.issuedPairs.last)
            let body = try #require(refreshes.first?.jsonObject)
            #expect(body == ["client_id": CloverWorld.appID, "refresh_token": first.refresh])
            #expect(refreshes.first?.bodyText == #"{"client_id":"CLVAPP7Q2K","refresh_token":"\#(first.refresh)"}"#)
            #expect(refreshes.first?.headers["Content-Type"] == "application/json")
            #expect(world.merchantRequests.map(\.bearerToken) == [second.access])
            let session = try #require(try await relaunched.session)
            #expect(session.accessToken == second.access)
            #expect(session.refreshToken == second.refresh)
            #expect(session.merchantID == CloverWorld.merchantID)
            #expect(session.accessTokenExpiration == world.clock.now.addingTimeInterval(30 * 60))
            #expect(storedAtUse.bearerWasStored)
            #expect(callbacks.value == 1)
            #expect(world.refreshStatus(first.refresh) == 400, "the old refresh token is dead")
            #expect(world.refreshStatus(second.refresh) == 200)
        } else {
            #expect(refreshes.isEmpty)
            #expect(world.merchantRequests.map(\.bearerToken) == [first.access])
            #expect(callbacks.value == 0)
        }
        #expect(world.tokenRequests.count == 1)
    }

    /// CLV-FULL-4: a long session, with the clock moving between calls.
    @Test("long session: refreshes before every expiry, never sends an expired token")
    func longSession() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        try await world.logInWithFullOAuth()
        let sentAtExpired = SentExpired(clock: world.clock)
        world.watch.set { [world] exchange in
            if exchange.request.path.hasPrefix(FakeClover.merchantsPrefix) {
                sentAtExpired.check(exchange.request.bearerToken, stored: world.storedSessionNow)
            }
        }
        for _ in 0..<6 {
            _ = try await world.sdk.merchant()
            world.clock.advance(by: 11 * 60)
            _ = try await world.sdk.merchant()
            world.clock.advance(by: 11 * 60)
        }
        #expect(world.merchantRequests.count == 12)
        #expect(!sentAtExpired.sawExpired)
        // Calls every 11 minutes from 0 to 121 with 30-minute tokens and a 1-minute margin: the
        // tokens issued at 0, 33 and 66 are refreshed at 33, 66 and 99, each exactly once.
        let refreshes = world.refreshRequests.count
        #expect(refreshes == 3)
        #expect(callbacks.value == 1 + refreshes)
        #expect(Set(world.refreshRequests.compactMap { $0.jsonObject?["refresh_token"] }).count == refreshes)
    }

    /// CLV-FULL-5.
    @Test("a revoked refresh token ends the session: callback, logged out, next setup opens the browser")
    func revokedRefreshToken() async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        world.clover.revokeAllTokens()
        world.clock.advance(by: 31 * 60)

        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.full)
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.status == 400)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(world.refreshRequests.count == 1)
        #expect(world.merchantRequests.isEmpty, "the expired token is never sent")
        #expect(callbacks.value == 1)
        #expect(await !world.sdk.isLoggedIn)
        #expect(try await world.session == nil)

        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
        #expect(world.browser.openedURLs.count == 2)
        #expect(callbacks.value == 1)
    }

    @Test("a refresh token known to have expired ends the session without a request")
    func refreshTokenExpiredLocally() async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        world.clock.advance(by: CloverWorld.fixture.refreshTokenLifetime + 1)
        #expect(await !world.sdk.isLoggedIn)

        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.full)
        }
        #expect(error?.code == .notLoggedIn)
        #expect(world.refreshRequests.isEmpty)
        #expect(world.merchantRequests.isEmpty)
        #expect(callbacks.value == 1)
        #expect(try await world.session == nil)
        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
    }

    /// A refresh that fails for a reason that may pass: the fake's own faults where it has one,
    /// raw wire answers for what it never gives (a 429, a 200 without `access_token`), and the
    /// transport's own failures.
    enum Transient: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case unreachable, foreignTransportError, serverError, tooManyRequests, notJSON, noAccessToken

        var testDescription: String { rawValue }

        var code: OAuthError.Code {
            switch self {
            case .unreachable, .foreignTransportError: .transport
            case .serverError: .serverError
            case .tooManyRequests: .httpStatus
            case .notJSON, .noAccessToken: .invalidResponse
            }
        }

        func arm(_ world: CloverWorld) {
            let path = FakeClover.refreshPath
            switch self {
            case .unreachable: world.server.inject(Fault(kind: .unreachable))
            case .foreignTransportError: world.tap.beforeSend { request in
                if request.url.path == path { throw URLError(.timedOut) }
            }
            case .serverError: world.server.inject(Fault(kind: .serverError, path: path))
            case .tooManyRequests: world.raw?.set { $0.path == path ? .rawJSON(429, #"{"message":"slow down"}"#) : nil }
            case .notJSON: world.server.inject(Fault(kind: .nonJSONBody, path: path))
            case .noAccessToken: world.raw?.set { $0.path == path ? .rawJSON(200, #"{"refresh_token":"x"}"#) : nil }
            }
        }

        func clear(_ world: CloverWorld) {
            world.server.clearFaults()
            world.raw?.set(nil)
            world.tap.beforeSend(nil)
        }
    }

    @Test("a transient refresh failure keeps the session", arguments: Transient.allCases)
    func transientRefreshFailure(_ transient: Transient) async throws {
        let world = try CloverWorld(rawAnswers: true)
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        let before = try await world.session
        world.clock.advance(by: 31 * 60)
        transient.arm(world)

        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.full)
        }
        #expect(error?.code == transient.code)
        #expect(world.merchantRequests.isEmpty)
        #expect(try await world.session == before)
        #expect(await world.sdk.isLoggedIn)
        #expect(callbacks.value == 0)

        // Once the server is back, the same refresh token still works.
        transient.clear(world)
        #expect(try await world.sdk.setup(configuration: try world.full) != .loginStarted)
        #expect(callbacks.value == 1)
    }

    /// CLV-FULL-8.
    @Test("a redirect whose state differs or is missing is refused without a token request; the real one still works")
    func stateMismatch() async throws {
        let world = try CloverWorld()
        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        let parameters = redirect.queryParameters

        let forged = redirect.replacingQuery(parameters.map { $0.0 == "state" ? ($0.0, "forged-state") : $0 })
        let stateless = redirect.replacingQuery(parameters.filter { $0.0 != "state" })
        for url in [forged, stateless] {
            let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(url) }
            #expect(error?.code == .stateMismatch)
        }
        #expect(world.tap.requests.isEmpty)
        #expect(try await world.session == nil)
        #expect(world.browser.dismissCount == 0)

        try await world.sdk.receivedOAuthCodeOrToken(redirect)
        #expect(world.tokenRequests.count == 1)
        #expect(try await world.session != nil)
    }

    @Test("a replayed redirect is refused: state is single use")
    func replay() async throws {
        let world = try CloverWorld()
        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        try await world.sdk.receivedOAuthCodeOrToken(redirect)
        let stored = try await world.session

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(world.tokenRequests.count == 1)
        #expect(try await world.session == stored)

        // Nor does a relaunched instance accept it: pending logins do not survive.
        let relaunched = world.relaunched()
        let again = await #expect(throws: OAuthError.self) { try await relaunched.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(again?.code == .stateMismatch)
        #expect(world.tokenRequests.count == 1)
    }

    @Test("every login gets a fresh state and verifier; only the latest login's redirect counts")
    func freshPerLogin() async throws {
        let world = try CloverWorld(random: PinnedRandomSource(seed: 11))
        _ = try await world.sdk.setup(configuration: try world.full)
        let first = try #require(world.browser.openedURLs.last)
        _ = try await world.sdk.setup(configuration: try world.full)
        let second = try #require(world.browser.openedURLs.last)
        let parameter = { (url: URL, name: String) in url.queryParameters.first { $0.0 == name }?.1 }
        #expect(parameter(first, "state") != parameter(second, "state"))
        #expect(parameter(first, "code_challenge") != parameter(second, "code_challenge"))

        let stale = await #expect(throws: OAuthError.self) {
            try await world.sdk.receivedOAuthCodeOrToken(try await world.authorize(first))
        }
        #expect(stale?.code == .stateMismatch)
        try await world.sdk.receivedOAuthCodeOrToken(try await world.authorize(second))
        #expect(world.tokenRequests.count == 1)
        let verifier = try #require(world.tokenRequests.first?.jsonObject?["code_verifier"])
        #expect(PKCE.challenge(for: verifier) == parameter(second, "code_challenge"))
    }

    /// CLV-FULL-9.
    @Test("an error redirect is surfaced with its code; nothing stored; the login is over")
    func errorRedirect() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await world.sdk.setup(configuration: try world.full)
        let authorize = try #require(world.browser.openedURLs.last)
        let denied = try await world.authorize(authorize, deny: true)

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(denied) }
        #expect(error?.code == .authorization)
        #expect(error?.message.hasPrefix("access_denied") == true)
        #expect(world.tap.requests.isEmpty)
        #expect(try await world.session == nil)
        #expect(callbacks.value == 0)
        #expect(world.browser.dismissCount == 1)

        let late = await #expect(throws: OAuthError.self) {
            try await world.sdk.receivedOAuthCodeOrToken(try await world.authorize(authorize))
        }
        #expect(late?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }

    @Test("a redirect for another client_id is rejected without a token request")
    func otherClient() async throws {
        let world = try CloverWorld()
        _ = try await world.sdk.setup(configuration: try world.full)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        let foreign = redirect.replacingQuery(redirect.queryParameters.map { $0.0 == "client_id" ? ($0.0, "OTHERAPP") : $0 })

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(foreign) }
        #expect(error?.code == .authorization)
        #expect(world.tap.requests.isEmpty)
        #expect(try await world.session == nil)
        #expect(await !world.sdk.isLoggedIn)
    }

    /// CLV-FULL-6: the server refuses at authorize, so no redirect ever comes; a URL that is not
    /// under the redirect URI is refused too, and the login stays pending.
    @Test("a redirect URI not under the site URL: refused at authorize; stray URLs refused by the SDK")
    func redirectNotUnderSite() async throws {
        let world = try CloverWorld()
        let configuration = try world.configuration(FullOAuth(redirectURI: "https://elsewhere.example.net/callback"))
        _ = try await world.sdk.setup(configuration: configuration)
        let refusal = await #expect(throws: FakeBrowserUser.Stopped.self) {
            try await world.authorize(try #require(world.browser.openedURLs.last))
        }
        #expect(refusal?.status == 400)
        #expect(refusal?.description.contains("redirect_uri is not under the app's site URL") == true)
        let state = try #require(world.lastAuthorizeParameter("state"))
        let stray = URL(string: "https://app.example.com/clover/callback?merchant_id=MERCH0001&code=code-9&state=\(state)")!
        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(stray) }
        #expect(error?.code == .authorization)
        #expect(world.tap.requests.isEmpty)
        #expect(world.tokenRequests.isEmpty)
        #expect(try await world.session == nil)
    }

    @Test("a refused code exchange stores nothing and ends the login")
    func refusedExchange() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await world.sdk.setup(configuration: try world.full)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        world.clock.advance(by: CloverWorld.fixture.codeLifetime + 1)

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(world.tokenRequests.count == 1)
        #expect(try await world.session == nil)
        #expect(callbacks.value == 0)
        #expect(world.browser.dismissCount == 1)
    }

    @Test("a browser that cannot open is reported; no login stays pending")
    func browserFailure() async throws {
        let world = try CloverWorld()
        world.browser.fail(with: RecordingUserAgent.Refused())
        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.full)
        }
        #expect(error?.code == .authorization)
        let url = try #require(world.browser.openedURLs.last)
        let late = await #expect(throws: OAuthError.self) {
            try await world.sdk.receivedOAuthCodeOrToken(try await world.authorize(url))
        }
        #expect(late?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }
}

/// Records, at the moment a merchant request goes out, whether its bearer token is the one in
/// the store.
final class StoredAtUse: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Bool] = []

    func record(bearer: String?, stored: Data??) {
        let session = (stored ?? nil).flatMap { try? JSONDecoder.unixSeconds.decode(CloverStoredSession.self, from: $0) }
        lock.lock()
        defer { lock.unlock() }
        results.append(bearer != nil && session?.accessToken == bearer)
    }

    var bearerWasStored: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !results.isEmpty && results.allSatisfy { $0 }
    }
}

/// Flags any merchant request whose bearer token had expired when it was sent.
final class SentExpired: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: ManualClock
    private var expired = false

    init(clock: ManualClock) {
        self.clock = clock
    }

    func check(_ bearer: String?, stored: CloverStoredSession?) {
        let isExpired = stored.map { $0.accessToken != bearer || ($0.accessTokenExpiration.map { clock.now >= $0 } ?? false) } ?? true
        lock.lock()
        defer { lock.unlock() }
        expired = expired || isExpired
    }

    var sawExpired: Bool {
        lock.lock()
        defer { lock.unlock() }
        return expired
    }
}

/// Found by the derived interleavings (CLV-FULL-1~interleave.step4.POST-oauth-v2-token.logout):
/// a code exchange in flight when the app logged out stored its session when the answer came,
/// logging the user back in; No OAuth's setup and updateToken did the same after their
/// merchant check.
@Suite("Clover: a logout overtakes a call in flight", .integration, .timeLimit(.minutes(20)))
struct CloverLogoutInFlightTests {
    @Test("a code exchange answered after logout stores nothing, fires nothing")
    func exchangeAfterLogoutStoresNothing() async throws {
        let world = try CloverWorld()
        let fired = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(fired.callback)
        let outcome = try await world.sdk.setup(configuration: try world.full)
        #expect(outcome == .loginStarted)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        let gate = Gate("the code exchange is held")
        let arrived = Gate("the code exchange arrived")
        world.tap.beforeSend { request in
            guard request.url.path == "/oauth/v2/token" else { return }
            arrived.open()
            try await gate.wait()
        }
        let sdk = world.sdk
        let exchange = Task { try await sdk.receivedOAuthCodeOrToken(redirect) }
        try await arrived.wait()
        try await sdk.logout()
        gate.open()
        await #expect(throws: OAuthError.self) { try await boundedValue(of: exchange, waitingFor: "the held exchange") }
        #expect(await sdk.isLoggedIn == false)
        #expect(fired.value == 0)
    }
}
