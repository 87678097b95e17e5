import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The policy all four fakes share (issue 14): chunked bodies read, repeated parameters
/// refused, every token answer uncacheable, every 401 with a challenge, every refusal with a
/// rule, and FlowCheck's own policies said to be FlowCheck's.
@Suite(.integration, .timeLimit(.minutes(20)))
struct OnePolicyTests {
    static let form = "application/x-www-form-urlencoded"
    static let moltinClient = MoltinFixture.Client(id: "client-a", secret: "s3cr3t+/=")

    private static func moltin() -> (FakeMoltin, FakeProviderServer) {
        let moltin = FakeMoltin(fixture: MoltinFixture(clients: [moltinClient]))
        return (moltin, FakeProviderServer(provider: moltin, now: { Date(timeIntervalSince1970: 1_700_000_000) }, limits: .hangBounded))
    }

    /// Sends `text` on a fresh connection to `world` and reads one response.
    private func exchange(_ world: FakeProviderServer, _ text: String, port: Int? = nil) async throws -> RawConnection.Response {
        let client = try await RawConnection.connect(port: port ?? world.port)
        try await client.send(text)
        return try #require(try await client.readResponse())
    }

    // MARK: - Chunked bodies, on every fake

    @Test func chunkedTokenRequestsWorkOnEveryFake() async throws {
        let (_, moltin) = Self.moltin()
        try await moltin.serving {
            let moltinBody = FormBody.encode([
                ("grant_type", "client_credentials"), ("client_id", Self.moltinClient.id), ("client_secret", Self.moltinClient.secret),
            ])
            let moltinAnswer = try await exchange(moltin, WireRequest.chunked("/oauth/access_token", contentType: Self.form, body: moltinBody))
            #expect(moltinAnswer.status == 200, "moltin: \(moltinAnswer.bodyText)")
        }

        let clover = CloverRig()
        try await clover.world.serving {
            let pair = try clover.loggedIn()
            let refresh = FakeJSON(any: ["client_id": CloverRig.app.id, "refresh_token": pair.refresh]).compactText
            let cloverAnswer = try await exchange(clover.world, WireRequest.chunked("/oauth/v2/refresh", contentType: "application/json", body: refresh))
            #expect(cloverAnswer.status == 200, "clover: \(cloverAnswer.bodyText)")
        }

        let clever = CleverRig()
        try await clever.world.serving {
            let cleverBody = FormBody.encode([
                ("grant_type", "authorization_code"), ("code", try clever.code()), ("redirect_uri", CleverRig.redirect),
            ])
            let cleverAnswer = try await exchange(clever.world, WireRequest.chunked(
                "/oauth/tokens", contentType: Self.form, headers: [("Authorization", CleverRig.basic("cle1:"))], body: cleverBody
            ))
            #expect(cleverAnswer.status == 200, "clever: \(cleverAnswer.bodyText)")
        }

        let braintree = BraintreeRig()
        try await braintree.world.serving {
            let braintreeBody = FormBody.encode([("grant_type", "authorization_code"), ("code", try BraintreeRig.code(in: braintree.authorize()))])
            let braintreeAnswer = try await exchange(braintree.world, WireRequest.chunked(
                "/braintree/oauth/access_tokens", contentType: Self.form,
                headers: [("Authorization", BraintreeRig.backendAuthorization)], body: braintreeBody
            ))
            #expect(braintreeAnswer.status == 200, "braintree: \(braintreeAnswer.bodyText)")
        }
    }

    // MARK: - Repeated parameters, on every fake

    @Test func repeatedParametersAre400OnEveryFake() throws {
        let (_, moltin) = Self.moltin()
        // Moltin used to take the first copy: the right secret, then garbage.
        let moltinAnswer = moltin.responder.respond(to: HTTPRequest(
            method: "POST", target: "/oauth/access_token", headers: ["Content-Type": Self.form],
            body: Data(FormBody.encode([
                ("grant_type", "client_credentials"), ("client_id", Self.moltinClient.id),
                ("client_secret", Self.moltinClient.secret), ("client_secret", "garbage"),
            ]).utf8)
        ))
        let twoGrants = moltin.responder.respond(to: HTTPRequest(
            method: "POST", target: "/oauth/access_token", headers: ["Content-Type": Self.form],
            body: Data(FormBody.encode([
                ("grant_type", "client_credentials"), ("grant_type", "refresh_token"),
                ("client_id", Self.moltinClient.id), ("client_secret", Self.moltinClient.secret),
            ]).utf8)
        ))

        let clover = CloverRig()
        let code = try clover.code()
        let cloverAnswer = clover.postJSON(
            "/oauth/v2/token",
            #"{"client_id":"app-1","code":"\#(code)","code_verifier":"\#(CloverRig.verifier)","code":"other"}"#
        )

        let clever = CleverRig()
        let cleverAnswer = clever.token(code: try clever.code(), extra: [("grant_type", "authorization_code")])

        let braintree = BraintreeRig()
        let braintreeCode = try BraintreeRig.code(in: braintree.authorize())
        let braintreeAnswer = braintree.accessTokens([("code", braintreeCode), ("grant_type", "authorization_code"), ("code", braintreeCode)])

        for (name, answer) in [("moltin", moltinAnswer), ("moltin, two grants", twoGrants), ("clover", cloverAnswer), ("clever", cleverAnswer), ("braintree", braintreeAnswer)] {
            #expect(answer.status == 400, "\(name): \(answer.bodyText)")
            #expect(answer.rule == .tokenRepeatedParameter, "\(name)")
            #expect(answer.bodyText.contains("is repeated"), "\(name): \(answer.bodyText)")
        }
        // Clover's and Clever's codes were not spent by the refused requests.
        #expect(clover.token(code: code).status == 200)
    }

    // MARK: - Content-Type, the same refusal everywhere

    @Test func aMissingContentTypeIsTheSameFlowCheckPolicyOnEveryFake() throws {
        let (_, moltin) = Self.moltin()
        let clover = CloverRig()
        let clever = CleverRig()
        let braintree = BraintreeRig()
        let answers: [(String, HTTPResponse)] = [
            ("moltin", moltin.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", body: Data("grant_type=client_credentials".utf8)))),
            ("clover", clover.postJSON("/oauth/v2/token", #"{"client_id":"app-1"}"#, contentType: nil)),
            ("clever", clever.postToken(body: "grant_type=authorization_code", contentType: nil)),
            ("braintree", braintree.send(HTTPRequest(
                method: "POST", target: "/braintree/oauth/access_tokens",
                headers: ["Authorization": BraintreeRig.backendAuthorization], body: Data("grant_type=authorization_code".utf8)
            ))),
        ]
        for (name, answer) in answers {
            #expect(answer.status == 400, "\(name)")
            #expect(answer.rule == .tokenContentType, "\(name)")
            #expect(answer.bodyText.contains("FlowCheck policy: a Content-Type is required"), "\(name): \(answer.bodyText)")
            #expect(answer.headers["Cache-Control"] == "no-store", "\(name)")
        }
        let wrong = clever.postToken(body: "{}", contentType: "text/plain")
        #expect(wrong.rule == .tokenContentType)
        #expect(!wrong.bodyText.contains("FlowCheck policy"), "a wrong Content-Type is RFC 6749's, not a policy")
    }

    // MARK: - no-store on every token answer, a challenge on every 401, a rule on every refusal

    /// Every exchange a world recorded, checked against the shared policy.
    private func checkPolicy(_ exchanges: [RecordedExchange], tokenPaths: Set<String>, _ name: String) {
        #expect(!exchanges.isEmpty, "\(name) recorded nothing")
        for exchange in exchanges {
            let response = exchange.response
            let what = "\(name) \(exchange.request.method) \(exchange.request.path) → \(response.status)"
            if tokenPaths.contains(exchange.request.path) {
                #expect(response.headers["Cache-Control"] == "no-store", "\(what)")
                #expect(response.headers["Pragma"] == "no-cache", "\(what)")
            }
            if response.status == 401 {
                #expect(response.headers["WWW-Authenticate"] != nil, "\(what)")
            }
            if response.status >= 400 {
                #expect(exchange.rule != nil, "\(what) has no rule")
                #expect(exchange.rule?.rawValue == response.headers["FlowCheck-Rule"], "\(what)")
            } else {
                #expect(exchange.rule == nil, "\(what)")
            }
        }
    }

    @Test func moltinAnswersByThePolicy() throws {
        let (_, world) = Self.moltin()
        func post(_ fields: [(String, String)], contentType: String? = OnePolicyTests.form) -> HTTPResponse {
            var headers = HTTPHeaders()
            if let contentType { headers.add("Content-Type", contentType) }
            return world.responder.respond(to: HTTPRequest(method: "POST", target: "/oauth/access_token", headers: headers, body: Data(FormBody.encode(fields).utf8)))
        }
        let good = [("grant_type", "client_credentials"), ("client_id", Self.moltinClient.id), ("client_secret", Self.moltinClient.secret)]
        let token = try #require(post(good).jsonFields()?["access_token"])
        _ = post([("grant_type", "client_credentials"), ("client_id", Self.moltinClient.id), ("client_secret", "wrong")])
        _ = post([("grant_type", "refresh_token"), ("client_id", Self.moltinClient.id), ("client_secret", Self.moltinClient.secret), ("refresh_token", "nope")])
        _ = post([("grant_type", "password")] + good.dropFirst())
        _ = post(good, contentType: "application/json")
        _ = world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products", headers: ["Authorization": "Bearer nope"]))
        _ = world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products"))
        _ = world.responder.respond(to: HTTPRequest(method: "GET", target: "/v1/products", headers: ["Authorization": "Bearer \(token)"]))
        _ = world.responder.respond(to: HTTPRequest(method: "DELETE", target: "/v1/products"))
        _ = world.responder.respond(to: HTTPRequest(method: "GET", target: "/nope"))
        let statuses = world.exchanges.map(\.response.status)
        #expect(statuses == [200, 401, 401, 400, 400, 401, 400, 200, 405, 404])
        checkPolicy(world.exchanges, tokenPaths: [FakeMoltin.tokenPath], "moltin")
    }

    @Test func cloverAnswersByThePolicy() throws {
        let env = CloverRig()
        let pair = try env.loggedIn()
        _ = env.token(clientID: "nope", code: "x")
        _ = env.token(code: "unknown")
        _ = env.refresh(refreshToken: pair.refresh)
        _ = env.refresh(refreshToken: pair.refresh)
        _ = env.postJSON("/oauth/v2/token", ["client_id": "app-1", "code": "c", "code_verifier": "v", "client_secret": "s"])
        _ = env.merchant("M1", authorization: nil)
        _ = env.merchant("M1", token: "nope")
        _ = env.merchant("M1", token: pair.access)
        _ = env.authorize(CloverRig.authorizeParameters() + [("client_id", "app-1")])
        _ = env.authorize([("client_id", "nope")])
        let page = env.authorize()
        _ = env.login(requestID: try env.requestID(in: page), password: "wrong")
        _ = env.send(HTTPRequest(method: "DELETE", target: "/oauth/v2/token"))
        _ = env.send(HTTPRequest(method: "GET", target: "/nope"))
        let secret = try #require(env.world.exchanges.first { $0.response.rule == .cloverTokenClientSecret })
        #expect(secret.response.jsonFields()?["error_description"]?.hasPrefix("FlowCheck policy: ") == true)
        checkPolicy(env.world.exchanges, tokenPaths: [FakeClover.tokenPath, FakeClover.refreshPath], "clover")
    }

    @Test func cleverAnswersByThePolicy() throws {
        let env = CleverRig()
        let code = try env.code()
        _ = env.token(code: code)
        _ = env.token(code: code)
        _ = env.token(code: code, authorization: nil)
        _ = env.token(code: code, authorization: CleverRig.basic("cle1:secret"))
        _ = env.token(code: code, extra: [("client_secret", "")])
        _ = env.authorize(CleverRig.authorizeParameters(state: nil))
        let page = env.authorize()
        _ = env.login(requestID: try env.requestID(in: page), password: "wrong")
        _ = env.login(requestID: "unknown")
        _ = env.send(HTTPRequest(method: "GET", target: "/oauth/tokens"))
        checkPolicy(env.world.exchanges, tokenPaths: [FakeClever.tokenPath], "clever")
    }

    @Test func braintreeAnswersByThePolicy() throws {
        let env = BraintreeRig()
        let code = try BraintreeRig.code(in: env.authorize())
        _ = env.accessTokens(code: code)
        _ = env.accessTokens(code: code)
        _ = env.accessTokens(code: code, authorization: nil)
        _ = env.accessTokens(code: code, authorization: WireRequest.basic(BraintreeRig.clientID + ":"))
        _ = env.get("/backend/connect-url?client_secret=x")
        _ = env.get("/backend/braintree/callback?state=unknown")
        let page = env.get(try BraintreeRig.target(of: env.connectURL()))
        _ = env.login(requestID: try env.requestID(in: page), password: "wrong")
        _ = env.get("/nope")
        checkPolicy(env.world.exchanges, tokenPaths: [FakeBraintreeConnect.accessTokensPath], "braintree")
    }

    // MARK: - FlowCheck-Rule on the wire

    @Test func theRuleTravelsInAResponseHeader() async throws {
        let env = CloverRig()
        try await env.world.serving {
            let body = #"{"client_id":"app-1","code":"unknown","code_verifier":"\#(CloverRig.verifier)"}"#
            let response = try await exchange(env.world, "POST /oauth/v2/token HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(response.status == 400)
            #expect(response.header("FlowCheck-Rule") == "token.code-unknown")
            #expect(env.world.exchanges.last?.rule == .tokenCodeUnknown)
        }
    }

    @Test func ruleIDsAreUniqueAndWellFormed() {
        let ids = FlowCheckRule.allCases.map(\.rawValue)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.split(separator: ".").count >= 2, "\(id)")
            #expect(id.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }, "\(id)")
        }
    }
}
