import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-FULL-1 to CLV-FULL-9 against the in-test stub.
@Suite("Clover Full OAuth", .timeLimit(.minutes(5)))
struct CloverFullOAuthTests {
    /// CLV-FULL-1: the whole first launch of seed 001, steps 1 to 6.
    @Test("first launch: browser, redirect, one exchange with the verifier, callback once, second setup ready")
    func firstLaunch() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)

        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
        #expect(fixture.server.requests.isEmpty, "the SDK opens the authorize URL, it never fetches it")
        #expect(fixture.browser.openedURLs.count == 1)
        #expect(await !fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 0)

        let authorize = try #require(fixture.browser.openedURLs.first)
        #expect(authorize.absoluteString.hasPrefix("http://127.0.0.1:9001/oauth/v2/authorize?client_id=CLVAPP7Q2K&redirect_uri="
            + "https%3A%2F%2Fapp.example.com%2Fclover%2Fcallback&response_type=code&code_challenge="))
        let query = try #require(fixture.lastAuthorizeQuery())
        #expect(query.map(\.0) == ["client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state"])
        #expect(fixture.lastAuthorizeParameter("client_id") == StubClover.appID)
        #expect(fixture.lastAuthorizeParameter("redirect_uri") == StubClover.redirectURI)
        #expect(fixture.lastAuthorizeParameter("response_type") == "code")
        #expect(fixture.lastAuthorizeParameter("code_challenge_method") == "S256")
        let sentState = try #require(fixture.lastAuthorizeParameter("state"))
        #expect(Base64URL.decode(sentState)?.count == 32)
        let challenge = try #require(fixture.lastAuthorizeParameter("code_challenge"))

        let redirect = try fixture.server.authorize(authorize)
        #expect(redirect.queryParameters.first { $0.0 == "state" }?.1 == sentState, "the state returned is the state sent")
        try await fixture.sdk.receivedOAuthCodeOrToken(redirect)

        let tokenRequests = fixture.server.tokenRequests
        #expect(tokenRequests.count == 1)
        let exchange = try #require(tokenRequests.first)
        #expect(exchange.method == "POST")
        #expect(exchange.url.absoluteString == "http://127.0.0.1:9002/oauth/v2/token")
        #expect(exchange.header("Content-Type") == "application/json")
        let body = try #require(exchange.jsonObject)
        #expect(Set(body.keys) == ["client_id", "code", "code_verifier"])
        #expect(body["client_id"] == StubClover.appID)
        #expect(body["code"] == redirect.queryParameters.first { $0.0 == "code" }?.1)
        let verifier = try #require(body["code_verifier"])
        #expect(PKCE.challenge(for: verifier) == challenge, "the challenge sent is the S256 of the verifier sent later")
        #expect(exchange.bodyText == #"{"client_id":"CLVAPP7Q2K","code":"code-1","code_verifier":"\#(verifier)"}"#)

        #expect(callbacks.value == 1)
        #expect(fixture.browser.dismissCount == 1)
        let session = try #require(try await fixture.session)
        #expect(session.accessToken == "at-2")
        #expect(session.refreshToken == "rt-2")
        #expect(session.merchantID == StubClover.merchantID)
        #expect(session.accessTokenExpiration == fixture.clock.now.addingTimeInterval(30 * 60))
        #expect(session.refreshTokenExpiration == fixture.clock.now.addingTimeInterval(StubClover.refreshLifetime))
        #expect(try fixture.store.keys() == [CloverPaymentSDK.storeKey])
        #expect(await fixture.sdk.isLoggedIn)

        // Seed 001 step 6: the callback's `setup` now finds the token.
        let merchant = CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName)
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .ready(merchant))
        #expect(fixture.server.merchantRequests.map(\.bearerToken) == ["at-2"])
        #expect(fixture.server.merchantRequests.first?.url.absoluteString == "http://127.0.0.1:9002/v3/merchants/MERCH0001")
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(fixture.server.refreshRequests.isEmpty)
        #expect(fixture.browser.openedURLs.count == 1)
        #expect(callbacks.value == 1)

        // No client secret, API key or API secret anywhere, raw or encoded.
        let everything = fixture.server.requests.map(\.allText) + fixture.browser.openedURLs.map(\.absoluteString)
        for text in everything {
            for secret in [StubClover.appSecret, StubClover.apiKey, StubClover.apiSecret] {
                #expect(!text.contains(secret))
                #expect(!text.contains(FormURLEncoding.encodeComponent(secret)))
            }
            #expect(!text.lowercased().contains("secret"))
        }
    }

    /// CLV-FULL-2.
    @Test("relaunch with a valid stored token: no browser, no token request, merchant fetched")
    func relaunchWithValidToken() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        fixture.clock.advance(by: 10 * 60)
        let relaunched = fixture.relaunched()
        let before = fixture.server.requests.count

        #expect(await relaunched.sdk.isLoggedIn)
        let outcome = try await relaunched.sdk.setup(configuration: try CloverFixture.full)
        #expect(outcome == .ready(CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName)))
        #expect(relaunched.browser.openedURLs.isEmpty)
        let after = fixture.server.requests.dropFirst(before)
        #expect(after.map(\.url.path) == ["/v3/merchants/MERCH0001"])
        #expect(after.first?.bearerToken == "at-2")
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
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        fixture.clock.advance(by: testCase.minutes * 60)
        let relaunched = fixture.relaunched()
        let callbacks = CallCounter()
        _ = await relaunched.sdk.addOnTokenChangeCallback(callbacks.callback)

        // The rotated pair must be in the store before the new access token is first used.
        let store = fixture.store
        let storedAtUse = StoredAtUse()
        fixture.server.intercept { request in
            if request.isCloverMerchant {
                storedAtUse.record(bearer: request.bearerToken, stored: try? store.read(CloverPaymentSDK.storeKey))
            }
            return nil
        }

        let outcome = try await relaunched.sdk.setup(configuration: try CloverFixture.full)
        #expect(outcome == .ready(CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName)))
        #expect(relaunched.browser.openedURLs.isEmpty)
        let refreshes = fixture.server.refreshRequests
        if testCase.refreshes {
            #expect(refreshes.count == 1)
            let body = try #require(refreshes.first?.jsonObject)
            #expect(body == ["client_id": StubClover.appID, "refresh_token": "rt-2"])
            #expect(refreshes.first?.bodyText == #"{"client_id":"CLVAPP7Q2K","refresh_token":"rt-2"}"#)
            #expect(refreshes.first?.header("Content-Type") == "application/json")
            #expect(fixture.server.merchantRequests.map(\.bearerToken) == ["at-3"])
            let session = try #require(try await relaunched.session)
            #expect(session.accessToken == "at-3")
            #expect(session.refreshToken == "rt-3")
            #expect(session.merchantID == StubClover.merchantID)
            #expect(session.accessTokenExpiration == fixture.clock.now.addingTimeInterval(30 * 60))
            #expect(storedAtUse.bearerWasStored)
            #expect(callbacks.value == 1)
            #expect(!fixture.server.acceptsRefreshToken("rt-2"), "the old refresh token is dead")
            #expect(fixture.server.acceptsRefreshToken("rt-3"))
        } else {
            #expect(refreshes.isEmpty)
            #expect(fixture.server.merchantRequests.map(\.bearerToken) == ["at-2"])
            #expect(callbacks.value == 0)
        }
        #expect(fixture.server.tokenRequests.count == 1)
    }

    /// CLV-FULL-4: a long session, with the clock moving between calls.
    @Test("long session: refreshes before every expiry, never sends an expired token")
    func longSession() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        try await fixture.logInWithFullOAuth()
        let sentAtExpired = SentExpired(clock: fixture.clock)
        let sdk = fixture.sdk
        fixture.server.intercept { request in
            if request.isCloverMerchant {
                sentAtExpired.check(request.bearerToken, stored: try? await sdk.storedSession())
            }
            return nil
        }
        for _ in 0..<6 {
            _ = try await fixture.sdk.merchant()
            fixture.clock.advance(by: 11 * 60)
            _ = try await fixture.sdk.merchant()
            fixture.clock.advance(by: 11 * 60)
        }
        #expect(fixture.server.merchantRequests.count == 12)
        #expect(!sentAtExpired.sawExpired)
        // Calls every 11 minutes from 0 to 121 with 30-minute tokens and a 1-minute margin: the
        // tokens issued at 0, 33 and 66 are refreshed at 33, 66 and 99, each exactly once.
        let refreshes = fixture.server.refreshRequests.count
        #expect(refreshes == 3)
        #expect(callbacks.value == 1 + refreshes)
        #expect(Set(fixture.server.refreshRequests.compactMap { $0.jsonObject?["refresh_token"] }).count == refreshes)
    }

    /// CLV-FULL-5.
    @Test("a revoked refresh token ends the session: callback, logged out, next setup opens the browser")
    func revokedRefreshToken() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        fixture.server.revokeRefreshTokens()
        fixture.clock.advance(by: 31 * 60)

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.full)
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.status == 400)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(fixture.server.refreshRequests.count == 1)
        #expect(fixture.server.merchantRequests.isEmpty, "the expired token is never sent")
        #expect(callbacks.value == 1)
        #expect(await !fixture.sdk.isLoggedIn)
        #expect(try await fixture.session == nil)

        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
        #expect(fixture.browser.openedURLs.count == 2)
        #expect(callbacks.value == 1)
    }

    @Test("a refresh token known to have expired ends the session without a request")
    func refreshTokenExpiredLocally() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        fixture.clock.advance(by: StubClover.refreshLifetime + 1)
        #expect(await !fixture.sdk.isLoggedIn)

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.full)
        }
        #expect(error?.code == .notLoggedIn)
        #expect(fixture.server.refreshRequests.isEmpty)
        #expect(fixture.server.merchantRequests.isEmpty)
        #expect(callbacks.value == 1)
        #expect(try await fixture.session == nil)
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
    }

    struct TransientCase: CustomTestStringConvertible, Sendable {
        let name: String
        let code: OAuthError.Code
        let answer: @Sendable () throws -> TransportResponse
        var testDescription: String { name }
    }

    @Test("a transient refresh failure keeps the session", arguments: [
        TransientCase(name: "unreachable", code: .transport) { throw OAuthError(code: .transport, message: "connection refused") },
        TransientCase(name: "foreign transport error", code: .transport) { throw URLError(.timedOut) },
        TransientCase(name: "500", code: .serverError) { .json(500, #"{"message":"oops"}"#) },
        TransientCase(name: "429", code: .httpStatus) { .json(429, #"{"message":"slow down"}"#) },
        TransientCase(name: "not JSON", code: .invalidResponse) { .text(200, "<html>maintenance</html>") },
        TransientCase(name: "no access_token", code: .invalidResponse) { .json(200, #"{"refresh_token":"x"}"#) },
    ])
    func transientRefreshFailure(_ testCase: TransientCase) async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        let before = try await fixture.session
        fixture.clock.advance(by: 31 * 60)
        fixture.server.intercept { request in request.isCloverRefresh ? try testCase.answer() : nil }

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.full)
        }
        #expect(error?.code == testCase.code)
        #expect(fixture.server.merchantRequests.isEmpty)
        #expect(try await fixture.session == before)
        #expect(await fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 0)

        // Once the server is back, the same refresh token still works.
        fixture.server.intercept(nil)
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) != .loginStarted)
        #expect(callbacks.value == 1)
    }

    /// CLV-FULL-8.
    @Test("a redirect whose state differs or is missing is refused without a token request; the real one still works")
    func stateMismatch() async throws {
        let fixture = CloverFixture()
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        let parameters = redirect.queryParameters

        let forged = redirect.replacingQuery(parameters.map { $0.0 == "state" ? ($0.0, "forged-state") : $0 })
        let stateless = redirect.replacingQuery(parameters.filter { $0.0 != "state" })
        for url in [forged, stateless] {
            let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(url) }
            #expect(error?.code == .stateMismatch)
        }
        #expect(fixture.server.requests.isEmpty)
        #expect(try await fixture.session == nil)
        #expect(fixture.browser.dismissCount == 0)

        try await fixture.sdk.receivedOAuthCodeOrToken(redirect)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try await fixture.session != nil)
    }

    @Test("a replayed redirect is refused: state is single use")
    func replay() async throws {
        let fixture = CloverFixture()
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        try await fixture.sdk.receivedOAuthCodeOrToken(redirect)
        let stored = try await fixture.session

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try await fixture.session == stored)

        // Nor does a relaunched instance accept it: pending logins do not survive.
        let relaunched = fixture.relaunched()
        let again = await #expect(throws: OAuthError.self) { try await relaunched.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(again?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.count == 1)
    }

    @Test("every login gets a fresh state and verifier; only the latest login's redirect counts")
    func freshPerLogin() async throws {
        let fixture = CloverFixture(random: PinnedRandomSource(seed: 11))
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let first = try #require(fixture.browser.openedURLs.last)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let second = try #require(fixture.browser.openedURLs.last)
        let parameter = { (url: URL, name: String) in url.queryParameters.first { $0.0 == name }?.1 }
        #expect(parameter(first, "state") != parameter(second, "state"))
        #expect(parameter(first, "code_challenge") != parameter(second, "code_challenge"))

        let stale = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.receivedOAuthCodeOrToken(try fixture.server.authorize(first))
        }
        #expect(stale?.code == .stateMismatch)
        try await fixture.sdk.receivedOAuthCodeOrToken(try fixture.server.authorize(second))
        #expect(fixture.server.tokenRequests.count == 1)
        let verifier = try #require(fixture.server.tokenRequests.first?.jsonObject?["code_verifier"])
        #expect(PKCE.challenge(for: verifier) == parameter(second, "code_challenge"))
    }

    /// CLV-FULL-9.
    @Test("an error redirect is surfaced with its code; nothing stored; the login is over")
    func errorRedirect() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let authorize = try #require(fixture.browser.openedURLs.last)
        let denied = try fixture.server.authorize(authorize, deny: true)

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(denied) }
        #expect(error?.code == .authorization)
        #expect(error?.message.hasPrefix("access_denied") == true)
        #expect(fixture.server.requests.isEmpty)
        #expect(try await fixture.session == nil)
        #expect(callbacks.value == 0)
        #expect(fixture.browser.dismissCount == 1)

        let late = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.receivedOAuthCodeOrToken(try fixture.server.authorize(authorize))
        }
        #expect(late?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test("a redirect for another client_id is rejected without a token request")
    func otherClient() async throws {
        let fixture = CloverFixture()
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        let foreign = redirect.replacingQuery(redirect.queryParameters.map { $0.0 == "client_id" ? ($0.0, "OTHERAPP") : $0 })

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(foreign) }
        #expect(error?.code == .authorization)
        #expect(fixture.server.requests.isEmpty)
        #expect(try await fixture.session == nil)
        #expect(await !fixture.sdk.isLoggedIn)
    }

    /// CLV-FULL-6: the server refuses at authorize, so no redirect ever comes; a URL that is not
    /// under the redirect URI is refused too, and the login stays pending.
    @Test("a redirect URI not under the site URL: refused at authorize; stray URLs refused by the SDK")
    func redirectNotUnderSite() async throws {
        let fixture = CloverFixture()
        let configuration = try CloverFixture.configuration(FullOAuth(redirectURI: "https://elsewhere.example.net/callback"))
        _ = try await fixture.sdk.setup(configuration: configuration)
        #expect(throws: StubClover.AuthorizeRefusal.self) {
            try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        }
        let state = try #require(fixture.lastAuthorizeParameter("state"))
        let stray = URL(string: "https://app.example.com/clover/callback?merchant_id=MERCH0001&code=code-9&state=\(state)")!
        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(stray) }
        #expect(error?.code == .authorization)
        #expect(fixture.server.requests.isEmpty)
        #expect(try await fixture.session == nil)
    }

    @Test("a refused code exchange stores nothing and ends the login")
    func refusedExchange() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        fixture.clock.advance(by: StubClover.codeLifetime + 1)

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try await fixture.session == nil)
        #expect(callbacks.value == 0)
        #expect(fixture.browser.dismissCount == 1)
    }

    @Test("a browser that cannot open is reported; no login stays pending")
    func browserFailure() async throws {
        let fixture = CloverFixture()
        fixture.browser.fail(with: RecordingUserAgent.Refused())
        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.full)
        }
        #expect(error?.code == .authorization)
        let url = try #require(fixture.browser.openedURLs.last)
        let late = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.receivedOAuthCodeOrToken(try fixture.server.authorize(url))
        }
        #expect(late?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
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

extension JSONDecoder {
    /// A decoder for what the SDK stores: dates in Unix seconds.
    static var unixSeconds: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
