import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// MLT-AUTH, MLT-BADAUTH, MLT-REFRESH, MLT-DELETE, MLT-ENCODING against the real `FakeMoltin`,
/// socket-free and over loopback.
@Suite("MoltinClient auth, refresh, delete", .integration, .timeLimit(.minutes(20)))
struct MoltinClientAuthTests {
    @Test("auth posts the exact form and stores the token", arguments: FakeTransportMode.allCases)
    func authSuccess(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        // Loopback really dials the fake's listener; socket-free never leaves the process.
        #expect(world.wiring.connection.baseURL.host == (mode == .loopback ? "127.0.0.1" : "localhost"))
        #expect(world.server.port == (mode == .loopback ? world.wiring.connection.baseURL.port : 0))
        let token = try await world.client.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret)

        let request = try #require(world.requests.first)
        #expect(world.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.target == "/oauth/access_token")
        // Exactly the SDK's two headers, in order as handed over; on the wire the transports add
        // Host and their own, and URLSession (FoundationNetworking) does not keep the order.
        #expect(world.tap.requests.first?.headers.map(\.0) == ["Content-Type", "Accept"])
        if mode == .socketFree {
            #expect(request.sdkHeaderNames == ["Content-Type", "Accept"])
        } else {
            #expect(request.sdkHeaderNames.sorted() == ["Accept", "Content-Type"])
        }
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.bodyText == "grant_type=client_credentials&client_id=client-id-1234"
            + "&client_secret=s3cr%26t%3D%2B+%C3%A9%2F%E2%82%AC")
        // MLT-ENCODING: the server decodes exactly the secret that was given.
        #expect(request.formField("client_secret") == MoltinWorld.clientSecret)

        #expect(token.accessToken == world.issuedToken(1))
        #expect(token.tokenType == "Bearer")
        #expect(token.expiresAt == world.clock.now.addingTimeInterval(3600))
        #expect(token.refreshToken == nil)
        #expect(try await world.client.currentToken() == token)
        #expect(try StoredToken(storedData: try #require(try world.storedBytes)) == token)
        #expect(try world.store.keys() == ["moltin.token"])
    }

    struct ExpiryFieldCase: CustomTestStringConvertible, Sendable {
        let name: String
        let fields: String
        let expectedOffset: TimeInterval
        var testDescription: String { name }
    }

    /// Token answers the fake never gives (it always sends both fields): a raw wire answer.
    @Test("expiresAt comes from expires, else expires_in, else one hour", arguments: [
        ExpiryFieldCase(name: "expires wins", fields: #""expires":1767229000,"expires_in":10"#, expectedOffset: 3400),
        ExpiryFieldCase(name: "expires_in only", fields: #""expires_in":120"#, expectedOffset: 120),
        ExpiryFieldCase(name: "neither: one hour", fields: #""identifier":"client_credentials""#, expectedOffset: 3600),
    ])
    func expiryFields(_ testCase: ExpiryFieldCase) async throws {
        let clock = ManualClock()
        let connection = try FakeConnection.serving(ClosureResponder { _ in
            .rawJSON(200, #"{"access_token":"abc","token_type":"Bearer",\#(testCase.fields)}"#)
        }, mode: .socketFree)
        let client = MoltinClient(
            configuration: try MoltinConfiguration(baseURL: connection.baseURL),
            transport: connection.transport, store: InMemoryTokenStore(), clock: clock)
        let token = try await client.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret)
        #expect(token.expiresAt == clock.now.addingTimeInterval(testCase.expectedOffset))
    }

    struct BadCredentials: CustomTestStringConvertible, Sendable {
        let name: String
        let clientId: String
        let clientSecret: String
        var testDescription: String { name }
    }

    @Test("bad auth surfaces the server's message and keeps the earlier token", arguments: [
        BadCredentials(name: "wrong client id", clientId: "wrongClientId", clientSecret: MoltinWorld.clientSecret),
        BadCredentials(name: "wrong secret", clientId: MoltinWorld.clientID, clientSecret: "wrong-secret"),
    ], FakeTransportMode.allCases)
    func badAuth(_ credentials: BadCredentials, _ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        try await world.authenticate()
        let before = try world.storedBytes

        let error = await #expect(throws: OAuthError.self) {
            try await world.client.auth(clientId: credentials.clientId, clientSecret: credentials.clientSecret)
        }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.message == "Invalid client id or secret")
        #expect(error?.status == 401)
        #expect(try world.storedBytes == before)

        // The good credentials are still the remembered ones: an expiry renewal works.
        world.clock.advance(by: 61 * 60)
        #expect(try await world.client.products().count == 2)
        #expect(world.tokenRequests.last?.formField("client_id") == MoltinWorld.clientID)
    }

    @Test("bad auth on an empty store stores nothing")
    func badAuthEmptyStore() async throws {
        let world = try MoltinWorld()
        await #expect(throws: OAuthError.self) {
            try await world.client.auth(clientId: "nope", clientSecret: "nope")
        }
        #expect(try world.store.keys().isEmpty)
        // Nothing was remembered either.
        let error = await #expect(throws: OAuthError.self) { try await world.client.refreshToken() }
        #expect(error?.code == .notLoggedIn)
    }

    @Test("refresh sends grant_type=refresh_token with the stored token and stores the new one", arguments: FakeTransportMode.allCases)
    func refresh(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        try await world.authenticate()
        let token = try await world.client.refreshToken()

        let request = try #require(world.requests.last)
        #expect(request.method == "POST")
        #expect(request.path == "/oauth/access_token")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.formFields?.map(\.name) == ["grant_type", "client_id", "client_secret", "refresh_token"])
        #expect(request.formField("grant_type") == "refresh_token")
        #expect(request.formField("client_id") == MoltinWorld.clientID)
        #expect(request.formField("client_secret") == MoltinWorld.clientSecret)
        #expect(request.formField("refresh_token") == world.issuedToken(1))
        #expect(token.accessToken == world.issuedToken(2))
        #expect(try await world.client.currentToken() == token)
    }

    /// The fake issues no refresh tokens (the tutorial refreshes with the access token), so a
    /// server that does is a raw wire answer: a token answer with `refresh_token` each time.
    @Test("refresh prefers a stored refresh token when the server issued one")
    func refreshWithRefreshToken() async throws {
        let issued = Counter()
        let connection = try FakeConnection.serving(ClosureResponder { _ in
            let n = issued.increment()
            return .rawJSON(200, #"{"access_token":"tok-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(n)"}"#)
        }, mode: .socketFree)
        let tap = TransportTap(base: connection.transport)
        let client = MoltinClient(
            configuration: try MoltinConfiguration(baseURL: connection.baseURL),
            transport: tap, store: InMemoryTokenStore(), clock: ManualClock())
        try await client.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret)
        #expect(try await client.currentToken()?.refreshToken == "rt-1")
        try await client.refreshToken()
        let sent = try #require(tap.requests.last?.body)
        #expect(FormURLEncoding.decode(String(decoding: sent, as: UTF8.self))?.first { $0.0 == "refresh_token" }?.1 == "rt-1")
        #expect(try await client.currentToken()?.accessToken == "tok-2")
    }

    /// The fake refuses a refresh with a dead token: revoking every token makes it refuse.
    @Test("refused refresh is reported and leaves the store alone")
    func refreshRefused() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        world.moltin.revokeAllTokens()
        let before = try world.storedBytes
        let error = await #expect(throws: OAuthError.self) { try await world.client.refreshToken() }
        #expect(error?.code == .tokenEndpoint)
        #expect(error?.status == 401)
        #expect(error?.message == "Refresh token is not valid")
        #expect(try world.storedBytes == before)
        // The explicit action does not fall back to client_credentials.
        #expect(world.tokenRequests(grant: "client_credentials").count == 1)
    }

    @Test("refresh without credentials or without a token is notLoggedIn and sends nothing")
    func refreshNotLoggedIn() async throws {
        let fresh = try MoltinWorld()
        let noCredentials = await #expect(throws: OAuthError.self) { try await fresh.client.refreshToken() }
        #expect(noCredentials?.code == .notLoggedIn)

        let deleted = try MoltinWorld()
        try await deleted.authenticate()
        try await deleted.client.deleteToken()
        let noToken = await #expect(throws: OAuthError.self) { try await deleted.client.refreshToken() }
        #expect(noToken?.code == .notLoggedIn)

        // After a relaunch the token is there but the credentials are not.
        let relaunched = try deleted.relaunched()
        try await deleted.authenticate()
        let afterRestart = await #expect(throws: OAuthError.self) { try await relaunched.client.refreshToken() }
        #expect(afterRestart?.code == .notLoggedIn)

        #expect(fresh.requests.isEmpty)
        #expect(fresh.tap.requests.isEmpty)
        #expect(deleted.tokenRequests(grant: "refresh_token").isEmpty)
    }

    @Test("delete empties the store; products then gets the 400 path with no Authorization header", arguments: FakeTransportMode.allCases)
    func deleteThenProducts(_ mode: FakeTransportMode) async throws {
        let world = try MoltinWorld(mode: mode)
        try await world.authenticate()
        try await world.client.deleteToken()
        #expect(try await world.client.currentToken() == nil)
        #expect(try world.store.keys().isEmpty)
        try await world.client.deleteToken()  // deleting twice is fine

        let error = await #expect(throws: OAuthError.self) { try await world.client.products() }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 400)
        #expect(error?.message == "Access token is required")
        let request = try #require(world.requests.last)
        #expect(request.path == FakeMoltin.productsPath)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.headers["Accept"] == "application/json")
        // Remembered credentials do not make products log in behind the user's back.
        #expect(world.tokenRequests.count == 1)
        #expect(try world.store.keys().isEmpty)
    }

    @Test("the token survives a relaunch on the same store")
    func survivesRelaunch() async throws {
        let world = try MoltinWorld()
        try await world.authenticate()
        let relaunched = try world.relaunched()
        #expect(try await relaunched.client.currentToken()?.accessToken == world.issuedToken(1))
        #expect(try await relaunched.client.products().count == 2)
        #expect(relaunched.productsRequests.last?.bearerToken == world.issuedToken(1))
    }

    @Test("a file store works the same and survives a relaunch")
    func fileStore() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let world = try MoltinWorld()
        let configuration = try MoltinConfiguration(baseURL: world.wiring.connection.baseURL)
        let first = MoltinClient(
            configuration: configuration, transport: world.wiring.transport,
            store: try FileTokenStore(directory: temporary.url), clock: world.clock)
        let token = try await first.auth(clientId: MoltinWorld.clientID, clientSecret: MoltinWorld.clientSecret)
        let second = MoltinClient(
            configuration: configuration, transport: world.wiring.transport,
            store: try FileTokenStore(directory: temporary.url), clock: world.clock)
        #expect(try await second.currentToken() == token)
        #expect(try await second.products().count == 2)
    }
}
