import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-API-1, CLV-API-2, the shared refresh of CLV-FULL-4, persistence across relaunches, and the
/// error mapping of API calls.
@Suite("Clover session, callbacks and errors", .integration, .timeLimit(.minutes(20)))
struct CloverSessionTests {
    /// CLV-API-1.
    @Test("logout empties the store, fires the callback once, and the next Full setup opens the browser")
    func logout() async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)

        try await world.sdk.logout()
        #expect(try world.store.keys().isEmpty)
        #expect(await !world.sdk.isLoggedIn)
        #expect(callbacks.value == 1)
        let error = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }
        #expect(error?.code == .notLoggedIn)

        // Nothing left to delete: no change, no callback.
        try await world.sdk.logout()
        #expect(callbacks.value == 1)

        #expect(try await world.sdk.setup(configuration: try world.full) == .loginStarted)
        #expect(world.browser.openedURLs.count == 2)
    }

    @Test("logout forgets a pending login: its redirect is refused")
    func logoutForgetsPendingLogin() async throws {
        let world = try CloverWorld()
        _ = try await world.sdk.setup(configuration: try world.full)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        try await world.sdk.logout()
        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }

    /// CLV-API-2.
    @Test("removeOnTokenChangeCallback: true for a known id, false otherwise; a removed callback never fires")
    func removeCallback() async throws {
        let world = try CloverWorld()
        let kept = CallCounter()
        let removed = CallCounter()
        let keptID = await world.sdk.addOnTokenChangeCallback(kept.callback)
        let removedID = await world.sdk.addOnTokenChangeCallback(removed.callback)
        #expect(keptID != removedID)

        #expect(await world.sdk.removeOnTokenChangeCallback(identifier: removedID))
        #expect(await !world.sdk.removeOnTokenChangeCallback(identifier: removedID))
        #expect(await !world.sdk.removeOnTokenChangeCallback(identifier: "no-such-callback"))
        #expect(await !world.sdk.removeOnTokenChangeCallback(identifier: ""))

        try await world.logInWithFullOAuth()
        world.clock.advance(by: 31 * 60)
        _ = try await world.sdk.merchant()
        try await world.sdk.logout()
        #expect(kept.value == 3)
        #expect(removed.value == 0)
        #expect(await world.sdk.removeOnTokenChangeCallback(identifier: keptID))
    }

    @Test("callbacks fire exactly once per change: new, refreshed, invalidated, deleted")
    func oncePerChange() async throws {
        let world = try CloverWorld()
        let first = CallCounter()
        let second = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(first.callback)
        _ = await world.sdk.addOnTokenChangeCallback(second.callback)

        _ = try await world.sdk.setup(configuration: try world.full)
        #expect(first.value == 0)
        try await world.logInWithFullOAuth()                          // new
        #expect(first.value == 1)
        _ = try await world.sdk.setup(configuration: try world.full)
        _ = try await world.sdk.merchant()
        #expect(first.value == 1, "using a token is not a change")
        world.clock.advance(by: 31 * 60)
        _ = try await world.sdk.merchant()                            // refreshed
        _ = try await world.sdk.merchant()
        #expect(first.value == 2)
        world.clover.revokeAllTokens()
        world.clock.advance(by: 31 * 60)
        _ = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }  // invalidated
        #expect(first.value == 3)
        _ = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }
        #expect(first.value == 3)
        try await world.logInWithFullOAuth()                          // new
        try await world.sdk.logout()                                  // deleted
        #expect(first.value == 5)
        #expect(second.value == first.value)
    }

    /// CLV-FULL-4: concurrent callers share one refresh.
    ///
    /// The tap holds the refresh request before it reaches the fake until the second caller has
    /// joined the refresh in flight (the SDK's internal join hook opens the gate), so both
    /// callers are provably waiting at the same time. If the SDK started a second refresh
    /// instead, that request opens the gate, the test fails on the count, and nothing hangs.
    @Test("two concurrent merchant() calls after expiry cause exactly one refresh", arguments: FakeTransportMode.allCases)
    func concurrentCallersShareOneRefresh(_ mode: FakeTransportMode) async throws {
        let world = try CloverWorld(mode: mode)
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        world.clock.advance(by: 31 * 60)

        let gate = Gate("second caller joined")
        let refreshes = CallCounter()
        world.tap.beforeSend { request in
            if request.url.path == FakeClover.refreshPath {
                if refreshes.increment() >= 2 { gate.open() }
                try await gate.wait()
            }
        }
        await world.sdk.setRefreshJoinObserver { gate.open() }

        // Tasks, not `async let`: a second caller stuck on a join that never ends (an SDK
        // regression) must fail by name at a bound, not hold the test past its time limit.
        let sdk = world.sdk
        let first = Task { try await sdk.merchant() }
        let second = Task { try await sdk.merchant() }
        let a = try await boundedValue(of: first, waitingFor: "the first concurrent merchant()")
        let b = try await boundedValue(of: second, waitingFor: "the second concurrent merchant()")

        #expect(a == b)
        #expect(world.refreshRequests.count == 1)
        let renewed = try #require(world.issuedPairs.last?.access)
        #expect(world.merchantRequests.suffix(2).map(\.bearerToken) == [renewed, renewed])
        #expect(try await world.session?.accessToken == renewed)
        #expect(callbacks.value == 1)
    }

    @Test("a refresh that finishes after a logout is not stored")
    func refreshRacingLogout() async throws {
        let world = try CloverWorld()
        try await world.logInWithFullOAuth()
        let callbacks = CallCounter()
        _ = await world.sdk.addOnTokenChangeCallback(callbacks.callback)
        world.clock.advance(by: 31 * 60)

        let arrived = Gate("refresh arrived")
        let release = Gate("release refresh")
        world.tap.beforeSend { request in
            if request.url.path == FakeClover.refreshPath {
                arrived.open()
                try await release.wait()
            }
        }
        let sdk = world.sdk
        let call = Task { try await sdk.merchant() }
        try await arrived.wait()
        try await world.sdk.logout()
        release.open()

        let error = await #expect(throws: OAuthError.self) {
            try await boundedValue(of: call, waitingFor: "merchant() whose refresh finished after the logout")
        }
        #expect(error?.code == .notLoggedIn)
        #expect(try world.store.keys().isEmpty)
        #expect(callbacks.value == 1)
        #expect(world.merchantRequests.isEmpty, "the refreshed token is never used after the logout")
    }

    @Test("a relaunch over a file store keeps every field of the session; the pending login is gone")
    func relaunchOverFileStore() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let world = try CloverWorld()
        let clock = world.clock
        let server = world.wiring.transport
        let firstStore = try FileTokenStore(directory: temporary.url)
        let first = CloverPaymentSDK(store: firstStore, transport: server, userAgent: RecordingUserAgent(), clock: clock)
        let browser = RecordingUserAgent()
        let login = CloverPaymentSDK(store: firstStore, transport: server, userAgent: browser, clock: clock)
        _ = try await login.setup(configuration: try world.full)
        try await login.receivedOAuthCodeOrToken(try await world.authorize(try #require(browser.openedURLs.last)))
        let stored = try #require(try await first.storedSession())

        let relaunched = CloverPaymentSDK(store: try FileTokenStore(directory: temporary.url), transport: server,
                                          userAgent: RecordingUserAgent(), clock: clock)
        #expect(try await relaunched.storedSession() == stored)
        #expect(stored.refreshToken != nil && stored.accessTokenExpiration != nil && stored.refreshTokenExpiration != nil)
        #expect(await relaunched.isLoggedIn)
        clock.advance(by: 31 * 60)
        _ = try await relaunched.setup(configuration: try world.full)
        #expect(world.refreshRequests.first?.jsonObject?["refresh_token"] == stored.refreshToken)

        let raw = try #require(try FileTokenStore(directory: temporary.url).read(CloverPaymentSDK.storeKey))
        let keys = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any]).keys.sorted()
        #expect(keys == ["accessToken", "accessTokenExpiration", "merchantID", "refreshToken", "refreshTokenExpiration"])
    }

    @Test("merchant() before setup is a configuration error; an unknown flow type is refused")
    func misuse() async throws {
        struct HomeMadeFlow: OAuthFlowType {}
        let world = try CloverWorld()
        let early = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }
        #expect(early?.code == .configuration)
        let unknown = await #expect(throws: OAuthError.self) {
            try await world.sdk.setup(configuration: try world.configuration(HomeMadeFlow()))
        }
        #expect(unknown?.code == .configuration)
        #expect(world.tap.requests.isEmpty)
    }

    /// A merchant fetch that fails: the fake's own faults where it has one, raw wire answers for
    /// a server that echoes what it was sent or answers as the fake never does (404, no name),
    /// and transports that fail, one quoting the token.
    enum MerchantFailure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case unreachableEchoingToken, foreignTransportError, serverErrorEchoingHeader, unauthorizedEchoingToken
        case notFound, notJSON, noName

        var testDescription: String { rawValue }

        var code: OAuthError.Code {
            switch self {
            case .unreachableEchoingToken, .foreignTransportError: .transport
            case .serverErrorEchoingHeader: .serverError
            case .unauthorizedEchoingToken: .tokenRejected
            case .notFound: .httpStatus
            case .notJSON, .noName: .invalidResponse
            }
        }

        func arm(_ world: CloverWorld) {
            let prefix = FakeClover.merchantsPrefix
            switch self {
            case .unreachableEchoingToken:
                world.tap.beforeSend { request in
                    guard request.url.path.hasPrefix(prefix) else { return }
                    throw OAuthError(code: .transport, message: "could not send \(request.bearerToken ?? "")")
                }
            case .foreignTransportError:
                world.tap.beforeSend { request in
                    if request.url.path.hasPrefix(prefix) { throw URLError(.cannotConnectToHost) }
                }
            case .serverErrorEchoingHeader:
                world.raw?.set { request in
                    request.path.hasPrefix(prefix) ? .rawJSON(500, #"{"message":"boom for \#(request.headers["Authorization"] ?? "")"}"#) : nil
                }
            case .unauthorizedEchoingToken:
                world.raw?.set { request in
                    request.path.hasPrefix(prefix) ? .rawJSON(401, #"{"message":"token \#(request.bearerToken ?? "") is not valid"}"#) : nil
                }
            case .notFound:
                world.raw?.set { $0.path.hasPrefix(prefix) ? .rawJSON(404, #"{"message":"Not found"}"#) : nil }
            case .notJSON:
                world.server.inject(Fault(kind: .nonJSONBody, path: prefix + CloverWorld.merchantID))
            case .noName:
                world.raw?.set { $0.path.hasPrefix(prefix) ? .rawJSON(200, #"{"id":"MERCH0001"}"#) : nil }
            }
        }
    }

    /// Every failure keeps the session, and no description carries a secret, even when the
    /// server or the transport echoes one.
    @Test("merchant failures are mapped and keep the session", arguments: MerchantFailure.allCases)
    func merchantFailures(_ failure: MerchantFailure) async throws {
        let world = try CloverWorld(rawAnswers: true)
        try await world.logInWithFullOAuth()
        let session = try #require(try await world.session)
        failure.arm(world)

        let error = await #expect(throws: OAuthError.self) { try await world.sdk.merchant() }
        #expect(error?.code == failure.code)
        #expect(try await world.session == session)
        #expect(await world.sdk.isLoggedIn)
        let description = error?.description ?? ""
        for secret in [session.accessToken, session.refreshToken ?? "-", CloverWorld.appSecret, CloverWorld.apiSecret] {
            #expect(!description.contains(secret), "\(description)")
        }
    }

    @Test("token-endpoint errors that echo the code, verifier and secrets are scrubbed")
    func tokenEndpointEcho() async throws {
        let world = try CloverWorld(rawAnswers: true)
        world.raw?.set { request in
            guard request.path == FakeClover.tokenPath || request.path == FakeClover.refreshPath else { return nil }
            let echoed = request.bodyText.replacingOccurrences(of: "\"", with: "'")
            return .rawJSON(400, #"{"error":"invalid_grant","error_description":"bad \#(echoed) \#(CloverWorld.appSecret)"}"#)
        }
        _ = try await world.sdk.setup(configuration: try world.full)
        let redirect = try await world.authorize(try #require(world.browser.openedURLs.last))
        let error = await #expect(throws: OAuthError.self) { try await world.sdk.receivedOAuthCodeOrToken(redirect) }
        // The echoing answer is raw, so the request is read as the SDK handed it over.
        let sent = try #require(world.tap.requests.first { $0.url.path == FakeClover.tokenPath }?.body)
        let verifier = try #require((try JSONSerialization.jsonObject(with: sent) as? [String: String])?["code_verifier"])
        let code = try #require(redirect.queryParameters.first { $0.0 == "code" }?.1)
        let description = try #require(error?.description)
        #expect(error?.code == .tokenEndpoint)
        #expect(description.hasPrefix("tokenEndpoint [HTTP 400]: invalid_grant: bad"))
        for secret in [verifier, code, CloverWorld.appSecret] {
            #expect(!description.contains(secret), "\(description)")
        }
        #expect(!description.contains(redirect.absoluteString))
    }
}
