import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-PART-1 to CLV-PART-5 against the real `FakeClover`: the app's own login (PKCE with the
/// SDK's helper, the employee on the fake's page) hands the SDK a code.
@Suite("Clover Partial OAuth", .fast, .timeLimit(.minutes(20)))
struct CloverPartialOAuthTests {
    /// CLV-PART-1.
    @Test("first launch: the code is exchanged with its verifier, stored, callback once, ready")
    func firstLaunch() async throws {
        let world = try CloverWorld()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        let response = try await world.appLogin()

        #expect(try await world.sdk.setup(configuration: try world.partial(response)) == .ready(world.merchant))
        #expect(world.browser.openedURLs.isEmpty)
        let exchange = try #require(world.tokenRequests.first)
        #expect(world.tokenRequests.count == 1)
        #expect(exchange.jsonObject == ["client_id": CloverWorld.appID, "code": response.code, "code_verifier": response.codeVerifier])
        let pair = try #require(world.issuedPairs.first)
        #expect(world.merchantRequests.map(\.bearerToken) == [pair.access])
        #expect(try await world.session?.accessToken == pair.access)
        #expect(try await world.session?.merchantID == CloverWorld.merchantID)
        #expect(callbacks.value == 1)
        #expect(await world.sdk.isLoggedIn)
        for request in world.requests {
            #expect(!request.allText.contains(CloverWorld.appSecret) && !request.allText.contains(CloverWorld.apiSecret))
        }
    }

    /// CLV-PART-2.
    @Test("later launch with nil: the stored token is used, no exchange")
    func laterLaunch() async throws {
        let world = try CloverWorld()
        _ = try await world.sdk.setup(configuration: try world.partial(try await world.appLogin()))
        let relaunched = world.relaunched()
        let callbacks = CallCounter()
        _ = await relaunched.sdk.addOnTokenChangeCallback(callbacks.callback)

        #expect(try await relaunched.sdk.setup(configuration: try world.partial(nil)) == .ready(world.merchant))
        #expect(world.tokenRequests.count == 1)
        #expect(world.refreshRequests.isEmpty)
        let access = try #require(world.issuedPairs.first?.access)
        #expect(world.merchantRequests.map(\.bearerToken) == [access, access])
        #expect(callbacks.value == 0)
    }

    /// CLV-PART-3.
    @Test("the same code twice: refused by the server, the good stored session is kept")
    func sameCodeTwice() async throws {
        let world = try CloverWorld()
        let response = try await world.appLogin()
        _ = try await world.sdk.setup(configuration: try world.partial(response))
        let good = try await world.session
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)

        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.partial(response))
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.status == 400)
        #expect(error?.message.hasPrefix("invalid_grant") == true)
        #expect(!(error?.description.contains(response.code) ?? true))
        #expect(!(error?.description.contains(response.codeVerifier) ?? true))
        #expect(world.tokenRequests.count == 2)
        #expect(try await world.session == good)
        #expect(await world.sdk.isLoggedIn)
        #expect(callbacks.value == 0)
        #expect(try await world.sdk.setup(configuration: try world.partial(nil)) == .ready(world.merchant))
    }

    @Test("a wrong verifier is refused by the server (PKCE checked with our SHA-256)")
    func wrongVerifier() async throws {
        let world = try CloverWorld()
        var response = try await world.appLogin()
        response.codeVerifier = PKCE(random: PinnedRandomSource(seed: 12345)).verifier
        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.partial(response))
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(try await world.session == nil)
    }

    /// CLV-PART-4.
    @Test("nil with an empty store: not logged in, no network call at all")
    func nilWithEmptyStore() async throws {
        let world = try CloverWorld()
        let error = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.partial(nil))
        }
        #expect(error?.code == .notLoggedIn)
        #expect(world.tap.requests.isEmpty)
        #expect(world.browser.openedURLs.isEmpty)
    }

    /// CLV-PART-5.
    @Test("past 30 minutes the SDK refreshes the token itself")
    func refreshesInPartialMode() async throws {
        let world = try CloverWorld()
        _ = try await world.sdk.setup(configuration: try world.partial(try await world.appLogin()))
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        world.clock.advance(by: 31 * 60)

        #expect(try await world.sdk.merchant() == world.merchant)
        #expect(world.refreshRequests.count == 1)
        #expect(world.refreshRequests.first?.jsonObject?["refresh_token"] == world.issuedPairs.first?.refresh)
        #expect(world.merchantRequests.last?.bearerToken == world.issuedPairs.last?.access)
        #expect(callbacks.value == 1)

        world.clock.advance(by: 31 * 60)
        #expect(try await world.sdk.setup(configuration: try world.partial(nil)) == .ready(world.merchant))
        #expect(world.refreshRequests.count == 2)
        #expect(callbacks.value == 2)
    }

    @Test("an empty code, verifier or merchant is refused before any request")
    func emptyFields() async throws {
        let world = try CloverWorld()
        for response in [
            OAuthCodeResponse(code: "", codeVerifier: "v", merchantID: "M"),
            OAuthCodeResponse(code: "c", codeVerifier: "", merchantID: "M"),
            OAuthCodeResponse(code: "c", codeVerifier: "v", merchantID: ""),
        ] {
            let error = await #expect(throws: OAuthError.self) {
                try await world.sdk.setup(configuration: try world.partial(response))
            }
            #expect(error?.code == .configuration)
        }
        #expect(world.tap.requests.isEmpty)
    }
}
