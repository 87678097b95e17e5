import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckSDK
import FlowCheckTestSupport

/// CLE-LOGIN, CLE-STATE-MISMATCH, CLE-STATE-REPLAY, CLE-STATE-FRESH and CLE-REDIRECT against the
/// real `FakeClever` (seed 004 steps 2 to 5); the user signs in on its page.
@Suite("Clever Instant Login", .integration, .timeLimit(.minutes(20)))
struct CleverInstantLoginTests {
    /// 32 pinned bytes for the state, and its base64url spelling.
    static let stateBytes: [UInt8] = Array(0..<32)
    static let pinnedState = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

    /// CLE-LOGIN: the whole login, every part of it checked.
    @Test("login: state stored before the browser opens, exact authorize URL, Basic with a blank secret, token stored",
          arguments: FakeTransportMode.allCases)
    func login(_ mode: FakeTransportMode) async throws {
        let world = try CleverWorld(mode: mode, random: PinnedRandomSource(blocks: [Self.stateBytes]))

        let authorize = try await world.login.startLogin()
        #expect(authorize.absoluteString == world.baseURL.absoluteString + "/oauth/authorize?response_type=code&client_id=cle-ios-1"
            + "&redirect_uri=clever-cle1%3A%2F%2Foauth&state=\(Self.pinnedState)")
        #expect(world.browser.openedURLs == [authorize])
        #expect(world.tap.requests.isEmpty, "the SDK opens the authorize URL, it never fetches it")

        let redirect = try await world.authorize(authorize)
        #expect(redirect.queryParameter("state") == Self.pinnedState)
        let code = try #require(redirect.queryParameter("code"))
        let token = try await world.login.handleRedirect(redirect)

        let requests = world.tokenRequests
        #expect(requests.count == 1)
        #expect(world.tap.requests.count == 1)
        let exchange = try #require(requests.first)
        #expect(exchange.method == "POST")
        #expect(exchange.target == "/oauth/tokens")
        #expect(exchange.headers["Authorization"] == "Basic Y2xlLWlvcy0xOg==")
        #expect(Data(base64Encoded: "Y2xlLWlvcy0xOg==").map { String(decoding: $0, as: UTF8.self) } == CleverWorld.clientID + ":")
        #expect(exchange.headers["Content-Type"] == "application/json")
        #expect(exchange.bodyText == #"{"code":"\#(code)","grant_type":"authorization_code","redirect_uri":"clever-cle1://oauth"}"#)

        #expect(token == CleverToken(accessToken: try #require(world.issuedTokens.first), tokenType: "bearer"))
        #expect(try await world.login.storedToken() == token)
        #expect(try world.store.keys() == [CleverInstantLogin.storeKey])
        let stored = try #require(try world.store.read(CleverInstantLogin.storeKey))
        #expect(try JSONDecoder().decode(CleverToken.self, from: stored) == token)
        #expect(world.browser.dismissCount == 1)

        // No secret anywhere: nothing after the Basic colon, and no secret-named field.
        for text in world.requests.map(\.allText) + world.browser.openedURLs.map(\.absoluteString) {
            #expect(!text.lowercased().contains("secret"))
        }
    }

    @Test("the state has at least 128 bits: 32 bytes from the random source, base64url")
    func stateSize() async throws {
        let random = PinnedRandomSource(seed: 11)
        let world = try CleverWorld(random: random)
        try await world.login.startLogin()
        let state = try #require(world.lastState)
        let bytes = try #require(Base64URL.decode(state))
        #expect(bytes.count * 8 >= 128)
        #expect(bytes.count == 32)
        #expect(random.calls == 1)
    }

    /// CLE-STATE-FRESH, with the system generator as production uses it.
    @Test("two logins: two different states, and the second replaces the first")
    func freshState() async throws {
        let world = try CleverWorld(random: SystemRandomSource())
        let first = try await world.login.startLogin()
        let firstState = try #require(world.lastState)
        let second = try await world.login.startLogin()
        let secondState = try #require(world.lastState)
        #expect(firstState != secondState)
        #expect(first != second)

        // The first login's redirect is now someone else's: refused, no request, and the second
        // login still waits for its own.
        let stale = try await world.authorize(first)
        let error = await oauthError { try await world.login.handleRedirect(stale) }
        #expect(error?.code == .stateMismatch)
        #expect(world.tokenRequests.isEmpty)
        #expect(world.browser.dismissCount == 0)

        let token = try await world.login.handleRedirect(try await world.authorize(second))
        #expect(try await world.login.storedToken() == token)
        #expect(world.tokenRequests.count == 1)
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
        let world = try CleverWorld(random: PinnedRandomSource(blocks: [Self.stateBytes]))
        let authorize = try await world.login.startLogin()
        // A real code from the fake, for this client and redirect URL: only the state is wrong.
        let code = try #require(try await world.authorize(authorize).queryParameter("code"))
        var parameters = [("code", code)]
        if let state = testCase.state {
            parameters.append(("state", state))
        }
        let forged = URL(string: CleverWorld.redirectURI)!.replacingQuery(parameters)

        let error = await oauthError { try await world.login.handleRedirect(forged) }
        #expect(error?.code == .stateMismatch)
        #expect(error.map { !$0.description.contains(code) } ?? false)
        #expect(world.tap.requests.isEmpty)
        #expect(world.tokenRequests.isEmpty)
        #expect(try world.store.keys().isEmpty)
        #expect(world.browser.dismissCount == 0)

        // The real redirect still completes the login.
        _ = try await world.login.handleRedirect(try await world.authorize(authorize))
        #expect(world.tokenRequests.count == 1)
    }

    /// CLE-STATE-REPLAY.
    @Test("a redirect replayed after a completed login is refused: state is single use")
    func replay() async throws {
        let world = try CleverWorld()
        let authorize = try await world.login.startLogin()
        let redirect = try await world.authorize(authorize)
        let token = try await world.login.handleRedirect(redirect)

        let error = await oauthError { try await world.login.handleRedirect(redirect) }
        #expect(error?.code == .stateMismatch)
        #expect(world.tokenRequests.count == 1)
        #expect(try await world.login.storedToken() == token)
        #expect(world.browser.dismissCount == 1)

        // Nor does it work after a relaunch, where no login is in progress at all.
        let relaunched = try world.relaunched()
        #expect(await oauthError { try await relaunched.login.handleRedirect(redirect) }?.code == .stateMismatch)
        #expect(world.tokenRequests.count == 1)
        #expect(try await relaunched.login.storedToken() == token, "the token survives a restart")
    }

    @Test("with no login ever started, any redirect is a state mismatch")
    func noLogin() async throws {
        let world = try CleverWorld()
        let url = URL(string: "clever-cle1://oauth?code=any-code&state=x")!
        #expect(await oauthError { try await world.login.handleRedirect(url) }?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }

    @Test("an error redirect with the right state ends the login with its code, and dismisses the browser")
    func errorRedirect() async throws {
        let world = try CleverWorld()
        let authorize = try await world.login.startLogin()
        let denied = try await world.authorize(authorize, deny: true)

        let error = await oauthError { try await world.login.handleRedirect(denied) }
        #expect(error?.code == .authorization)
        #expect(error?.message == "access_denied")
        #expect(world.tap.requests.isEmpty)
        #expect(try world.store.keys().isEmpty)
        #expect(world.browser.dismissCount == 1)

        // The state is used up: a code redirect for it afterwards is refused.
        let late = URL(string: CleverWorld.redirectURI)!.replacingQuery([("code", "any-code"), ("state", world.lastState ?? "")])
        #expect(await oauthError { try await world.login.handleRedirect(late) }?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }

    /// CLE-REDIRECT, both halves: the server refuses an unregistered redirect URL, and the SDK
    /// refuses a redirect that arrives anywhere but under its own.
    ///
    /// The code comes from a login on the redirect URL the fake registered. Handed over under
    /// the SDK's own redirect URL it is exchanged (the login was kept), and the real fake refuses
    /// it, since Clever binds a code to its redirect URL: the exchange that follows is a
    /// `.tokenEndpoint` `invalid_grant`, not the success an unbound code would give.
    @Test("another redirect URL: Clever refuses it, and the SDK ignores a redirect to it")
    func otherRedirectURI() async throws {
        let world = try CleverWorld(registered: "clever-cle1://registered")
        let authorize = try await world.login.startLogin()
        let refusal = await #expect(throws: FakeBrowserUser.Stopped.self) { try await world.authorize(authorize) }
        #expect(refusal?.status == 400)
        #expect(refusal?.description.contains("redirect_uri does not match the registered redirect URL") == true)

        let registered = world.baseURL.absoluteString + FakeClever.authorizePath + "?"
            + FormURLEncoding.encode([("response_type", "code"), ("client_id", CleverWorld.clientID),
                                      ("redirect_uri", "clever-cle1://registered"), ("state", "other-app-state")])
        let registeredURL = try #require(URL(string: registered))
        let code = try #require(try await world.authorize(registeredURL).queryParameter("code"))
        let elsewhere = URL(string: "clever-cle1://elsewhere")!.replacingQuery([("code", code), ("state", world.lastState ?? "")])
        let error = await oauthError { try await world.login.handleRedirect(elsewhere) }
        #expect(error?.code == .authorization)
        #expect(world.tap.requests.isEmpty)
        #expect(world.browser.dismissCount == 0)

        // Kept: the same parameters under the right URL go on to the exchange.
        let right = URL(string: CleverWorld.redirectURI)!.replacingQuery(elsewhere.queryParameters)
        let exchange = await oauthError { try await world.login.handleRedirect(right) }
        #expect(exchange?.code == .tokenEndpoint)
        #expect(exchange?.message.hasPrefix("invalid_grant") == true)
        #expect(world.tokenRequests.count == 1)
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
        let world = try CleverWorld(clientID: testCase.clientID)
        _ = try await world.logIn()   // the fake accepts exactly this header for this client
        let exchange = try #require(world.tokenRequests.first)
        #expect(exchange.headers["Authorization"] == testCase.header)
        #expect(exchange.headers["Authorization"] == "Basic "
            + Data((FormURLEncoding.encodeComponent(testCase.clientID) + ":").utf8).base64EncodedString())
        #expect(world.requests.allSatisfy { !$0.allText.lowercased().contains("secret") })
    }

    /// A failed code exchange: the fake's own answers where a real condition produces them (an
    /// expired code, a 500, a non-JSON page, an unreachable host), and a raw wire answer for
    /// `invalid_client`, which a correct SDK cannot provoke.
    enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case invalidClient, invalidGrant, serverError, notJSON, unreachable

        var testDescription: String { rawValue }

        var code: OAuthError.Code {
            switch self {
            case .invalidClient, .invalidGrant: .tokenEndpoint
            case .serverError: .serverError
            case .notJSON: .invalidResponse
            case .unreachable: .transport
            }
        }

        var status: Int? {
            switch self {
            case .invalidClient: 401
            case .invalidGrant: 400
            case .serverError: 500
            case .notJSON: 200
            case .unreachable: nil
            }
        }

        func arm(_ world: CleverWorld) {
            let path = FakeClever.tokenPath
            switch self {
            case .invalidClient: world.raw?.set { $0.path == path ? .rawJSON(401, #"{"error":"invalid_client"}"#) : nil }
            case .invalidGrant: world.clock.advance(by: CleverWorld.fixture().codeLifetime + 1)
            case .serverError: world.server.inject(Fault(kind: .serverError, path: path))
            case .notJSON: world.server.inject(Fault(kind: .nonJSONBody, path: path))
            case .unreachable: world.server.inject(Fault(kind: .unreachable))
            }
        }
    }

    @Test("token endpoint failures are mapped, nothing is stored, the browser is dismissed", arguments: Failure.allCases)
    func failures(_ failure: Failure) async throws {
        let world = try CleverWorld(rawAnswers: true)
        let authorize = try await world.login.startLogin()
        let redirect = try await world.authorize(authorize)
        let code = try #require(redirect.queryParameter("code"))
        failure.arm(world)

        let error = await oauthError { try await world.login.handleRedirect(redirect) }
        #expect(error?.code == failure.code)
        #expect(error?.status == failure.status)
        #expect(error.map { !$0.description.contains(code) } ?? false)
        if failure.code == .tokenEndpoint, let error {
            #expect(error.message.hasPrefix("invalid_"), "the server's own error code is carried")
        }
        #expect(try world.store.keys().isEmpty)
        #expect(try await world.login.storedToken() == nil)
        #expect(world.browser.dismissCount == 1)
        #expect(world.tap.requests.count == 1)

        // The state was used up by the attempt: the same redirect is not exchanged again.
        #expect(await oauthError { try await world.login.handleRedirect(redirect) }?.code == .stateMismatch)
        #expect(world.tap.requests.count == 1)
    }

    @Test("a failed exchange keeps the token stored by an earlier login")
    func failureKeepsToken() async throws {
        let world = try CleverWorld()
        let token = try await world.logIn()
        world.server.inject(Fault(kind: .serverError, path: FakeClever.tokenPath))
        #expect(await oauthError { try await world.logIn() }?.code == .serverError)
        #expect(try await world.login.storedToken() == token)
    }

    @Test("a browser that cannot open the page: .authorization, and the login is forgotten")
    func browserFailure() async throws {
        let world = try CleverWorld()
        world.browser.fail(with: RecordingUserAgent.Refused())
        let error = await oauthError { try await world.login.startLogin() }
        #expect(error?.code == .authorization)
        let url = try #require(world.browser.openedURLs.last)
        let redirect = try await world.authorize(url)
        #expect(await oauthError { try await world.login.handleRedirect(redirect) }?.code == .stateMismatch)
        #expect(world.tap.requests.isEmpty)
    }

    @Test("a redirect that arrives while the browser is still opening is accepted")
    func redirectDuringOpen() async throws {
        let world = try CleverWorld()
        let browser = ReentrantUserAgent()
        let login = CleverInstantLogin(
            configuration: try CleverConfiguration(clientID: CleverWorld.clientID, redirectURI: CleverWorld.redirectURI, baseURL: world.baseURL),
            transport: world.wiring.transport, userAgent: browser, store: InMemoryTokenStore(), random: PinnedRandomSource()
        )
        browser.onOpen = { url in
            _ = try await login.handleRedirect(try await world.authorize(url))
        }
        try await login.startLogin()
        #expect(world.tokenRequests.count == 1)
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
