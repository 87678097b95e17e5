import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckSDK
import FlowCheckTestSupport

@Suite("MoltinClient concurrency", .integration, .timeLimit(.minutes(20)))
struct MoltinClientConcurrencyTests {
    /// CLV-FULL-4 / MLT-EXPIRED: concurrent callers that find an expired token share one refresh.
    ///
    /// The tap holds the refresh request before it reaches the fake until the second caller has
    /// joined the renewal in flight (the client's internal join hook opens the gate), so both
    /// callers are provably waiting at the same time. If the client started a second refresh
    /// instead, the second refresh request opens the gate, the test fails on the count, and
    /// nothing hangs (the gate's wait is bounded too).
    @Test("two concurrent products() after expiry cause exactly one refresh", arguments: FakeTransportMode.allCases)
    func concurrentCallersShareOneRefresh(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        try await world.authenticate()
        world.clock.advance(by: 61 * 60)

        let gate = Gate("second caller joined")
        let refreshes = Counter()
        world.tap.beforeSend { request in
            guard let body = request.body, String(decoding: body, as: UTF8.self).hasPrefix("grant_type=refresh_token") else { return }
            if refreshes.increment() >= 2 { gate.open() }
            try await gate.wait()
        }
        await world.client.setRenewalJoinObserver { gate.open() }

        // Tasks, not `async let`: a second caller stuck on a join that never ends (an SDK
        // regression) must fail by name at a bound, not hold the test past its time limit.
        let client = world.client
        let first = Task { try await client.products() }
        let second = Task { try await client.products() }
        let a = try await boundedValue(of: first, waitingFor: "the first concurrent products()")
        let b = try await boundedValue(of: second, waitingFor: "the second concurrent products()")

        #expect(a.count == 2)
        #expect(b.count == 2)
        #expect(world.tokenRequests(grant: "refresh_token").count == 1)
        let renewed = try #require(world.issuedToken(2))
        #expect(world.productsRequests.map(\.bearerToken) == [renewed, renewed])
        #expect(try await world.client.currentToken()?.accessToken == renewed)
    }

    @Test("callers that arrive after the renewal finished use the stored token, no new refresh")
    func laterCallersReuseToken() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.clock.advance(by: 61 * 60)
        _ = try await world.client.products()
        _ = try await world.client.products()
        #expect(world.tokenRequests(grant: "refresh_token").count == 1)
    }
}

/// Found by the derived interleavings (MLT-AUTH~interleave.step1.POST-oauth-access_token.deleteToken):
/// an Auth whose token request was in flight when the app deleted the token stored its token
/// when the answer came, bringing back what the user had just deleted.
@Suite("MoltinClient: a delete overtakes a call in flight", .integration, .timeLimit(.minutes(20)))
struct MoltinClientDeleteInFlightTests {
    @Test("an Auth answered after Delete Token stores nothing and says so")
    func authAfterDeleteStoresNothing() async throws {
        let world = try MoltinWorld()
        let gate = Gate("the token request is held")
        let arrived = Gate("the token request arrived")
        world.tap.beforeSend { _ in
            arrived.open()
            try await gate.wait()
        }
        let client = world.client
        let auth = Task { try await client.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret) }
        try await arrived.wait()
        try await client.deleteToken()
        gate.open()
        await #expect(throws: OAuthError.self) { _ = try await boundedValue(of: auth, waitingFor: "the held auth") }
        #expect(try await client.currentToken() == nil)
    }
}

/// Found by the derived relaunch interleavings
/// (MLT-EXPIRED~interleave.step3.POST-oauth-access_token.relaunch.deleteToken): a renewal or
/// refresh in flight in one instance, the token deleted by another over the same store (the
/// app relaunched meanwhile); the first instance's answer stored the token again, because it
/// checked only its own change counter. Mutants 63 and 64 put the old code back.
@Suite("MoltinClient: another instance's delete overtakes a renewal in flight", .integration, .timeLimit(.minutes(20)))
struct MoltinClientRelaunchDeleteInFlightTests {
    /// `world`'s client with its token request held at the transport until `body` has run.
    private func holdingTokenRequest(_ world: MoltinWorld, during body: () async throws -> Void, call: @escaping @Sendable () async throws -> Void) async throws -> Task<Void, any Error> {
        let gate = Gate("the token request is held")
        let arrived = Gate("the token request arrived")
        world.tap.beforeSend { request in
            guard request.url.path == FakeMoltin.tokenPath else { return }
            arrived.open()
            try await gate.wait()
        }
        let task = Task { try await call() }
        try await arrived.wait()
        try await body()
        gate.open()
        return task
    }

    @Test("an automatic renewal answered after another instance's Delete Token stores nothing")
    func renewalAfterAnotherInstanceDeletes() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.clock.advance(by: 61 * 60)
        let client = world.client
        let relaunched = try world.relaunched()
        let products = try await holdingTokenRequest(world, during: {
            try await relaunched.client.deleteToken()
        }, call: { _ = try await client.products() })
        _ = try? await boundedValue(of: products, waitingFor: "the products call with its held renewal")
        #expect(world.tokenRequests.count == 2, "the renewal's token request was not sent")
        #expect(try world.storedBytes == nil, "the renewal stored a token the other instance had deleted")
    }

    @Test("an explicit refresh answered after another instance's Delete Token stores nothing and says so")
    func refreshAfterAnotherInstanceDeletes() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let client = world.client
        let relaunched = try world.relaunched()
        let refresh = try await holdingTokenRequest(world, during: {
            try await relaunched.client.deleteToken()
        }, call: { _ = try await client.refreshToken() })
        await #expect(throws: OAuthError.self) { try await boundedValue(of: refresh, waitingFor: "the held refresh") }
        #expect(try world.storedBytes == nil, "the refresh stored a token the other instance had deleted")
    }
}
