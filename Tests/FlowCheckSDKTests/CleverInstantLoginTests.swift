import Foundation
import Testing
import FlowCheckSDK

/// CLE-LOGIN, CLE-STATE-MISMATCH, CLE-STATE-REPLAY, CLE-STATE-FRESH and CLE-REDIRECT against the
/// in-test stub (seed 004 steps 2 to 5).
@Suite("Clever Instant Login", .timeLimit(.minutes(5)))
struct CleverInstantLoginTests {
    /// 32 pinned bytes for the state, and its base64url spelling.
    static let stateBytes: [UInt8] = Array(0..<32)
    static let pinnedState = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

    /// CLE-LOGIN: the whole login, every part of it checked.
    @Test("login: state stored before the browser opens, exact authorize URL, Basic with a blank secret, token stored")
    func login() async throws {
        let fixture = try CleverFixture(random: PinnedRandomSource(blocks: [Self.stateBytes]))

        let authorize = try await fixture.login.startLogin()
        #expect(authorize.absoluteString == "http://127.0.0.1:9101/oauth/authorize?response_type=code&client_id=cle-ios-1"
            + "&redirect_uri=clever-cle1%3A%2F%2Foauth&state=\(Self.pinnedState)")
        #expect(fixture.browser.openedURLs == [authorize])
        #expect(fixture.server.requests.isEmpty, "the SDK opens the authorize URL, it never fetches it")

        let redirect = try fixture.server.authorize(authorize)
        #expect(redirect.queryParameters.first { $0.0 == "state" }?.1 == Self.pinnedState)
        let token = try await fixture.login.handleRedirect(redirect)

        let requests = fixture.server.requests
        #expect(requests.count == 1)
        let exchange = try #require(requests.first)
        #expect(exchange.method == "POST")
        #expect(exchange.url.absoluteString == "http://127.0.0.1:9101/oauth/tokens")
        #expect(exchange.header("Authorization") == "Basic Y2xlLWlvcy0xOg==")
        #expect(exchange.basicClientID == StubClever.clientID)
        #expect(exchange.header("Content-Type") == "application/json")
        #expect(exchange.bodyText == #"{"code":"cle-code-1","grant_type":"authorization_code","redirect_uri":"clever-cle1://oauth"}"#)

        #expect(token == CleverToken(accessToken: "cle-at-2", tokenType: "bearer"))
        #expect(try await fixture.login.storedToken() == token)
        #expect(try fixture.store.keys() == [CleverInstantLogin.storeKey])
        let stored = try #require(try fixture.store.read(CleverInstantLogin.storeKey))
        #expect(try JSONDecoder().decode(CleverToken.self, from: stored) == token)
        #expect(fixture.browser.dismissCount == 1)

        // No secret anywhere: nothing after the Basic colon, and no secret-named field.
        for text in requests.map(\.allText) + fixture.browser.openedURLs.map(\.absoluteString) {
            #expect(!text.lowercased().contains("secret"))
        }
    }

    @Test("the state has at least 128 bits: 32 bytes from the random source, base64url")
    func stateSize() async throws {
        let random = PinnedRandomSource(seed: 11)
        let fixture = try CleverFixture(random: random)
        try await fixture.login.startLogin()
        let state = try #require(fixture.lastState)
        let bytes = try #require(Base64URL.decode(state))
        #expect(bytes.count * 8 >= 128)
        #expect(bytes.count == 32)
        #expect(random.calls == 1)
    }

    /// CLE-STATE-FRESH, with the system generator as production uses it.
    @Test("two logins: two different states, and the second replaces the first")
    func freshState() async throws {
        let fixture = try CleverFixture(random: SystemRandomSource())
        let first = try await fixture.login.startLogin()
        let firstState = try #require(fixture.lastState)
        let second = try await fixture.login.startLogin()
        let secondState = try #require(fixture.lastState)
        #expect(firstState != secondState)
        #expect(first != second)

        // The first login's redirect is now someone else's: refused, no request, and the second
        // login still waits for its own.
        let stale = try fixture.server.authorize(first)
        let error = await oauthError { try await fixture.login.handleRedirect(stale) }
        #expect(error?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.isEmpty)
        #expect(fixture.browser.dismissCount == 0)

        let token = try await fixture.login.handleRedirect(try fixture.server.authorize(second))
        #expect(try await fixture.login.storedToken() == token)
        #expect(fixture.server.tokenRequests.count == 1)
    }

    struct MismatchCase: CustomTestStringConvertible, Sendable {
        let name: String
        let state: String?
        var testDescription: String { name }
    }

    /// CLE-STATE-MISMATCH.
    @Test("a redirect with another state, or none: rejected, no token request, the login kept", arguments: [
        MismatchCase(name: "another state", state: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9"),
        MismatchCase(name: "no state", state: nil),
        MismatchCase(name: "empty state", state: ""),
    ])
    func stateMismatch(_ testCase: MismatchCase) async throws {
        let fixture = try CleverFixture(random: PinnedRandomSource(blocks: [Self.stateBytes]))
        let authorize = try await fixture.login.startLogin()
        let code = fixture.server.issueCode()
        var parameters = [("code", code)]
        if let state = testCase.state {
            parameters.append(("state", state))
        }
        let forged = URL(string: StubClever.redirectURI)!.replacingQuery(parameters)

        let error = await oauthError { try await fixture.login.handleRedirect(forged) }
        #expect(error?.code == .stateMismatch)
        #expect(error.map { !$0.description.contains(code) } ?? false)
        #expect(fixture.server.requests.isEmpty)
        #expect(try fixture.store.keys().isEmpty)
        #expect(fixture.browser.dismissCount == 0)

        // The real redirect still completes the login.
        _ = try await fixture.login.handleRedirect(try fixture.server.authorize(authorize))
        #expect(fixture.server.tokenRequests.count == 1)
    }

    /// CLE-STATE-REPLAY.
    @Test("a redirect replayed after a completed login is refused: state is single use")
    func replay() async throws {
        let fixture = try CleverFixture()
        let authorize = try await fixture.login.startLogin()
        let redirect = try fixture.server.authorize(authorize)
        let token = try await fixture.login.handleRedirect(redirect)

        let error = await oauthError { try await fixture.login.handleRedirect(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try await fixture.login.storedToken() == token)
        #expect(fixture.browser.dismissCount == 1)

        // Nor does it work after a relaunch, where no login is in progress at all.
        let relaunched = try fixture.relaunched()
        #expect(await oauthError { try await relaunched.login.handleRedirect(redirect) }?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.count == 1)
        #expect(try await relaunched.login.storedToken() == token, "the token survives a restart")
    }

    @Test("with no login ever started, any redirect is a state mismatch")
    func noLogin() async throws {
        let fixture = try CleverFixture()
        let url = URL(string: "clever-cle1://oauth?code=\(fixture.server.issueCode())&state=x")!
        #expect(await oauthError { try await fixture.login.handleRedirect(url) }?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test("an error redirect with the right state ends the login with its code, and dismisses the browser")
    func errorRedirect() async throws {
        let fixture = try CleverFixture()
        let authorize = try await fixture.login.startLogin()
        let denied = try fixture.server.authorize(authorize, deny: true)

        let error = await oauthError { try await fixture.login.handleRedirect(denied) }
        #expect(error?.code == .authorization)
        #expect(error?.message == "access_denied")
        #expect(fixture.server.requests.isEmpty)
        #expect(try fixture.store.keys().isEmpty)
        #expect(fixture.browser.dismissCount == 1)

        // The state is used up: a code redirect for it afterwards is refused.
        let late = URL(string: StubClever.redirectURI)!.replacingQuery([("code", fixture.server.issueCode()), ("state", fixture.lastState ?? "")])
        #expect(await oauthError { try await fixture.login.handleRedirect(late) }?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
    }

    /// CLE-REDIRECT, both halves: the server refuses an unregistered redirect URL, and the SDK
    /// refuses a redirect that arrives anywhere but under its own.
    @Test("another redirect URL: Clever refuses it, and the SDK ignores a redirect to it")
    func otherRedirectURI() async throws {
        let server = StubClever(clients: [StubClever.clientID: "clever-cle1://registered"])
        let fixture = try CleverFixture(server: server)
        let authorize = try await fixture.login.startLogin()
        #expect(throws: StubClever.AuthorizeRefusal(reason: "redirect URI not registered")) { try server.authorize(authorize) }

        let elsewhere = URL(string: "clever-cle1://elsewhere")!.replacingQuery([("code", server.issueCode()), ("state", fixture.lastState ?? "")])
        let error = await oauthError { try await fixture.login.handleRedirect(elsewhere) }
        #expect(error?.code == .authorization)
        #expect(server.requests.isEmpty)
        #expect(fixture.browser.dismissCount == 0)

        // Kept: the same parameters under the right URL complete the login.
        let right = URL(string: StubClever.redirectURI)!.replacingQuery(elsewhere.queryParameters)
        _ = try await fixture.login.handleRedirect(right)
        #expect(server.tokenRequests.count == 1)
    }

    struct ClientCase: CustomTestStringConvertible, Sendable {
        let name: String
        let clientID: String
        let header: String
        var testDescription: String { name }
    }

    @Test("the Basic header is exactly base64(encodeComponent(client ID) + \":\")", arguments: [
        ClientCase(name: "RFC 6749 §2.3.1 client ID", clientID: "s6BhdRkqt3", header: "Basic czZCaGRSa3F0Mzo="),
        ClientCase(name: "colon", clientID: "app:ios", header: "Basic YXBwJTNBaW9zOg=="),
        ClientCase(name: "at sign", clientID: "dev@school", header: "Basic ZGV2JTQwc2Nob29sOg=="),
        ClientCase(name: "space", clientID: "my app", header: "Basic bXkrYXBwOg=="),
        ClientCase(name: "non-ASCII", clientID: "clé-Ω", header: "Basic Y2wlQzMlQTktJUNFJUE5Og=="),
    ])
    func basicHeader(_ testCase: ClientCase) async throws {
        let server = StubClever(clients: [testCase.clientID: StubClever.redirectURI])
        let fixture = try CleverFixture(clientID: testCase.clientID, server: server)
        _ = try await fixture.logIn()
        let exchange = try #require(server.tokenRequests.first)
        #expect(exchange.header("Authorization") == testCase.header)
        #expect(exchange.header("Authorization") == "Basic "
            + Data((FormURLEncoding.encodeComponent(testCase.clientID) + ":").utf8).base64EncodedString())
        #expect(exchange.basicClientID == testCase.clientID)
        #expect(server.requests.allSatisfy { !$0.allText.lowercased().contains("secret") })
    }

    struct FailureCase: CustomTestStringConvertible, Sendable {
        let name: String
        let response: TransportResponse?
        let code: OAuthError.Code
        let status: Int?
        var testDescription: String { name }
    }

    struct Unreachable: Error {}

    @Test("token endpoint failures are mapped, nothing is stored, the browser is dismissed", arguments: [
        FailureCase(name: "401 invalid_client", response: .json(401, #"{"error":"invalid_client"}"#), code: .tokenEndpoint, status: 401),
        FailureCase(name: "400 invalid_grant", response: .json(400, #"{"error":"invalid_grant"}"#), code: .tokenEndpoint, status: 400),
        FailureCase(name: "500", response: .json(500, #"{"error":"server_error"}"#), code: .serverError, status: 500),
        FailureCase(name: "200 not JSON", response: .text(200, "<html>Welcome</html>"), code: .invalidResponse, status: 200),
        FailureCase(name: "network failure", response: nil, code: .transport, status: nil),
    ])
    func failures(_ testCase: FailureCase) async throws {
        let fixture = try CleverFixture()
        let response = testCase.response
        fixture.server.intercept { _ in
            guard let response else { throw Unreachable() }
            return response
        }
        let authorize = try await fixture.login.startLogin()
        let redirect = try fixture.server.authorize(authorize)
        let code = try #require(redirect.queryParameters.first { $0.0 == "code" }?.1)

        let error = await oauthError { try await fixture.login.handleRedirect(redirect) }
        #expect(error?.code == testCase.code)
        #expect(error?.status == testCase.status)
        #expect(error.map { !$0.description.contains(code) } ?? false)
        if testCase.code == .tokenEndpoint, let error {
            #expect(error.message.hasPrefix("invalid_"), "the server's own error code is carried")
        }
        #expect(try fixture.store.keys().isEmpty)
        #expect(try await fixture.login.storedToken() == nil)
        #expect(fixture.browser.dismissCount == 1)
        #expect(fixture.server.tokenRequests.count == 1)

        // The state was used up by the attempt: the same redirect is not exchanged again.
        #expect(await oauthError { try await fixture.login.handleRedirect(redirect) }?.code == .stateMismatch)
        #expect(fixture.server.tokenRequests.count == 1)
    }

    @Test("a failed exchange keeps the token stored by an earlier login")
    func failureKeepsToken() async throws {
        let fixture = try CleverFixture()
        let token = try await fixture.logIn()
        fixture.server.intercept { _ in .json(500, "{}") }
        #expect(await oauthError { try await fixture.logIn() }?.code == .serverError)
        #expect(try await fixture.login.storedToken() == token)
    }

    @Test("a browser that cannot open the page: .authorization, and the login is forgotten")
    func browserFailure() async throws {
        let fixture = try CleverFixture()
        fixture.browser.fail(with: RecordingUserAgent.Refused())
        let error = await oauthError { try await fixture.login.startLogin() }
        #expect(error?.code == .authorization)
        let url = try #require(fixture.browser.openedURLs.last)
        #expect(await oauthError { try await fixture.login.handleRedirect(try fixture.server.authorize(url)) }?.code == .stateMismatch)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test("a redirect that arrives while the browser is still opening is accepted")
    func redirectDuringOpen() async throws {
        let server = StubClever()
        let browser = ReentrantUserAgent()
        let login = CleverInstantLogin(
            configuration: try CleverConfiguration(clientID: StubClever.clientID, redirectURI: StubClever.redirectURI, baseURL: StubClever.base),
            transport: server, userAgent: browser, store: InMemoryTokenStore(), random: PinnedRandomSource()
        )
        browser.onOpen = { url in
            _ = try await login.handleRedirect(try server.authorize(url))
        }
        try await login.startLogin()
        #expect(server.tokenRequests.count == 1)
        #expect(try await login.storedToken() != nil)
    }
}

/// A browser whose `open` runs a closure before returning, standing for a redirect delivered
/// while the page is still being presented.
private final class ReentrantUserAgent: ExternalUserAgent, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (URL) async throws -> Void)?

    var onOpen: (@Sendable (URL) async throws -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    func open(_ url: URL) async throws {
        try await onOpen?(url)
    }

    func dismiss() async {}
}
