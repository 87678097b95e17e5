import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The whole Braintree connection over real loopback sockets with a raw client, so every
/// redirect is seen as sent: the app fetches the connect URL, the browser loads the consent
/// page, approves, follows Braintree's redirect to the backend, and stops at the backend's
/// redirect to the app's custom scheme.
@Suite(.integration, .timeLimit(.minutes(20)))
struct FakeBraintreeSocketTests {
    @Test func connectURLConsentApproveCallbackOverLoopback() async throws {
        let env = BraintreeRig()
        try await env.world.serving {
            let host = "127.0.0.1:\(env.world.port)"
            let client = try await RawConnection.connect(port: env.world.port)

            try await client.send(WireRequest.plain("GET", "/backend/connect-url", host: host))
            let connect = try #require(try await client.readResponse())
            #expect(connect.status == 200)
            let json = try #require(FakeJSON.parse(connect.body))
            guard case .object(let fields) = json, case .string(let connectURL)? = fields["connectURL"] else {
                Issue.record("no connectURL in \(connect.bodyText)")
                return
            }
            #expect(connectURL.hasPrefix("http://\(host)/braintree/oauth/connect?"))

            try await client.send(WireRequest.plain("GET", try BraintreeRig.target(of: connectURL), host: host))
            let page = try #require(try await client.readResponse())
            #expect(page.status == 200)
            let requestID = try env.requestID(in: HTTPResponse(status: page.status, body: Data(page.body)))

            let form = FormBody.encode([
                ("request_id", requestID), ("email", "owner@example.com"), ("password", "pw-owner"), ("action", "login"),
            ])
            try await client.send(WireRequest.plain("POST", "/braintree/oauth/login", host: host, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form))
            let approved = try #require(try await client.readResponse())
            #expect(approved.status == 302)
            let callback = try #require(approved.header("Location"))
            #expect(callback.hasPrefix("http://\(host)/backend/braintree/callback?code="))

            try await client.send(WireRequest.plain("GET", try BraintreeRig.target(of: callback), host: host))
            let back = try #require(try await client.readResponse())
            #expect(back.status == 302)
            #expect(back.header("Location") == "examplescheme://braintree/connected?merchant_id=M1")

            let token = try #require(env.braintree.backendTokens["M1"])
            #expect(env.world.issuedSecrets.contains(token))
            #expect(env.world.exchanges.map(\.request.path) == [
                "/backend/connect-url", "/braintree/oauth/connect", "/braintree/oauth/login", "/backend/braintree/callback",
            ])
            #expect(env.world.exchanges.map(\.response.status) == [200, 200, 302, 302])
            for response in [connect, page, approved, back] {
                #expect(!response.bodyText.contains(token) && !response.bodyText.contains(BraintreeRig.secret))
                #expect(!(response.header("Location") ?? "").contains(token))
            }
        }
    }
}
