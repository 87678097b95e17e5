import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The whole Clover login over real loopback sockets, with a raw client so the 302 is seen
/// as sent rather than followed (its target is the app's site, not this server).
@Suite(.integration, .timeLimit(.minutes(20)))
struct FakeCloverSocketTests {
    @Test func authorizeLoginTokenMerchantOverLoopback() async throws {
        let env = CloverRig()
        try await env.world.serving {
            // The login pages on the web origin, the token endpoint and the API on the api origin.
            let web = try await RawConnection.connect(port: try #require(env.world.baseURLs["web"]?.port))
            let client = try await RawConnection.connect(port: env.world.port)
            #expect(env.world.baseURLs["api"] == env.world.baseURL)

            try await web.send(WireRequest.plain("GET", "/oauth/v2/authorize?" + FormBody.encode(CloverRig.authorizeParameters())))
            let page = try #require(try await web.readResponse())
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            let requestID = try env.requestID(in: HTTPResponse(status: page.status, body: Data(page.body)))

            let form = FormBody.encode([
                ("request_id", requestID), ("email", "alice@example.com"), ("password", "pw-alice"), ("action", "login"),
            ])
            try await web.send(WireRequest.plain("POST", "/oauth/v2/login", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form))
            let redirect = try #require(try await web.readResponse())
            #expect(redirect.status == 302)
            let location = try #require(redirect.header("Location"))
            let query = try #require(URLComponents(string: location)?.queryItems)
            #expect(query.first { $0.name == "merchant_id" }?.value == "M1")
            #expect(query.first { $0.name == "state" }?.value == "st-1")
            let code = try #require(query.first { $0.name == "code" }?.value)

            let json = FakeJSON(any: ["client_id": "app-1", "code": code, "code_verifier": CloverRig.verifier]).compactText
            try await client.send(WireRequest.plain("POST", "/oauth/v2/token", headers: [("Content-Type", "application/json")], body: json))
            let tokenResponse = try #require(try await client.readResponse())
            #expect(tokenResponse.status == 200)
            let tokens = try #require(FakeJSON.parse(tokenResponse.body))
            guard case .object(let fields) = tokens, case .string(let access)? = fields["access_token"] else {
                Issue.record("no access token in \(tokenResponse.bodyText)")
                return
            }

            try await client.send(WireRequest.plain("GET", "/v3/merchants/M1", headers: [("Authorization", "Bearer \(access)")]))
            let merchant = try #require(try await client.readResponse())
            #expect(merchant.status == 200)
            #expect(merchant.bodyText == #"{"id":"M1","name":"Cafe One"}"#)

            #expect(env.world.exchanges.map(\.response.status) == [200, 302, 200, 200])
            #expect(env.world.exchanges.map(\.origin) == ["web", "web", "api", "api"])
            #expect(env.world.issuedSecrets.first == code)
            #expect(env.world.issuedSecrets.contains(access))
        }
    }

    /// Each origin refuses the other's paths with 404, as Clover's real hosts do, and records
    /// the refusal under the origin it came in on; the persona never sees it.
    @Test func eachOriginRefusesTheOthersPaths() async throws {
        let env = CloverRig()
        try await env.world.serving {
            let web = try await RawConnection.connect(port: try #require(env.world.baseURLs["web"]?.port))
            let api = try await RawConnection.connect(port: env.world.port)

            try await api.send(WireRequest.plain("GET", "/oauth/v2/authorize?" + FormBody.encode(CloverRig.authorizeParameters())))
            #expect(try #require(try await api.readResponse()).status == 404)
            try await web.send(WireRequest.plain("POST", "/oauth/v2/token", headers: [("Content-Type", "application/json")], body: "{}"))
            #expect(try #require(try await web.readResponse()).status == 404)
            try await web.send(WireRequest.plain("GET", "/v3/merchants/M1", headers: [("Authorization", "Bearer x")]))
            #expect(try #require(try await web.readResponse()).status == 404)

            #expect(env.world.exchanges.map(\.origin) == ["api", "web", "web"])
            #expect(env.world.issuedSecrets.isEmpty)
        }
    }
}
