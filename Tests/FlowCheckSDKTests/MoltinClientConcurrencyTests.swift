import Foundation
import Testing
@testable import FlowCheckSDK
import FlowCheckTestSupport

@Suite("MoltinClient concurrency", .timeLimit(.minutes(5)))
struct MoltinClientConcurrencyTests {
    /// CLV-FULL-4 / MLT-EXPIRED: concurrent callers that find an expired token share one refresh.
    ///
    /// The stub holds the refresh answer until the second caller has joined the renewal in flight
    /// (the client's internal join hook opens the gate), so both callers are provably waiting at
    /// the same time. If the client started a second refresh instead, the second refresh request
    /// opens the gate, the test fails on the count, and nothing hangs.
    @Test("two concurrent products() after expiry cause exactly one refresh")
    func concurrentCallersShareOneRefresh() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.clock.advance(by: 61 * 60)

        let gate = Gate("second caller joined")
        let refreshes = Counter()
        fixture.server.intercept { request in
            if request.formValue("grant_type") == "refresh_token" {
                if refreshes.increment() >= 2 { gate.open() }
                try await gate.wait()
            }
            return nil
        }
        await fixture.client.setRenewalJoinObserver { gate.open() }

        async let first = fixture.client.products()
        async let second = fixture.client.products()
        let (a, b) = try await (first, second)

        #expect(a.count == 2)
        #expect(b.count == 2)
        #expect(fixture.server.tokenRequests(grant: "refresh_token").count == 1)
        #expect(fixture.server.productsRequests.map(\.bearerToken) == ["tok-2", "tok-2"])
        #expect(try await fixture.client.currentToken()?.accessToken == "tok-2")
    }

    @Test("callers that arrive after the renewal finished use the stored token, no new refresh")
    func laterCallersReuseToken() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.clock.advance(by: 61 * 60)
        _ = try await fixture.client.products()
        _ = try await fixture.client.products()
        #expect(fixture.server.tokenRequests(grant: "refresh_token").count == 1)
    }
}
