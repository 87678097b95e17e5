import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// The merchant resource and routing of the Clover fake.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCloverMerchantTests {
    let env = CloverRig()
    static let unauthorized = #"{"message":"401 Unauthorized"}"#

    @Test func merchantIsServedForItsOwnToken() throws {
        let pair = try env.loggedIn()
        let response = env.merchant("M1", token: pair.access)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.bodyText == #"{"id":"M1","name":"Cafe One"}"#)
        #expect(env.merchant("M1", authorization: "bearer \(pair.access)").status == 200, "the scheme is case-insensitive")
        let withQuery = env.send(HTTPRequest(
            method: "GET", target: "/v3/merchants/M1?expand=owner", headers: ["Authorization": "Bearer \(pair.access)"]
        ))
        #expect(withQuery.status == 200)
    }

    @Test(arguments: [
        nil, "", "Bearer", "Bearer ", "Basic YTpi", "Token abc", "abc", "Bearer a b",
        "Bearer 0000000000000000000000000000000000000000",
    ] as [String?])
    func badAuthorizationIs401(authorization: String?) {
        let response = env.merchant("M1", authorization: authorization)
        #expect(response.status == 401)
        #expect(response.bodyText == Self.unauthorized)
        #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    }

    @Test func tokenOfAnotherMerchantIs401() throws {
        let alice = try env.loggedIn()
        let response = env.merchant("M2", token: alice.access)
        #expect(response.status == 401)
        #expect(response.bodyText == Self.unauthorized)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="clover", error="invalid_token""#)
        #expect(env.merchant("M9", token: alice.access).bodyText == Self.unauthorized, "unknown merchant: 401, not 404")
    }

    @Test func refreshTokenIsNoAccessToken() throws {
        let pair = try env.loggedIn()
        #expect(env.merchant("M1", token: pair.refresh).status == 401)
    }

    @Test(arguments: [(1799.0, 200), (1799.999, 200), (1800.0, 401), (31.0 * 60, 401)])
    func accessTokenExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let pair = try env.loggedIn()
        env.clock.advance(by: seconds)
        let response = env.merchant("M1", token: pair.access)
        #expect(response.status == status)
        if status == 401 {
            #expect(response.bodyText == Self.unauthorized)
        }
    }

    @Test func revokedAccessTokenIs401() throws {
        let pair = try env.loggedIn()
        env.clover.revokeAllTokens()
        #expect(env.merchant("M1", token: pair.access).bodyText == Self.unauthorized)
    }

    // MARK: - Routing

    @Test(arguments: [
        ("POST", "/oauth/v2/authorize", 405, "GET, HEAD"),
        ("GET", "/oauth/v2/login", 405, "POST"),
        ("GET", "/oauth/v2/token", 405, "POST"),
        ("PUT", "/oauth/v2/token", 405, "POST"),
        ("GET", "/oauth/v2/refresh", 405, "POST"),
        ("POST", "/v3/merchants/M1", 405, "GET, HEAD"),
        ("GET", "/v3/merchants/", 404, nil),
        ("GET", "/v3/merchants", 404, nil),
        ("GET", "/v3/merchants/M1/orders", 404, nil),
        ("GET", "/oauth/v2/token/", 404, nil),
        ("POST", "/oauth/token", 404, nil),
        ("GET", "/", 404, nil),
    ] as [(String, String, Int, String?)])
    func routes(method: String, path: String, status: Int, allow: String?) {
        let response = env.send(HTTPRequest(method: method, target: path))
        #expect(response.status == status)
        #expect(response.headers["Allow"] == allow)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.jsonFields()?["message"] == (status == 404 ? "404 Not Found" : "405 Method Not Allowed"))
    }

    @Test func personaIdentity() {
        #expect(env.clover.name == "clover")
        #expect(env.clover.fixture == CloverRig.fixture)
        let defaults = CloverFixture(apps: [], merchants: [], employees: [])
        #expect(defaults.accessTokenLifetime == 1800)
        #expect(defaults.refreshTokenLifetime == 2_592_000)
        #expect(defaults.codeLifetime == 300)
        #expect(defaults.loginRequestLifetime == 600)
    }

    /// Every exchange of a full login goes through the recorder with the virtual time.
    @Test func fullFlowIsRecorded() throws {
        let pair = try env.loggedIn()
        _ = env.merchant("M1", token: pair.access)
        let exchanges = env.world.exchanges
        #expect(exchanges.map(\.request.path) == ["/oauth/v2/authorize", "/oauth/v2/login", "/oauth/v2/token", "/v3/merchants/M1"])
        #expect(exchanges.map(\.response.status) == [200, 302, 200, 200])
        #expect(exchanges.allSatisfy { $0.time == env.clock.now })
    }
}
