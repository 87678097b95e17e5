import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-PART-1 to CLV-PART-5.
@Suite("Clover Partial OAuth", .timeLimit(.minutes(5)))
struct CloverPartialOAuthTests {
    /// The app's own login: PKCE with the SDK's helper, the code from Clover.
    private func appLogin(_ fixture: CloverFixture) -> OAuthCodeResponse {
        let pkce = CloverPaymentSDK.makeCodeChallenge(random: PinnedRandomSource(seed: UInt64(fixture.server.requests.count + 500)))
        let code = fixture.server.issueCode(challenge: pkce.challenge)
        return OAuthCodeResponse(code: code, codeVerifier: pkce.verifier, merchantID: StubClover.merchantID)
    }

    private var merchant: CloverMerchant { CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName) }

    /// CLV-PART-1.
    @Test("first launch: the code is exchanged with its verifier, stored, callback once, ready")
    func firstLaunch() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        let response = appLogin(fixture)

        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.partial(response)) == .ready(merchant))
        #expect(fixture.browser.openedURLs.isEmpty)
        let exchange = try #require(fixture.server.tokenRequests.first)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(exchange.jsonObject == ["client_id": StubClover.appID, "code": response.code, "code_verifier": response.codeVerifier])
        #expect(fixture.server.merchantRequests.map(\.bearerToken) == ["at-2"])
        #expect(try await fixture.session?.accessToken == "at-2")
        #expect(try await fixture.session?.merchantID == StubClover.merchantID)
        #expect(callbacks.value == 1)
        #expect(await fixture.sdk.isLoggedIn)
        for request in fixture.server.requests {
            #expect(!request.allText.contains(StubClover.appSecret) && !request.allText.contains(StubClover.apiSecret))
        }
    }

    /// CLV-PART-2.
    @Test("later launch with nil: the stored token is used, no exchange")
    func laterLaunch() async throws {
        let fixture = CloverFixture()
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.partial(appLogin(fixture)))
        let relaunched = fixture.relaunched()
        let callbacks = CallCounter()
        _ = await relaunched.sdk.addOnTokenChangeCallback(callbacks.callback)

        #expect(try await relaunched.sdk.setup(configuration: try CloverFixture.partial(nil)) == .ready(merchant))
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(fixture.server.refreshRequests.isEmpty)
        #expect(fixture.server.merchantRequests.map(\.bearerToken) == ["at-2", "at-2"])
        #expect(callbacks.value == 0)
    }

    /// CLV-PART-3.
    @Test("the same code twice: refused by the server, the good stored session is kept")
    func sameCodeTwice() async throws {
        let fixture = CloverFixture()
        let response = appLogin(fixture)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.partial(response))
        let good = try await fixture.session
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.partial(response))
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.status == 400)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(!(error?.description.contains(response.code) ?? true))
        #expect(!(error?.description.contains(response.codeVerifier) ?? true))
        #expect(fixture.server.tokenRequests.count == 2)
        #expect(try await fixture.session == good)
        #expect(await fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 0)
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.partial(nil)) == .ready(merchant))
    }

    @Test("a wrong verifier is refused by the server (PKCE checked with our SHA-256)")
    func wrongVerifier() async throws {
        let fixture = CloverFixture()
        var response = appLogin(fixture)
        response.codeVerifier = PKCE(random: PinnedRandomSource(seed: 12345)).verifier
        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.partial(response))
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(try await fixture.session == nil)
    }

    /// CLV-PART-4.
    @Test("nil with an empty store: not logged in, no network call at all")
    func nilWithEmptyStore() async throws {
        let fixture = CloverFixture()
        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.partial(nil))
        }
        #expect(error?.code == .notLoggedIn)
        #expect(fixture.server.requests.isEmpty)
        #expect(fixture.browser.openedURLs.isEmpty)
    }

    /// CLV-PART-5.
    @Test("past 30 minutes the SDK refreshes the token itself")
    func refreshesInPartialMode() async throws {
        let fixture = CloverFixture()
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.partial(appLogin(fixture)))
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        fixture.clock.advance(by: 31 * 60)

        #expect(try await fixture.sdk.merchant() == merchant)
        #expect(fixture.server.refreshRequests.count == 1)
        #expect(fixture.server.refreshRequests.first?.jsonObject?["refresh_token"] == "rt-2")
        #expect(fixture.server.merchantRequests.last?.bearerToken == "at-3")
        #expect(callbacks.value == 1)

        fixture.clock.advance(by: 31 * 60)
        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.partial(nil)) == .ready(merchant))
        #expect(fixture.server.refreshRequests.count == 2)
        #expect(callbacks.value == 2)
    }

    @Test("an empty code, verifier or merchant is refused before any request")
    func emptyFields() async throws {
        let fixture = CloverFixture()
        for response in [
            OAuthCodeResponse(code: "", codeVerifier: "v", merchantID: "M"),
            OAuthCodeResponse(code: "c", codeVerifier: "", merchantID: "M"),
            OAuthCodeResponse(code: "c", codeVerifier: "v", merchantID: ""),
        ] {
            let error = await #expect(throws: OAuthError.self) {
                try await fixture.sdk.setup(configuration: try CloverFixture.partial(response))
            }
            #expect(error?.code == .configuration)
        }
        #expect(fixture.server.requests.isEmpty)
    }
}
