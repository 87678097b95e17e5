import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-PRODUCTS and MLT-EXPIRED against the real `FakeMoltin`.
@Suite("MoltinClient products and expiry", .integration, .timeLimit(.minutes(20)))
struct MoltinClientProductsTests {
    @Test("products sends the Bearer token and decodes the list", arguments: FakeTransportMode.allCases)
    func productsWithToken(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        try await world.authenticate()
        let products = try await world.client.products()
        #expect(products == [
            MoltinProduct(id: "1001", title: "Moltin T-shirt"),
            MoltinProduct(id: "1002", title: "Mug"),
        ])
        let request = try #require(world.requests.last)
        #expect(request.method == "GET")
        #expect(request.target == "/v1/products")
        #expect(request.headers["Authorization"] == "Bearer \(try #require(world.issuedToken(1)))")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.body.isEmpty)
        #expect(world.tap.requests.last?.body == nil)
    }

    @Test("products with no token at all sends no Authorization header")
    func productsWithoutToken() async throws {
        let world = try MoltinWorld()
        let error = await #expect(throws: OAuthError.self) { try await world.client.products() }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 400)
        #expect(error?.message == "Access token is required")
        #expect(world.requests.count == 1)
        #expect(world.requests.first?.headers["Authorization"] == nil)
    }

    @Test("an expired token is refreshed before use, never sent")
    func refreshesExpiredTokenBeforeUse() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.clock.advance(by: 61 * 60)
        #expect(try await world.client.products().count == 2)

        let requests = world.requests
        #expect(requests.count == 3)
        #expect(requests[1].formField("grant_type") == "refresh_token")
        #expect(requests[1].formField("refresh_token") == world.issuedToken(1))
        #expect(requests[2].path == FakeMoltin.productsPath)
        #expect(requests[2].bearerToken == world.issuedToken(2))
        #expect(world.productsRequests.allSatisfy { $0.bearerToken != world.issuedToken(1) })
        let stored = try #require(try await world.client.currentToken())
        #expect(stored.accessToken == world.issuedToken(2))
        #expect(stored.expiresAt == world.clock.now.addingTimeInterval(3600))
    }

    struct MarginCase: CustomTestStringConvertible, Sendable {
        let elapsed: TimeInterval
        let refreshes: Bool
        var testDescription: String { "\(Int(elapsed))s after auth: refresh \(refreshes)" }
    }

    @Test("refreshes from refreshMargin (60 s) before expiry", arguments: [
        MarginCase(elapsed: 0, refreshes: false),
        MarginCase(elapsed: 3539, refreshes: false),
        MarginCase(elapsed: 3540, refreshes: true),
        MarginCase(elapsed: 3599, refreshes: true),
        MarginCase(elapsed: 3600, refreshes: true),
        MarginCase(elapsed: 61 * 60, refreshes: true),
    ])
    func margin(_ testCase: MarginCase) async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.clock.advance(by: testCase.elapsed)
        _ = try await world.client.products()
        #expect(world.tokenRequests(grant: "refresh_token").count == (testCase.refreshes ? 1 : 0))
        #expect(world.productsRequests.last?.bearerToken == world.issuedToken(testCase.refreshes ? 2 : 1))
    }

    /// The fake refuses to refresh a dead token: revoking makes the refresh fail.
    @Test("a refused refresh falls back to client_credentials")
    func refreshFallsBackToAuth() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.moltin.revokeAllTokens()
        world.clock.advance(by: 61 * 60)
        #expect(try await world.client.products().count == 2)
        let grants = world.tokenRequests.map { $0.formField("grant_type") }
        #expect(grants == ["client_credentials", "refresh_token", "client_credentials"])
        #expect(world.productsRequests.map(\.bearerToken) == [world.issuedToken(2)])
        #expect(try await world.client.currentToken()?.accessToken == world.issuedToken(2))
    }

    @Test("after a relaunch an expired token cannot be renewed: notLoggedIn, nothing sent")
    func expiredWithoutCredentials() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let relaunched = try world.relaunched()
        world.clock.advance(by: 61 * 60)
        let error = await #expect(throws: OAuthError.self) { try await relaunched.client.products() }
        #expect(error?.code == .notLoggedIn)
        #expect(world.requests.count == 1)
        #expect(try await relaunched.client.currentToken()?.accessToken == world.issuedToken(1))
    }

    @Test("after a relaunch a token inside the margin but unexpired is still used")
    func insideMarginWithoutCredentials() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let relaunched = try world.relaunched()
        world.clock.advance(by: 3570)
        #expect(try await relaunched.client.products().count == 2)
        #expect(world.productsRequests.map(\.bearerToken) == [world.issuedToken(1)])
    }

    @Test("'Access token is not valid' is recovered once, then the call is retried once")
    func recoversFromInvalidToken() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        // The server forgets the token although the client's clock says it is valid.
        world.moltin.revokeAllTokens()
        #expect(try await world.client.products().count == 2)
        let requests = world.requests
        #expect(requests.count == 5)
        #expect(requests[1].bearerToken == world.issuedToken(1))
        // Refreshing with a revoked token is refused, so the client re-authenticates.
        #expect(requests[2].formField("grant_type") == "refresh_token")
        #expect(requests[3].formField("grant_type") == "client_credentials")
        #expect(world.productsRequests.count == 2)
        #expect(world.productsRequests.last?.bearerToken == world.issuedToken(2))
    }

    @Test("recovery uses refresh when the server accepts it")
    func recoversWithRefresh() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.server.inject(Fault(kind: .tokenNotValid, path: FakeMoltin.productsPath, times: 1))
        #expect(try await world.client.products().count == 2)
        let grants = world.tokenRequests.map { $0.formField("grant_type") }
        #expect(grants == ["client_credentials", "refresh_token"])
        #expect(world.productsRequests.map(\.bearerToken) == [world.issuedToken(1), world.issuedToken(2)])
    }

    @Test("a token rejected again after recovery is tokenRejected, with no loop")
    func neverLoops() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.server.inject(Fault(kind: .tokenNotValid, path: FakeMoltin.productsPath))
        let error = await #expect(throws: OAuthError.self) { try await world.client.products() }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(error?.message == "Access token is not valid")
        #expect(world.productsRequests.count == 2)
        #expect(world.tokenRequests.count == 2)  // auth + one recovery
        #expect(world.requests.count == 4)
    }

    @Test("a rejected token with no credentials to renew it is tokenRejected after one request")
    func rejectedWithoutCredentials() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let relaunched = try world.relaunched()
        world.moltin.revokeAllTokens()
        let error = await #expect(throws: OAuthError.self) { try await relaunched.client.products() }
        #expect(error?.code == .tokenRejected)
        #expect(world.requests.count == 2)
    }

    /// A 200 without `result` is an answer the fake never gives: a raw wire answer.
    @Test("a 200 without a result list is invalidResponse")
    func missingResult() async throws {
        let world = try MoltinWorld(rawAnswers: true)
        try await world.authenticate()
        world.raw?.set { $0.path == FakeMoltin.productsPath ? .rawJSON(200, #"{"status":true}"#) : nil }
        let error = await #expect(throws: OAuthError.self) { try await world.client.products() }
        #expect(error?.code == .invalidResponse)
    }
}

/// A thread-safe counter for interceptors.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// Adds one and returns the new value.
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
