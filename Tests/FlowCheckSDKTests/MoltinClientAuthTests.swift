import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-AUTH, MLT-BADAUTH, MLT-REFRESH, MLT-DELETE, MLT-ENCODING against the in-test stub.
@Suite("MoltinClient auth, refresh, delete", .timeLimit(.minutes(5)))
struct MoltinClientAuthTests {
    @Test("auth posts the exact form and stores the token")
    func authSuccess() async throws {
        let fixture = try MoltinFixture()
        let token = try await fixture.client.auth(clientId: StubMoltin.clientId, clientSecret: StubMoltin.clientSecret)

        let request = try #require(fixture.server.requests.first)
        #expect(fixture.server.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/oauth/access_token")
        #expect(request.headers.map(\.0) == ["Content-Type", "Accept"])
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("Accept") == "application/json")
        #expect(request.bodyText == "grant_type=client_credentials&client_id=client-id-1234"
            + "&client_secret=s3cr%26t%3D%2B+%C3%A9%2F%E2%82%AC")
        // MLT-ENCODING: the server decodes exactly the secret that was given.
        #expect(request.formValue("client_secret") == StubMoltin.clientSecret)

        #expect(token.accessToken == "tok-1")
        #expect(token.tokenType == "Bearer")
        #expect(token.expiresAt == fixture.clock.now.addingTimeInterval(3600))
        #expect(token.refreshToken == nil)
        #expect(try await fixture.client.currentToken() == token)
        #expect(try StoredToken(storedData: try #require(try fixture.storedBytes)) == token)
        #expect(try fixture.store.keys() == ["moltin.token"])
    }

    struct ExpiryFieldCase: CustomTestStringConvertible, Sendable {
        let name: String
        let fields: String
        let expectedOffset: TimeInterval
        var testDescription: String { name }
    }

    @Test("expiresAt comes from expires, else expires_in, else one hour", arguments: [
        ExpiryFieldCase(name: "expires wins", fields: #""expires":1767229000,"expires_in":10"#, expectedOffset: 3400),
        ExpiryFieldCase(name: "expires_in only", fields: #""expires_in":120"#, expectedOffset: 120),
        ExpiryFieldCase(name: "neither: one hour", fields: #""identifier":"client_credentials""#, expectedOffset: 3600),
    ])
    func expiryFields(_ testCase: ExpiryFieldCase) async throws {
        let fixture = try MoltinFixture()
        fixture.server.intercept { _ in
            .json(200, #"{"access_token":"abc","token_type":"Bearer",\#(testCase.fields)}"#)
        }
        let token = try await fixture.authenticate()
        #expect(token.expiresAt == fixture.clock.now.addingTimeInterval(testCase.expectedOffset))
    }

    struct BadCredentials: CustomTestStringConvertible, Sendable {
        let name: String
        let clientId: String
        let clientSecret: String
        var testDescription: String { name }
    }

    @Test("bad auth surfaces the server's message and keeps the earlier token", arguments: [
        BadCredentials(name: "wrong client id", clientId: "wrongClientId", clientSecret: StubMoltin.clientSecret),
        BadCredentials(name: "wrong secret", clientId: StubMoltin.clientId, clientSecret: "wrong-secret"),
    ])
    func badAuth(_ credentials: BadCredentials) async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let before = try fixture.storedBytes

        let error = await #expect(throws: OAuthError.self) {
            try await fixture.client.auth(clientId: credentials.clientId, clientSecret: credentials.clientSecret)
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.message == "Invalid client id or secret")
        #expect(error?.status == 401)
        #expect(try fixture.storedBytes == before)

        // The good credentials are still the remembered ones: an expiry renewal works.
        fixture.clock.advance(by: 61 * 60)
        #expect(try await fixture.client.products().count == 2)
        #expect(fixture.server.tokenRequests.last?.formValue("client_id") == StubMoltin.clientId)
    }

    @Test("bad auth on an empty store stores nothing")
    func badAuthEmptyStore() async throws {
        let fixture = try MoltinFixture()
        await #expect(throws: OAuthError.self) {
            try await fixture.client.auth(clientId: "nope", clientSecret: "nope")
        }
        #expect(try fixture.store.keys().isEmpty)
        // Nothing was remembered either.
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.refreshToken() }
        #expect(error?.code == .notLoggedIn)
    }

    @Test("refresh sends grant_type=refresh_token with the stored token and stores the new one")
    func refresh() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let token = try await fixture.client.refreshToken()

        let request = try #require(fixture.server.requests.last)
        #expect(request.method == "POST")
        #expect(request.url.path == "/oauth/access_token")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.form?.map(\.0) == ["grant_type", "client_id", "client_secret", "refresh_token"])
        #expect(request.formValue("grant_type") == "refresh_token")
        #expect(request.formValue("client_id") == StubMoltin.clientId)
        #expect(request.formValue("client_secret") == StubMoltin.clientSecret)
        #expect(request.formValue("refresh_token") == "tok-1")
        #expect(token.accessToken == "tok-2")
        #expect(try await fixture.client.currentToken() == token)
    }

    @Test("refresh prefers a stored refresh token when the server issued one")
    func refreshWithRefreshToken() async throws {
        let fixture = try MoltinFixture()
        fixture.server.issueRefreshTokens()
        try await fixture.authenticate()
        #expect(try await fixture.client.currentToken()?.refreshToken == "rt-1")
        try await fixture.client.refreshToken()
        #expect(fixture.server.requests.last?.formValue("refresh_token") == "rt-1")
        #expect(try await fixture.client.currentToken()?.accessToken == "tok-2")
    }

    @Test("refused refresh is reported and leaves the store alone")
    func refreshRefused() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        fixture.server.refuseRefresh()
        let before = try fixture.storedBytes
        let error = await #expect(throws: OAuthError.self) { try await fixture.client.refreshToken() }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.message == "Invalid refresh token")
        #expect(try fixture.storedBytes == before)
        // The explicit action does not fall back to client_credentials.
        #expect(fixture.server.tokenRequests(grant: "client_credentials").count == 1)
    }

    @Test("refresh without credentials or without a token is notLoggedIn and sends nothing")
    func refreshNotLoggedIn() async throws {
        let fresh = try MoltinFixture()
        let noCredentials = await #expect(throws: OAuthError.self) { try await fresh.client.refreshToken() }
        #expect(noCredentials?.code == .notLoggedIn)

        let deleted = try MoltinFixture()
        try await deleted.authenticate()
        try await deleted.client.deleteToken()
        let noToken = await #expect(throws: OAuthError.self) { try await deleted.client.refreshToken() }
        #expect(noToken?.code == .notLoggedIn)

        // After a relaunch the token is there but the credentials are not.
        let relaunched = try deleted.relaunched()
        try await deleted.authenticate()
        let afterRestart = await #expect(throws: OAuthError.self) { try await relaunched.client.refreshToken() }
        #expect(afterRestart?.code == .notLoggedIn)

        #expect(fresh.server.requests.isEmpty)
        #expect(deleted.server.tokenRequests(grant: "refresh_token").isEmpty)
    }

    @Test("delete empties the store; products then gets the 400 path with no Authorization header")
    func deleteThenProducts() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        try await fixture.client.deleteToken()
        #expect(try await fixture.client.currentToken() == nil)
        #expect(try fixture.store.keys().isEmpty)
        try await fixture.client.deleteToken()  // deleting twice is fine

        let error = await #expect(throws: OAuthError.self) { try await fixture.client.products() }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 400)
        #expect(error?.message == "Access token is required")
        let request = try #require(fixture.server.requests.last)
        #expect(request.isProducts)
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Accept") == "application/json")
        // Remembered credentials do not make products log in behind the user's back.
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try fixture.store.keys().isEmpty)
    }

    @Test("the token survives a relaunch on the same store")
    func survivesRelaunch() async throws {
        let fixture = try MoltinFixture()
        try await fixture.authenticate()
        let relaunched = try fixture.relaunched()
        #expect(try await relaunched.client.currentToken()?.accessToken == "tok-1")
        #expect(try await relaunched.client.products().count == 2)
        #expect(relaunched.server.productsRequests.last?.bearerToken == "tok-1")
    }

    @Test("a file store works the same and survives a relaunch")
    func fileStore() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let clock = ManualClock()
        let server = StubMoltin(clock: clock)
        let configuration = try MoltinConfiguration(baseURL: try #require(URL(string: "http://127.0.0.1:1")))
        let first = MoltinClient(
            configuration: configuration, transport: server,
            store: try FileTokenStore(directory: temporary.url), clock: clock)
        let token = try await first.auth(clientId: StubMoltin.clientId, clientSecret: StubMoltin.clientSecret)
        let second = MoltinClient(
            configuration: configuration, transport: server,
            store: try FileTokenStore(directory: temporary.url), clock: clock)
        #expect(try await second.currentToken() == token)
    }
}
