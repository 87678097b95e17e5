import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against every Clover call. A code exchange, a refresh or a merchant
/// fetch that fails this way is transient: the stored session stays byte for byte, no
/// token-change callback fires, the SDK stays logged in, and the session works once the fault
/// clears (the refresh token was not spent or ended).
@Suite("Clover under network faults", .fast, .timeLimit(.minutes(20)))
struct CloverFaultTests {
    enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Partial OAuth `setup` with a new code while a session is stored: the token request.
        case codeExchange
        /// `merchant()` after the access token expired: the refresh request.
        case refresh
        /// `merchant()` with a fresh token: the merchant request.
        case merchant

        var testDescription: String { rawValue }

        var faultedPath: String {
            switch self {
            case .codeExchange: FakeClover.tokenPath
            case .refresh: FakeClover.refreshPath
            case .merchant: FakeClover.merchantsPrefix + CloverWorld.merchantID
            }
        }
    }

    @Test("a typed error, one request, the session kept", arguments: NetworkFault.allCases, Operation.allCases)
    func fault(_ fault: NetworkFault, _ operation: Operation) async throws {
        let world = try CloverWorld(deadline: NetworkFault.timeout, rawAnswers: fault.needsRawAnswer, foreign: fault.isForeign)
        try await world.logInWithFullOAuth()
        let sdk = world.sdk
        let session = try #require(try await world.session)
        let before = try #require(try world.store.read(CloverPaymentSDK.storeKey))
        let callbacks = CallCounter()
        _ = await sdk.addOnTokenChangeCallback(callbacks.callback)

        let login = try await world.appLogin(seed: 700)
        let partial = try world.partial(login)
        if operation == .refresh {
            world.clock.advance(by: 31 * 60)
        }
        let requestsBefore = NetworkFault.wireCount(world.server, raw: world.raw)
        fault.arm(world.server, raw: world.raw, path: operation.faultedPath)

        let error = try await fault.error(clock: world.clock, stalled: world.wiring.stalled) {
            switch operation {
            case .codeExchange: _ = try await sdk.setup(configuration: partial)
            case .refresh, .merchant: _ = try await sdk.merchant()
            }
        }

        fault.check(error, secrets: [session.accessToken, CloverWorld.appSecret, login.code, login.codeVerifier]
            + [session.refreshToken].compactMap { $0 })
        #expect(try world.store.read(CloverPaymentSDK.storeKey) == before)
        #expect(callbacks.value == 0)
        #expect(await sdk.isLoggedIn)
        #expect(NetworkFault.wireCount(world.server, raw: world.raw) == requestsBefore + 1)

        world.server.clearFaults()
        #expect(try await sdk.merchant() == world.merchant)
    }
}
