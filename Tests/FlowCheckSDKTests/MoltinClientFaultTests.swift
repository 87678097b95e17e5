import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The fake server's faults against every Moltin call: a typed error, one request (no retry loop,
/// no redirect followed), the stored token byte for byte as it was, and usable once the fault
/// clears.
@Suite("MoltinClient under network faults", .timeLimit(.minutes(5)))
struct MoltinClientFaultTests {
    enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `auth` over an earlier good token.
        case auth
        /// The explicit `refreshToken`.
        case refreshToken
        /// `products` with a fresh token: the fault hits the products request.
        case products
        /// `products` with an expired token: the fault hits the renewal before it.
        case productsAfterExpiry

        var testDescription: String { rawValue }
    }

    static let tokenBody = #"{"access_token":"tok-99","token_type":"Bearer","expires":1767229200,"expires_in":3600}"#
    static let productsBody = #"{"status":true,"result":[{"id":"1001","title":"Moltin T-shirt"}]}"#

    @Test("a typed error, one request, the last good token kept", arguments: NetworkFault.allCases, Operation.allCases)
    func fault(_ fault: NetworkFault, _ operation: Operation) async throws {
        let fixture = try MoltinFixture(deadline: NetworkFault.timeout)
        let good = try await fixture.authenticate()
        let before = try #require(try fixture.storedBytes)
        if operation == .productsAfterExpiry {
            fixture.clock.advance(by: 61 * 60)
        }
        let requestsBefore = fixture.server.requests.count
        fixture.server.intercept { request in
            try await fault.respond(to: request, success: request.isTokenRequest ? Self.tokenBody : Self.productsBody)
        }

        let client = fixture.client
        let error = try await fault.error(clock: fixture.clock) {
            switch operation {
            case .auth: try await client.auth(clientId: StubMoltin.clientId, clientSecret: StubMoltin.clientSecret)
            case .refreshToken: try await client.refreshToken()
            case .products, .productsAfterExpiry: _ = try await client.products()
            }
        }

        fault.check(error, secrets: [StubMoltin.clientSecret, good.accessToken])
        #expect(try fixture.storedBytes == before)
        #expect(fixture.server.requests.count == requestsBefore + 1)

        // The fault cleared, the kept token and the remembered credentials carry on.
        fixture.server.intercept(nil)
        #expect(try await client.products().map(\.id) == ["1001", "1002"])
        if operation != .productsAfterExpiry {
            #expect(try await client.currentToken() == good, "the good token was used as it was, not replaced")
        }
    }
}
