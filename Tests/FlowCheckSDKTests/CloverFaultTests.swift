import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against every Clover call. A code exchange, a refresh or a merchant
/// fetch that fails this way is transient: the stored session stays byte for byte, no
/// token-change callback fires, the SDK stays logged in, and the session works once the fault
/// clears (the refresh token was not spent or ended).
@Suite("Clover under network faults", .timeLimit(.minutes(5)))
struct CloverFaultTests {
    enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Partial OAuth `setup` with a new code while a session is stored: the token request.
        case codeExchange
        /// `merchant()` after the access token expired: the refresh request.
        case refresh
        /// `merchant()` with a fresh token: the merchant request.
        case merchant

        var testDescription: String { rawValue }

        func isFaulted(_ request: TransportRequest) -> Bool {
            switch self {
            case .codeExchange: request.isCloverToken
            case .refresh: request.isCloverRefresh
            case .merchant: request.isCloverMerchant
            }
        }
    }

    static let tokenBody = #"{"access_token":"at-99","access_token_expiration":1767227400,"refresh_token":"rt-99","refresh_token_expiration":1769817600}"#
    static let merchantBody = #"{"id":"MERCH0001","name":"Bean There Café","currency":"USD"}"#

    @Test("a typed error, one request, the session kept", arguments: NetworkFault.allCases, Operation.allCases)
    func fault(_ fault: NetworkFault, _ operation: Operation) async throws {
        let fixture = CloverFixture(deadline: NetworkFault.timeout)
        try await fixture.logInWithFullOAuth()
        let sdk = fixture.sdk
        let session = try #require(try await fixture.session)
        let before = try #require(try fixture.store.read(CloverPaymentSDK.storeKey))
        let callbacks = CallCounter()
        _ = await sdk.addOnTokenChangeCallback(callbacks.callback)

        let pkce = CloverPaymentSDK.makeCodeChallenge(random: PinnedRandomSource(seed: 700))
        let code = fixture.server.issueCode(challenge: pkce.challenge)
        let partial = try CloverFixture.partial(OAuthCodeResponse(code: code, codeVerifier: pkce.verifier, merchantID: StubClover.merchantID))
        if operation == .refresh {
            fixture.clock.advance(by: 31 * 60)
        }
        let requestsBefore = fixture.server.requests.count
        fixture.server.intercept { request in
            guard operation.isFaulted(request) else { return nil }
            return try await fault.respond(to: request, success: request.isCloverMerchant ? Self.merchantBody : Self.tokenBody)
        }

        let error = try await fault.error(clock: fixture.clock) {
            switch operation {
            case .codeExchange: _ = try await sdk.setup(configuration: partial)
            case .refresh, .merchant: _ = try await sdk.merchant()
            }
        }

        fault.check(error, secrets: [session.accessToken, StubClover.appSecret, code, pkce.verifier] + [session.refreshToken].compactMap { $0 })
        #expect(try fixture.store.read(CloverPaymentSDK.storeKey) == before)
        #expect(callbacks.value == 0)
        #expect(await sdk.isLoggedIn)
        #expect(fixture.server.requests.count == requestsBefore + 1)

        fixture.server.intercept(nil)
        #expect(try await sdk.merchant() == CloverMerchant(id: StubClover.merchantID, name: StubClover.merchantName))
    }
}
