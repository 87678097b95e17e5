import Foundation
import Testing
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-API-1, CLV-API-2, the shared refresh of CLV-FULL-4, persistence across relaunches, and the
/// error mapping of API calls.
@Suite("Clover session, callbacks and errors", .timeLimit(.minutes(5)))
struct CloverSessionTests {
    /// CLV-API-1.
    @Test("logout empties the store, fires the callback once, and the next Full setup opens the browser")
    func logout() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)

        try await fixture.sdk.logout()
        #expect(try fixture.store.keys().isEmpty)
        #expect(await !fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 1)
        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }
        #expect(error?.code == .notLoggedIn)

        // Nothing left to delete: no change, no callback.
        try await fixture.sdk.logout()
        #expect(callbacks.value == 1)

        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.full) == .loginStarted)
        #expect(fixture.browser.openedURLs.count == 2)
    }

    @Test("logout forgets a pending login: its redirect is refused")
    func logoutForgetsPendingLogin() async throws {
        let fixture = CloverFixture()
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        try await fixture.sdk.logout()
        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
    }

    /// CLV-API-2.
    @Test("removeOnTokenChangeCallback: true for a known id, false otherwise; a removed callback never fires")
    func removeCallback() async throws {
        let fixture = CloverFixture()
        let kept = CallCounter()
        let removed = CallCounter()
        let keptID = await fixture.sdk.addOnTokenChangeCallback(kept.callback)
        let removedID = await fixture.sdk.addOnTokenChangeCallback(removed.callback)
        #expect(keptID != removedID)

        #expect(await fixture.sdk.removeOnTokenChangeCallback(identifier: removedID))
        #expect(await !fixture.sdk.removeOnTokenChangeCallback(identifier: removedID))
        #expect(await !fixture.sdk.removeOnTokenChangeCallback(identifier: "no-such-callback"))
        #expect(await !fixture.sdk.removeOnTokenChangeCallback(identifier: ""))

        try await fixture.logInWithFullOAuth()
        fixture.clock.advance(by: 31 * 60)
        _ = try await fixture.sdk.merchant()
        try await fixture.sdk.logout()
        #expect(kept.value == 3)
        #expect(removed.value == 0)
        #expect(await fixture.sdk.removeOnTokenChangeCallback(identifier: keptID))
    }

    @Test("callbacks fire exactly once per change: new, refreshed, invalidated, deleted")
    func oncePerChange() async throws {
        let fixture = CloverFixture()
        let first = CallCounter()
        let second = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(first.callback)
        _ = await fixture.sdk.addOnTokenChangeCallback(second.callback)

        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        #expect(first.value == 0)
        try await fixture.logInWithFullOAuth()                          // new
        #expect(first.value == 1)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        _ = try await fixture.sdk.merchant()
        #expect(first.value == 1, "using a token is not a change")
        fixture.clock.advance(by: 31 * 60)
        _ = try await fixture.sdk.merchant()                            // refreshed
        _ = try await fixture.sdk.merchant()
        #expect(first.value == 2)
        fixture.server.revokeRefreshTokens()
        fixture.clock.advance(by: 31 * 60)
        _ = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }  // invalidated
        #expect(first.value == 3)
        _ = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }
        #expect(first.value == 3)
        try await fixture.logInWithFullOAuth()                          // new
        try await fixture.sdk.logout()                                  // deleted
        #expect(first.value == 5)
        #expect(second.value == first.value)
    }

    /// CLV-FULL-4: concurrent callers share one refresh.
    ///
    /// The stub holds the refresh answer until the second caller has joined the refresh in flight
    /// (the SDK's internal join hook opens the gate), so both callers are provably waiting at the
    /// same time. If the SDK started a second refresh instead, that request opens the gate, the
    /// test fails on the count, and nothing hangs.
    @Test("two concurrent merchant() calls after expiry cause exactly one refresh")
    func concurrentCallersShareOneRefresh() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        fixture.clock.advance(by: 31 * 60)

        let gate = Gate("second caller joined")
        let refreshes = CallCounter()
        fixture.server.intercept { request in
            if request.isCloverRefresh {
                if refreshes.increment() >= 2 { gate.open() }
                try await gate.wait()
            }
            return nil
        }
        await fixture.sdk.setRefreshJoinObserver { gate.open() }

        async let first = fixture.sdk.merchant()
        async let second = fixture.sdk.merchant()
        let (a, b) = try await (first, second)

        #expect(a == b)
        #expect(fixture.server.refreshRequests.count == 1)
        #expect(fixture.server.merchantRequests.suffix(2).map(\.bearerToken) == ["at-3", "at-3"])
        #expect(try await fixture.session?.accessToken == "at-3")
        #expect(callbacks.value == 1)
    }

    @Test("a refresh that finishes after a logout is not stored")
    func refreshRacingLogout() async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        fixture.clock.advance(by: 31 * 60)

        let arrived = Gate("refresh arrived")
        let release = Gate("release refresh")
        fixture.server.intercept { request in
            if request.isCloverRefresh {
                arrived.open()
                try await release.wait()
            }
            return nil
        }
        let sdk = fixture.sdk
        let call = Task { try await sdk.merchant() }
        try await arrived.wait()
        try await fixture.sdk.logout()
        release.open()

        let error = await #expect(throws: OAuthError.self) { try await call.value }
        #expect(error?.code == .notLoggedIn)
        #expect(try fixture.store.keys().isEmpty)
        #expect(callbacks.value == 1)
        #expect(fixture.server.merchantRequests.isEmpty, "the refreshed token is never used after the logout")
    }

    @Test("a relaunch over a file store keeps every field of the session; the pending login is gone")
    func relaunchOverFileStore() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let clock = ManualClock()
        let server = StubClover(clock: clock)
        let firstStore = try FileTokenStore(directory: temporary.url)
        let first = CloverPaymentSDK(store: firstStore, transport: server, userAgent: RecordingUserAgent(), clock: clock)
        let browser = RecordingUserAgent()
        let login = CloverPaymentSDK(store: firstStore, transport: server, userAgent: browser, clock: clock)
        _ = try await login.setup(configuration: try CloverFixture.full)
        try await login.receivedOAuthCodeOrToken(try server.authorize(try #require(browser.openedURLs.last)))
        let stored = try #require(try await first.storedSession())

        let relaunched = CloverPaymentSDK(store: try FileTokenStore(directory: temporary.url), transport: server,
                                          userAgent: RecordingUserAgent(), clock: clock)
        #expect(try await relaunched.storedSession() == stored)
        #expect(stored.refreshToken != nil && stored.accessTokenExpiration != nil && stored.refreshTokenExpiration != nil)
        #expect(await relaunched.isLoggedIn)
        clock.advance(by: 31 * 60)
        _ = try await relaunched.setup(configuration: try CloverFixture.full)
        #expect(server.refreshRequests.first?.jsonObject?["refresh_token"] == stored.refreshToken)

        let raw = try #require(try FileTokenStore(directory: temporary.url).read(CloverPaymentSDK.storeKey))
        let keys = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any]).keys.sorted()
        #expect(keys == ["accessToken", "accessTokenExpiration", "merchantID", "refreshToken", "refreshTokenExpiration"])
    }

    @Test("merchant() before setup is a configuration error; an unknown flow type is refused")
    func misuse() async throws {
        struct HomeMadeFlow: OAuthFlowType {}
        let fixture = CloverFixture()
        let early = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }
        #expect(early?.code == .configuration)
        let unknown = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.configuration(HomeMadeFlow()))
        }
        #expect(unknown?.code == .configuration)
        #expect(fixture.server.requests.isEmpty)
    }

    struct MerchantFailure: CustomTestStringConvertible, Sendable {
        let name: String
        let code: OAuthError.Code
        let answer: @Sendable (TransportRequest) throws -> TransportResponse
        var testDescription: String { name }
    }

    /// Every failure keeps the session, and no description carries a secret, even when the
    /// server or the transport echoes one.
    @Test("merchant failures are mapped and keep the session", arguments: [
        MerchantFailure(name: "unreachable", code: .transport) { request in
            throw OAuthError(code: .transport, message: "could not send \(request.bearerToken ?? "")")
        },
        MerchantFailure(name: "foreign transport error", code: .transport) { _ in throw URLError(.cannotConnectToHost) },
        MerchantFailure(name: "500 echoing the header", code: .serverError) { request in
            .json(500, #"{"message":"boom for \#(request.header("Authorization") ?? "")"}"#)
        },
        MerchantFailure(name: "401 echoing the token", code: .tokenRejected) { request in
            .json(401, #"{"message":"token \#(request.bearerToken ?? "") is not valid"}"#)
        },
        MerchantFailure(name: "404", code: .httpStatus) { _ in .json(404, #"{"message":"Not found"}"#) },
        MerchantFailure(name: "not JSON", code: .invalidResponse) { _ in .text(200, "<html>hi</html>") },
        MerchantFailure(name: "no name", code: .invalidResponse) { _ in .json(200, #"{"id":"MERCH0001"}"#) },
    ])
    func merchantFailures(_ failure: MerchantFailure) async throws {
        let fixture = CloverFixture()
        try await fixture.logInWithFullOAuth()
        let session = try #require(try await fixture.session)
        fixture.server.intercept { request in request.isCloverMerchant ? try failure.answer(request) : nil }

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }
        #expect(error?.code == failure.code)
        #expect(try await fixture.session == session)
        #expect(await fixture.sdk.isLoggedIn)
        let description = error?.description ?? ""
        for secret in [session.accessToken, session.refreshToken ?? "-", StubClover.appSecret, StubClover.apiSecret] {
            #expect(!description.contains(secret), "\(description)")
        }
    }

    @Test("token-endpoint errors that echo the code, verifier and secrets are scrubbed")
    func tokenEndpointEcho() async throws {
        let fixture = CloverFixture()
        fixture.server.intercept { request in
            guard request.isCloverToken || request.isCloverRefresh else { return nil }
            let echoed = (request.bodyText ?? "").replacingOccurrences(of: "\"", with: "'")
            return .json(400, #"{"error":"invalid_grant","error_description":"bad \#(echoed) \#(StubClover.appSecret)"}"#)
        }
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.full)
        let redirect = try fixture.server.authorize(try #require(fixture.browser.openedURLs.last))
        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.receivedOAuthCodeOrToken(redirect) }
        let verifier = try #require(fixture.server.tokenRequests.first?.jsonObject?["code_verifier"])
        let code = try #require(redirect.queryParameters.first { $0.0 == "code" }?.1)
        let description = try #require(error?.description)
        #expect(error?.code == .tokenEndpoint)
        #expect(description.hasPrefix("tokenEndpoint [HTTP 400]: invalid_grant: bad"))
        for secret in [verifier, code, StubClover.appSecret] {
            #expect(!description.contains(secret), "\(description)")
        }
        #expect(!description.contains(redirect.absoluteString))
    }
}
