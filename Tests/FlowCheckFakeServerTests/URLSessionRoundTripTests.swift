import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// Proves the server speaks HTTP well enough for the real client stack SDKs use.
@Suite(.integration, .timeLimit(.minutes(20)))
struct URLSessionRoundTripTests {
    static let client = MoltinFixture.Client(id: "client-a", secret: "s3cr3t")
    /// How long one round trip may take before the test fails naming it: URLSession's own
    /// timeouts, and an independent deadline in case its callback never comes. A hang bound:
    /// FoundationNetworking serves every URLSession in the process from one internal queue, and
    /// during a full `swift test` the runner suites drive hundreds of flows through it at once
    /// (20 s ran out in one full run on a loaded machine).
    static let patience = HangBound.standard

    private func makeWorld() throws -> (FakeProviderServer, URLSession) {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [Self.client]))
        let clock = ManualClock()
        let world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now }, limits: .hangBounded)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = HangBound.seconds
        configuration.timeoutIntervalForResource = HangBound.seconds
        return (world, URLSession(configuration: configuration))
    }

    private func tokenRequest(_ world: FakeProviderServer) -> URLRequest {
        var request = URLRequest(url: world.baseURL.appendingPathComponent("oauth/access_token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormBody.encode([
            ("grant_type", "client_credentials"), ("client_id", Self.client.id), ("client_secret", Self.client.secret),
        ]).utf8)
        return request
    }

    private func productsRequest(_ world: FakeProviderServer, token: String) -> URLRequest {
        var request = URLRequest(url: world.baseURL.appendingPathComponent("v1/products"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// `session.data(for:)`, failing by name if no answer comes within `patience`.
    private func roundTrip(_ session: URLSession, _ request: URLRequest) async throws -> (Data, URLResponse) {
        let what = "URLSessionRoundTripTests.roundTrip(\(request.httpMethod ?? "GET") \(request.url?.path ?? "?"))"
        let exchange = Task {
            do {
                return try await session.data(for: request)
            } catch let error as URLError where error.code == .timedOut {
                throw WaitTimedOut("\(what): URLSession timed out", limit: Self.patience)
            }
        }
        // Past URLSession's own timeout, so that one names the request first.
        return try await boundedValue(of: exchange, within: Self.patience + .seconds(30), waitingFor: what)
    }

    private func accessToken(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try #require(object?["access_token"] as? String)
    }

    @Test func postFormThenGetWithBearer() async throws {
        let (world, session) = try makeWorld()
        defer { session.invalidateAndCancel() }
        try await world.serving {
            let (tokenData, tokenResponse) = try await roundTrip(session, tokenRequest(world))
            #expect((tokenResponse as? HTTPURLResponse)?.statusCode == 200)
            let token = try accessToken(tokenData)

            let (productData, productResponse) = try await roundTrip(session, productsRequest(world, token: token))
            let http = try #require(productResponse as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let products = try JSONSerialization.jsonObject(with: productData) as? [String: Any]
            #expect((products?["result"] as? [Any])?.count == 2)

            let exchanges = world.exchanges
            #expect(exchanges.map(\.request.method) == ["POST", "GET"])
            #expect(exchanges.first?.request.formFields?.first { $0.name == "client_secret" }?.value == Self.client.secret)
            #expect(exchanges.last?.request.headers["Authorization"] == "Bearer \(token)")
            #expect(world.issuedSecrets == [token])
        }
    }

    @Test func unreachableFailsThenRecoversAfterClearing() async throws {
        let (world, session) = try makeWorld()
        defer { session.invalidateAndCancel() }
        try await world.serving {
            let (data, _) = try await roundTrip(session, tokenRequest(world))
            let token = try accessToken(data)

            // Refusing waits for the accept thread: off the pool.
            try await offThePool("FakeProviderServer.inject(.unreachable)") { world.inject(Fault(.unreachable)) }
            await #expect(throws: URLError.self) {
                _ = try await roundTrip(session, productsRequest(world, token: token))
            }
            world.clearFaults()
            let (_, response) = try await roundTrip(session, productsRequest(world, token: token))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(world.exchanges.map(\.response.status) == [200, 200])
        }
    }

    @Test func faultedResponsesReachTheClient() async throws {
        let (world, session) = try makeWorld()
        defer { session.invalidateAndCancel() }
        try await world.serving {
            world.inject(Fault(kind: .nonJSONBody, path: "/oauth/access_token", times: 1))
            let (body, response) = try await roundTrip(session, tokenRequest(world))
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/html")
            #expect(String(decoding: body, as: UTF8.self) == "<html><body>Service Unavailable</body></html>")
            let (_, second) = try await roundTrip(session, tokenRequest(world))
            #expect((second as? HTTPURLResponse)?.statusCode == 200)
            #expect(world.exchanges.map(\.fault) == ["nonJSONBody", nil])
        }
    }
}
