import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-NONE-1 to CLV-NONE-3 against the real `FakeClover`: the app obtains its token with its
/// own login and code exchange on the fake, then hands it to the SDK. `tap.requests` is what the
/// SDK itself sent.
@Suite("Clover No OAuth", .fast, .timeLimit(.minutes(20)))
struct CloverNoOAuthTests {
    /// CLV-NONE-1.
    @Test("the merchant is fetched with the app's token; no OAuth or refresh call ever, even past expiry")
    func neverRefreshes() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        let token = try await world.mintAccessToken()

        #expect(try await world.sdk.setup(configuration: try world.none(token)) == .ready(world.merchant))
        #expect(world.tap.requests.count == 1)
        let mark = world.requests.count
        #expect(world.merchantRequests.first?.bearerToken == token)
        #expect(world.merchantRequests.first?.target == "/v3/merchants/MERCH0001")
        #expect(try await world.session == CloverStoredSession(accessToken: token, merchantID: CloverWorld.merchantID))
        #expect(await world.sdk.isLoggedIn)
        #expect(callbacks.value == 0, "the app handed the token over itself")
        #expect(world.browser.openedURLs.isEmpty)

        world.clock.advance(by: 31 * 60)
        let error = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }
        #expect(error?.code == .tokenRejected)
        let again = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.none(token))
        }
        #expect(again?.code == .tokenRejected)
        #expect(world.requests.dropFirst(mark).allSatisfy { $0.path.hasPrefix(FakeClover.merchantsPrefix) })
        #expect(world.refreshRequests.isEmpty)
        #expect(world.tap.requests.allSatisfy { $0.url.path.hasPrefix(FakeClover.merchantsPrefix) })
        #expect(world.browser.openedURLs.isEmpty)
        #expect(callbacks.value == 0)
    }

    /// CLV-NONE-2.
    @Test("updateToken: one merchant request per update, stored, callback once each")
    func updateToken() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        _ = try await world.sdk.setup(configuration: try world.none(try await world.mintAccessToken()))
        #expect(world.tap.requests.count == 1)

        for round in 1...3 {
            world.clock.advance(by: 29 * 60)
            let token = try await world.mintAccessToken(seed: 600 + UInt64(round))
            try await world.sdk.updateToken(token)
            #expect(world.tap.requests.count == 1 + round)
            #expect(world.tap.requests.last?.bearerToken == token)
            #expect(world.merchantRequests.last?.bearerToken == token)
            #expect(try await world.session?.accessToken == token)
            #expect(callbacks.value == round)
        }
        #expect(world.tap.requests.allSatisfy { $0.url.path.hasPrefix(FakeClover.merchantsPrefix) })
        #expect(try await world.sdk.merchant() == world.merchant)
        #expect(world.merchantRequests.last?.bearerToken == world.merchantRequests.dropLast().last?.bearerToken)
    }

    @Test("a refused update changes nothing and fires nothing")
    func refusedUpdate() async throws {
        let world = try CloverWorld()
        let good = try await world.mintAccessToken()
        _ = try await world.sdk.setup(configuration: try world.none(good))
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.updateToken("not-a-token") }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(!(error?.description.contains("not-a-token") ?? true))
        #expect(try await world.session?.accessToken == good)
        #expect(callbacks.value == 0)
    }

    @Test("updateToken is refused outside No OAuth, without a request")
    func updateTokenOutsideNoOAuth() async throws {
        let world = try CloverWorld()
        let beforeSetup = await #expect(throws: OAuthError.self) { try await world.sdk.updateToken("t") }
        #expect(beforeSetup?.code == .configuration)
        try await world.logInWithFullOAuth()
        let requests = world.tap.requests.count
        let inFull = await #expect(throws: OAuthError.self) { try await world.sdk.updateToken("t") }
        #expect(inFull?.code == .configuration)
        #expect(world.tap.requests.count == requests)
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
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        let token = testCase.otherMerchant ? try await world.mintAccessToken(as: CloverWorld.otherEmployee) : "made-up-token"

        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.none(token))
        }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(!(error?.description.contains(token) ?? true))
        #expect(try await world.session == nil)
        #expect(await !world.sdk.isLoggedIn)
        #expect(callbacks.value == 0)
        #expect(world.tap.requests.count == 1)
    }
}
