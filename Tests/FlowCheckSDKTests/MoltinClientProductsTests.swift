import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-PRODUCTS and MLT-EXPIRED against the in-test stub.
@Suite("MoltinClient products and expiry", .timeLimit(.minutes(5)))
struct MoltinClientProductsTests {
    @Test("products sends the Bearer token and decodes the list")
    func productsWithToken() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let products = try await fixture.client.products()
        #expect(products == [
            MoltinProduct(id: "1001", title: "Moltin T-shirt"),
            MoltinProduct(id: "1002", title: "Mug"),
        ])
        let request = try #require(fixture.server.requests.last)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/v1/products")
        #expect(request.header("Authorization") == "Bearer tok-1")
        #expect(request.header("Accept") == "application/json")
        #expect(request.body == nil)
    }

    @Test("products with no token at all sends no Authorization header")
    func productsWithoutToken() async throws {
        let fixture = try MoltinFixture()
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.products() }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 400)
        #expect(error?.message == "Access token is required")
        #expect(fixture.server.requests.count == 1)
        #expect(fixture.server.requests.first?.header("Authorization") == nil)
    }

    @Test("an expired token is refreshed before use, never sent")
    func refreshesExpiredTokenBeforeUse() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.clock.advance(by: 61 * 60)
        #expect(try await fixture.client.products().count == 2)

        let requests = fixture.server.requests
        #expect(requests.count == 3)
        #expect(requests[1].formValue("grant_type") == "refresh_token")
        #expect(requests[1].formValue("refresh_token") == "tok-1")
        #expect(requests[2].isProducts)
        #expect(requests[2].bearerToken == "tok-2")
        #expect(fixture.server.productsRequests.allSatisfy { $0.bearerToken != "tok-1" })
        let stored = try #require(try await fixture.client.currentToken())
        #expect(stored.accessToken == "tok-2")
        #expect(stored.expiresAt == fixture.clock.now.addingTimeInterval(3600))
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
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.clock.advance(by: testCase.elapsed)
        _ = try await fixture.client.products()
        #expect(fixture.server.tokenRequests(grant: "refresh_token").count == (testCase.refreshes ? 1 : 0))
        #expect(fixture.server.productsRequests.last?.bearerToken == (testCase.refreshes ? "tok-2" : "tok-1"))
    }

    @Test("a refused refresh falls back to client_credentials")
    func refreshFallsBackToAuth() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.server.refuseRefresh()
        fixture.clock.advance(by: 61 * 60)
        #expect(try await fixture.client.products().count == 2)
        let grants = fixture.server.tokenRequests.map { $0.formValue("grant_type") }
        #expect(grants == ["client_credentials", "refresh_token", "client_credentials"])
        #expect(fixture.server.productsRequests.map(\.bearerToken) == ["tok-2"])
        #expect(try await fixture.client.currentToken()?.accessToken == "tok-2")
    }

    @Test("after a relaunch an expired token cannot be renewed: notLoggedIn, nothing sent")
    func expiredWithoutCredentials() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let relaunched = try fixture.relaunched()
        fixture.clock.advance(by: 61 * 60)
        let error = await #expect(throws: OAuthError.self) { try await relaunched.client.products() }
        #expect(error?.code == .notLoggedIn)
        #expect(fixture.server.requests.count == 1)
        #expect(try await relaunched.client.currentToken()?.accessToken == "tok-1")
    }

    @Test("after a relaunch a token inside the margin but unexpired is still used")
    func insideMarginWithoutCredentials() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let relaunched = try fixture.relaunched()
        fixture.clock.advance(by: 3570)
        #expect(try await relaunched.client.products().count == 2)
        #expect(fixture.server.productsRequests.map(\.bearerToken) == ["tok-1"])
    }

    @Test("'Access token is not valid' is recovered once, then the call is retried once")
    func recoversFromInvalidToken() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        // The server forgets the token although the client's clock says it is valid.
        fixture.server.revokeAllTokens()
        #expect(try await fixture.client.products().count == 2)
        let requests = fixture.server.requests
        #expect(requests.count == 5)
        #expect(requests[1].bearerToken == "tok-1")
        // Refreshing with a revoked token is refused, so the client re-authenticates.
        #expect(requests[2].formValue("grant_type") == "refresh_token")
        #expect(requests[3].formValue("grant_type") == "client_credentials")
        #expect(fixture.server.productsRequests.count == 2)
        #expect(fixture.server.productsRequests.last?.bearerToken == "tok-2")
    }

    @Test("recovery uses refresh when the server accepts it")
    func recoversWithRefresh() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let rejectedOnce = Counter()
        fixture.server.intercept { request in
            guard request.isProducts, rejectedOnce.increment() == 1 else { return nil }
            return .json(401, #"{"status":false,"error":"Access token is not valid"}"#)
        }
        #expect(try await fixture.client.products().count == 2)
        let grants = fixture.server.tokenRequests.map { $0.formValue("grant_type") }
        #expect(grants == ["client_credentials", "refresh_token"])
        #expect(fixture.server.productsRequests.map(\.bearerToken) == ["tok-1", "tok-2"])
    }

    @Test("a token rejected again after recovery is tokenRejected, with no loop")
    func neverLoops() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.server.intercept { request in
            request.isProducts ? .json(401, #"{"status":false,"error":"Access token is not valid"}"#) : nil
        }
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.products() }
        #expect(error?.code == .tokenRejected)
        #expect(error?.status == 401)
        #expect(error?.message == "Access token is not valid")
        #expect(fixture.server.productsRequests.count == 2)
        #expect(fixture.server.tokenRequests.count == 2)  // auth + one recovery
        #expect(fixture.server.requests.count == 4)
    }

    @Test("a rejected token with no credentials to renew it is tokenRejected after one request")
    func rejectedWithoutCredentials() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let relaunched = try fixture.relaunched()
        fixture.server.revokeAllTokens()
        let error = await #expect(throws: OAuthError.self) { try await relaunched.client.products() }
        #expect(error?.code == .tokenRejected)
        #expect(fixture.server.requests.count == 2)
    }

    @Test("a 200 without a result list is invalidResponse")
    func missingResult() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.server.intercept { $0.isProducts ? .json(200, #"{"status":true}"#) : nil }
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.products() }
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
