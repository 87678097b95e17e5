import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-NONE-1 to CLV-NONE-3.
@Suite("Clover No OAuth", .timeLimit(.minutes(5)))
struct CloverNoOAuthTests {
    private var merchant: CloverMerchant { CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName) }

    /// CLV-NONE-1.
    @Test("the merchant is fetched with the app's token; no OAuth or refresh call ever, even past expiry")
    func neverRefreshes() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        let token = fixture.server.mintAccessToken()

        #expect(try await fixture.sdk.setup(configuration: try CloverFixture.none(token)) == .ready(merchant))
        #expect(fixture.server.requests.count == 1)
        #expect(fixture.server.merchantRequests.first?.bearerToken == token)
        #expect(fixture.server.merchantRequests.first?.url.absoluteString == "http://127.0.0.1:9002/v3/merchants/MERCH0001")
        #expect(try await fixture.session == CloverStoredSession(accessToken: token, merchantID: StubClover.merchantID))
        #expect(await fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 0, "the app handed the token over itself")
        #expect(fixture.browser.openedURLs.isEmpty)

        fixture.clock.advance(by: 31 * 60)
        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.merchant() }
        #expect(error?.code == .tokenRejected)
        let again = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.none(token))
        }
        #expect(again?.code == .tokenRejected)
        #expect(fixture.server.tokenRequests.isEmpty)
        #expect(fixture.server.refreshRequests.isEmpty)
        #expect(fixture.server.requests.allSatisfy { $0.isCloverMerchant })
        #expect(fixture.browser.openedURLs.isEmpty)
        #expect(callbacks.value == 0)
    }

    /// CLV-NONE-2.
    @Test("updateToken: one merchant request per update, stored, callback once each")
    func updateToken() async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.none(fixture.server.mintAccessToken()))
        #expect(fixture.server.requests.count == 1)

        for round in 1...3 {
            fixture.clock.advance(by: 29 * 60)
            let token = fixture.server.mintAccessToken()
            try await fixture.sdk.updateToken(token)
            #expect(fixture.server.requests.count == 1 + round)
            #expect(fixture.server.requests.last?.bearerToken == token)
            #expect(try await fixture.session?.accessToken == token)
            #expect(callbacks.value == round)
        }
        #expect(fixture.server.requests.allSatisfy { $0.isCloverMerchant })
        #expect(try await fixture.sdk.merchant() == merchant)
        #expect(fixture.server.merchantRequests.last?.bearerToken == fixture.server.merchantRequests.dropLast().last?.bearerToken)
    }

    @Test("a refused update changes nothing and fires nothing")
    func refusedUpdate() async throws {
        let fixture = CloverFixture()
        let good = fixture.server.mintAccessToken()
        _ = try await fixture.sdk.setup(configuration: try CloverFixture.none(good))
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)

        let error = await #expect(throws: OAuthError.self) { try await fixture.sdk.updateToken("not-a-token") }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(!(error?.description.contains("not-a-token") ?? true))
        #expect(try await fixture.session?.accessToken == good)
        #expect(callbacks.value == 0)
    }

    @Test("updateToken is refused outside No OAuth, without a request")
    func updateTokenOutsideNoOAuth() async throws {
        let fixture = CloverFixture()
        let beforeSetup = await #expect(throws: OAuthError.self) { try await fixture.sdk.updateToken("t") }
        #expect(beforeSetup?.code == .configuration)
        try await fixture.logInWithFullOAuth()
        let requests = fixture.server.requests.count
        let inFull = await #expect(throws: OAuthError.self) { try await fixture.sdk.updateToken("t") }
        #expect(inFull?.code == .configuration)
        #expect(fixture.server.requests.count == requests)
    }

    struct RefusedCase: CustomTestStringConvertible, Sendable {
        let name: String
        let otherMerchant: Bool
        var testDescription: String { name }
    }

    /// CLV-NONE-3.
    @Test("an invalid token, or one of another merchant: setup throws, nothing stored, not logged in", arguments: [
        RefusedCase(name: "unknown token", otherMerchant: false),
        RefusedCase(name: "another merchant's token", otherMerchant: true),
    ])
    func refusedToken(_ testCase: RefusedCase) async throws {
        let fixture = CloverFixture()
        let callbacks = CallCounter()
        _ = await fixture.sdk.addOnTokenChangeCallback(callbacks.callback)
        let token = testCase.otherMerchant ? fixture.server.mintAccessToken(merchantID: StubClover.otherMerchantID) : "made-up-token"

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.sdk.setup(configuration: try CloverFixture.none(token))
        }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(!(error?.description.contains(token) ?? true))
        #expect(try await fixture.session == nil)
        #expect(await !fixture.sdk.isLoggedIn)
        #expect(callbacks.value == 0)
        #expect(fixture.server.requests.count == 1)
    }
}
