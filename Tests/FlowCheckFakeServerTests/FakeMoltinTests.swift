import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The Moltin wire contract, exercised through the responder chain with no sockets at all.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeMoltinTests {
    let clock = ManualClock()
    let moltin: FakeMoltin
    let world: FakeProviderServer

    static let client = MoltinFixture.Client(id: "client-a", secret: "s3cr3t+/=")
    static let other = MoltinFixture.Client(id: "client-b", secret: "other")

    init() {
        moltin = FakeMoltin(fixture: MoltinFixture(clients: [Self.client, Self.other]))
        world = FakeProviderServer(provider: moltin, now: { [clock] in clock.now })
    }

    // MARK: - Helpers

    private func post(
        _ fields: [(String, String)],
        contentType: String? = "application/x-www-form-urlencoded",
        path: String = "/oauth/access_token"
    ) -> HTTPResponse {
        var headers = HTTPHeaders([("Host", "127.0.0.1")])
        if let contentType { headers.add("Content-Type", contentType) }
        let body = Data(FormBody.encode(fields).utf8)
        return world.responder.respond(to: HTTPRequest(method: "POST", target: path, headers: headers, body: body))
    }

    private func grant(_ type: String, _ client: MoltinFixture.Client = client, refresh: String? = nil) -> HTTPResponse {
        var fields = [("grant_type", type), ("client_id", client.id), ("client_secret", client.secret)]
        if let refresh { fields.append(("refresh_token", refresh)) }
        return post(fields)
    }

    private func token(_ response: HTTPResponse) throws -> String {
        guard case .object(let fields)? = response.jsonBody, case .string(let token)? = fields["access_token"] else {
            throw TokenMissing(body: response.bodyText)
        }
        return token
    }

    struct TokenMissing: Error {
        var body: String
    }

    private func products(authorization: String?, method: String = "GET") -> HTTPResponse {
        var headers = HTTPHeaders()
        if let authorization { headers.add("Authorization", authorization) }
        return world.responder.respond(to: HTTPRequest(method: method, target: "/v1/products", headers: headers))
    }

    private func error(_ response: HTTPResponse) -> String? {
        guard case .object(let fields)? = response.jsonBody,
              fields["status"] == .bool(false), case .string(let message)? = fields["error"]
        else { return nil }
        return message
    }

    // MARK: - Token endpoint

    @Test(arguments: ["client_credentials", "implicit"])
    func issuesTokens(grantType: String) throws {
        let response = grant(grantType)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let fields = try #require(response.jsonFields())
        let token = try #require(fields["access_token"])
        #expect(token.count == 56 && token.allSatisfy(\.isHexDigit) && MintedSecret.isMinted(token))
        #expect(fields["token_type"] == "Bearer")
        #expect(fields["expires"] == String(Int(clock.now.timeIntervalSince1970) + 3600))
        #expect(fields["expires_in"] == "3600")
        #expect(fields["identifier"] == grantType)
        #expect(moltin.issuedSecrets == [token])
        #expect(world.issuedSecrets == [token])
    }

    @Test func tokensAreFresh() throws {
        let first = try token(grant("client_credentials"))
        let second = try token(grant("client_credentials"))
        #expect(first != second)
        #expect(moltin.issuedSecrets == [first, second])
    }

    @Test(arguments: [
        // (fields, content type, status, error)
        ([("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], "application/x-www-form-urlencoded", 400, "grant_type is required"),
        ([("grant_type", ""), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], "application/x-www-form-urlencoded", 400, "grant_type is required"),
        ([("grant_type", "password"), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], "application/x-www-form-urlencoded", 400, "Unsupported grant_type"),
        ([("grant_type", "client_credentials"), ("client_id", "nobody"), ("client_secret", "s3cr3t+/=")], "application/x-www-form-urlencoded", 401, "Invalid client id or secret"),
        ([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "wrong")], "application/x-www-form-urlencoded", 401, "Invalid client id or secret"),
        ([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "s3cr3t /=")], "application/x-www-form-urlencoded", 401, "Invalid client id or secret"),
        ([("grant_type", "client_credentials"), ("client_id", "client-a")], "application/x-www-form-urlencoded", 401, "Invalid client id or secret"),
        ([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], "application/json", 400, "Content-Type must be application/x-www-form-urlencoded"),
        ([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], "text/plain", 400, "Content-Type must be application/x-www-form-urlencoded"),
    ] as [([(String, String)], String, Int, String)])
    func rejectsBadTokenRequests(fields: [(String, String)], contentType: String, status: Int, message: String) {
        let response = post(fields, contentType: contentType)
        #expect(response.status == status)
        #expect(error(response) == message)
        #expect(moltin.issuedSecrets.isEmpty)
    }

    @Test func refusesAMissingContentTypeAsEveryFakeDoes() {
        let response = post([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], contentType: nil)
        #expect(response.status == 400)
        #expect(error(response)?.hasPrefix("FlowCheck policy: ") == true)
        #expect(response.rule == .tokenContentType)
    }

    @Test(arguments: ["application/x-www-form-urlencoded; charset=UTF-8", "Application/X-WWW-Form-Urlencoded"])
    func toleratesParameterisedContentType(contentType: String) {
        let response = post([("grant_type", "client_credentials"), ("client_id", "client-a"), ("client_secret", "s3cr3t+/=")], contentType: contentType)
        #expect(response.status == 200)
    }

    @Test func undecodableFormIs400() {
        let request = HTTPRequest(
            method: "POST", target: "/oauth/access_token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("grant_type=%zz".utf8)
        )
        let response = world.responder.respond(to: request)
        #expect(response.status == 400)
        #expect(error(response) == "malformed form body")
        #expect(response.rule == .tokenMalformedBody)
    }

    // MARK: - Refresh

    @Test func refreshIssuesNewTokenAndKillsTheOldOneOnce() throws {
        let original = try token(grant("client_credentials"))
        clock.advance(by: 7200)  // refresh works on expired tokens too
        let refreshed = grant("refresh_token", refresh: original)
        #expect(refreshed.status == 200)
        #expect(refreshed.jsonFields()?["identifier"] == "refresh_token")
        #expect(refreshed.jsonFields()?["expires"] == String(Int(clock.now.timeIntervalSince1970) + 3600))
        let renewed = try token(refreshed)
        #expect(renewed != original)
        #expect(products(authorization: "Bearer \(renewed)").status == 200)
        #expect(error(products(authorization: "Bearer \(original)")) == "Access token is not valid")
        let again = grant("refresh_token", refresh: original)
        #expect(again.status == 401)
        #expect(error(again) == "Refresh token is not valid")
        #expect(moltin.issuedSecrets == [original, renewed])
    }

    @Test func refreshOfAStillValidTokenKillsIt() throws {
        let original = try token(grant("client_credentials"))
        #expect(grant("refresh_token", refresh: original).status == 200)
        #expect(products(authorization: "Bearer \(original)").status == 401)
    }

    @Test(arguments: [RefreshCase.missing, .unknown, .otherClients, .empty])
    func rejectsInvalidRefreshTokens(_ kind: RefreshCase) throws {
        let mine = try token(grant("client_credentials"))
        let theirs = try token(grant("client_credentials", Self.other))
        let refresh: String? = switch kind {
        case .missing: nil
        case .unknown: String(repeating: "0", count: 40)
        case .otherClients: theirs
        case .empty: ""
        }
        let response = grant("refresh_token", refresh: refresh)
        #expect(response.status == 401)
        #expect(error(response) == "Refresh token is not valid")
        #expect(products(authorization: "Bearer \(mine)").status == 200)
        #expect(products(authorization: "Bearer \(theirs)").status == 200)
    }

    enum RefreshCase: CaseIterable, Sendable {
        case missing, unknown, otherClients, empty
    }

    @Test func refreshNeedsValidClientCredentials() throws {
        let original = try token(grant("client_credentials"))
        let response = grant("refresh_token", MoltinFixture.Client(id: Self.client.id, secret: "nope"), refresh: original)
        #expect(response.status == 401)
        #expect(error(response) == "Invalid client id or secret")
        #expect(grant("refresh_token", refresh: original).status == 200)
    }

    // MARK: - Products

    @Test func listsProductsForAValidToken() throws {
        let access = try token(grant("client_credentials"))
        let response = products(authorization: "Bearer \(access)")
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"pagination":{"total":2},"result":[{"id":"prod-1","price":{"amount":2000,"currency":"USD"},"title":"Tee"},{"id":"prod-2","price":{"amount":1200,"currency":"USD"},"title":"Mug"}],"status":true}"#)
        #expect(products(authorization: "bearer \(access)").status == 200)
    }

    @Test(arguments: [
        (nil, 400, "Access token is required"),
        ("", 400, "Access token is required"),
        ("Bearer", 400, "Access token is required"),
        ("Bearer ", 400, "Access token is required"),
        ("Basic YTpi", 400, "Access token is required"),
        ("Token abc", 400, "Access token is required"),
        ("abc", 400, "Access token is required"),
        ("Bearer a b", 400, "Access token is required"),
        ("Bearer 0000000000000000000000000000000000000000", 401, "Access token is not valid"),
        // Unicode spaces (general category Zs) and tabs around the value are trimmed as
        // Foundation's .whitespaces would; inside the token any whitespace makes it malformed.
        ("\u{3000}Bearer 0000000000000000000000000000000000000000\t", 401, "Access token is not valid"),
        ("\u{00A0}\tBearer 0000000000000000000000000000000000000000\u{2003}", 401, "Access token is not valid"),
        ("Bearer a\u{00A0}b", 400, "Access token is required"),
        ("Bearer a\u{2028}b", 400, "Access token is required"),
        ("Bearer\u{00A0}0000000000000000000000000000000000000000", 400, "Access token is required"),
        ("\u{3000}\t\u{00A0}", 400, "Access token is required"),
    ] as [(String?, Int, String)])
    func rejectsBadAuthorization(authorization: String?, status: Int, message: String) {
        let response = products(authorization: authorization)
        #expect(response.status == status)
        #expect(error(response) == message)
    }

    @Test func tokensExpireOnTheVirtualClock() throws {
        let access = try token(grant("client_credentials"))
        clock.advance(by: 3599)
        #expect(products(authorization: "Bearer \(access)").status == 200)
        clock.advance(by: 1)
        let expired = products(authorization: "Bearer \(access)")
        #expect(expired.status == 401)
        #expect(error(expired) == "Access token is not valid")
        #expect(moltin.isTokenValid(access, now: clock.now) == false)
    }

    @Test func tokenLifetimeComesFromTheFixture() throws {
        let short = FakeMoltin(fixture: MoltinFixture(clients: [Self.client], products: [], tokenLifetime: 60))
        let request = HTTPRequest(
            method: "POST", target: "/oauth/access_token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(FormBody.encode([
                ("grant_type", "client_credentials"), ("client_id", Self.client.id), ("client_secret", Self.client.secret),
            ]).utf8)
        )
        let response = short.handle(request, now: clock.now)
        #expect(response.jsonFields()?["expires_in"] == "60")
        let access = try token(response)
        var list = HTTPRequest(method: "GET", target: "/v1/products")
        list.headers.add("Authorization", "Bearer \(access)")
        #expect(short.handle(list, now: clock.now).bodyText == #"{"pagination":{"total":0},"result":[],"status":true}"#)
        #expect(short.handle(list, now: clock.now + 60).status == 401)
    }

    @Test func revokeAllTokensKillsEveryIssuedToken() throws {
        let first = try token(grant("client_credentials"))
        let second = try token(grant("client_credentials", Self.other))
        moltin.revokeAllTokens()
        #expect(error(products(authorization: "Bearer \(first)")) == "Access token is not valid")
        #expect(products(authorization: "Bearer \(second)").status == 401)
        #expect(error(grant("refresh_token", refresh: first)) == "Refresh token is not valid")
        let fresh = try token(grant("client_credentials"))
        #expect(products(authorization: "Bearer \(fresh)").status == 200)
    }

    // MARK: - Routing

    @Test(arguments: [
        ("GET", "/oauth/access_token", 405, "POST"),
        ("PUT", "/oauth/access_token", 405, "POST"),
        ("POST", "/v1/products", 405, "GET, HEAD"),
        ("DELETE", "/v1/products", 405, "GET, HEAD"),
        ("GET", "/v1/products/", 404, nil),
        ("GET", "/", 404, nil),
        ("POST", "/oauth/token", 404, nil),
    ] as [(String, String, Int, String?)])
    func routes(method: String, path: String, status: Int, allow: String?) {
        let response = world.responder.respond(to: HTTPRequest(method: method, target: path))
        #expect(response.status == status)
        #expect(response.headers["Allow"] == allow)
        #expect(error(response) == (status == 404 ? "Not found" : "Method not allowed"))
    }
}
