import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckSDK
import FlowCheckTestSupport

/// BT-CONNECT, BT-SECRET, BT-UNTRUSTED and BT-DENIED against the real `FakeBraintreeConnect`
/// (seed 002): the merchant approves or declines on its page, its backend redirects to the app.
@Suite("Braintree client-side connect", .integration, .timeLimit(.minutes(20)))
struct BraintreeConnectTests {
    static let seedReturn = BraintreeWorld.seedReturn
    static let reverseReturn = BraintreeWorld.reverseReturn

    @Test("connect fetches the connect URL from the backend, then opens it", arguments: FakeTransportMode.allCases)
    func connectFetchesThenOpens(_ mode: FakeTransportMode) async throws {
        let fixture = try BraintreeWorld(mode: mode)
        let browser = fixture.browser
        let openedAtFetch = EventRecorder<Int>()
        fixture.watch.set { _ in openedAtFetch.record(browser.openedURLs.count) }
        try await fixture.connect.connect()

        let requests = fixture.exchanges.map(\.request)
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.method == "GET")
        #expect(request.target == FakeBraintreeConnect.connectURLPath)
        #expect(request.sdkHeaderNames == ["Accept"])
        #expect(fixture.tap.requests.first?.headers.map(\.0) == ["Accept"])
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.body.isEmpty)
        #expect(fixture.tap.requests.first?.body == nil)
        #expect(openedAtFetch.values == [0], "nothing is opened before the connect URL has been fetched")
        let served = try #require(fixture.servedConnectURLs.first)
        #expect(served.hasPrefix(fixture.baseURL.absoluteString + FakeBraintreeConnect.connectPath + "?client_id="))
        #expect(fixture.browser.openedURLs.map(\.absoluteString) == [served])
        #expect(fixture.events.values.isEmpty)
        #expect(fixture.browser.dismissCount == 0)
    }

    /// BT-CONNECT and BT-SECRET: the whole flow, as the device sees it.
    @Test("the merchant authorizes: one connected event, browser dismissed, no secret or token on the device",
          arguments: FakeTransportMode.allCases)
    func wholeFlow(_ mode: FakeTransportMode) async throws {
        let fixture = try BraintreeWorld(mode: mode)
        try await fixture.connect.connect()
        let back = try await fixture.merchantAuthorizes()

        #expect(await fixture.connect.handleOpenURL(back))
        #expect(fixture.events.values == [.connected(merchantID: BraintreeWorld.merchantID)])
        #expect(fixture.browser.dismissCount == 1)

        // The token exists, on the backend only: nothing the device (app or browser) sent or
        // received over its connection carries it or the secret.
        let token = try #require(fixture.braintree.backendTokens[BraintreeWorld.merchantID])
        let deviceSaw = fixture.exchanges.map { $0.request.allText + "\n" + $0.response.bodyText + ($0.response.headers["Location"] ?? "") }
            + fixture.browser.openedURLs.map(\.absoluteString) + [back.absoluteString]
        for text in deviceSaw {
            #expect(!text.contains(token))
            #expect(!text.contains(BraintreeWorld.clientSecret))
            #expect(!text.contains(FormURLEncoding.encodeComponent(BraintreeWorld.clientSecret)))
            #expect(!text.lowercased().contains("secret"))
            #expect(!text.lowercased().contains("access_token"))
        }
        #expect(fixture.tap.requests.allSatisfy { $0.header("Authorization") == nil })
        #expect(fixture.tap.requests.count == 1, "no token request, ever")

        // The same URL again: the connect is over.
        #expect(await !fixture.connect.handleOpenURL(back))
        #expect(fixture.events.values.count == 1)
        #expect(fixture.browser.dismissCount == 1)
    }

    /// BT-DENIED.
    @Test("the merchant declines: one failed event, browser dismissed, nothing connected")
    func declined() async throws {
        let fixture = try BraintreeWorld()
        try await fixture.connect.connect()
        #expect(await fixture.connect.handleOpenURL(try await fixture.merchantDeclines()))
        #expect(fixture.events.values == [.failed(error: "access_denied")])
        #expect(fixture.browser.dismissCount == 1)
        #expect(fixture.braintree.backendTokens.isEmpty)
        // Over: a connected URL arriving now is ignored.
        #expect(await !fixture.connect.handleOpenURL(try await fixture.foreignReturn()))
        #expect(fixture.events.values.count == 1)
    }

    struct ConnectURLCase: CustomTestStringConvertible, Sendable {
        let name: String
        let connectURL: String
        let code: OAuthError.Code?
        var testDescription: String { name }
    }

    @Test("the connect URL must be https, or http to loopback", arguments: [
        ConnectURLCase(name: "https", connectURL: "https://sandbox.braintreegateway.com/oauth/connect?x=1", code: nil),
        ConnectURLCase(name: "loopback http", connectURL: "http://127.0.0.1:9202/oauth/connect?x=1", code: nil),
        ConnectURLCase(name: "http to a remote host", connectURL: "http://sandbox.braintreegateway.com/oauth/connect?x=1", code: .configuration),
        ConnectURLCase(name: "another scheme", connectURL: "javascript:alert(1)", code: .configuration),
        ConnectURLCase(name: "custom scheme", connectURL: "examplescheme://braintree/connected?merchant_id=M", code: .configuration),
        ConnectURLCase(name: "relative", connectURL: "/oauth/connect", code: .invalidResponse),
        ConnectURLCase(name: "empty", connectURL: "", code: .invalidResponse),
    ])
    func connectURLPolicy(_ testCase: ConnectURLCase) async throws {
        let fixture = try BraintreeWorld(rawAnswers: true)
        let body = #"{"connectURL":"\#(testCase.connectURL)"}"#
        fixture.raw?.answerOnce(path: FakeBraintreeConnect.connectURLPath) { _ in .rawJSON(200, body) }
        let error = await oauthError { try await fixture.connect.connect() }
        #expect(error?.code == testCase.code)
        if testCase.code == nil {
            #expect(fixture.browser.openedURLs.map(\.absoluteString) == [testCase.connectURL])
        } else {
            #expect(fixture.browser.openedURLs.isEmpty)
            #expect(error.map { !$0.description.contains(testCase.connectURL) || testCase.connectURL.isEmpty } ?? false)
            // No connect is in progress, so a return is not accepted.
            #expect(await !fixture.connect.handleOpenURL(try await fixture.foreignReturn()))
            #expect(fixture.events.values.isEmpty)
        }
    }

    /// A backend that fails: the fake's own answers where it has them (its 404 for a path it does
    /// not serve, its faults), raw wire answers for the rest.
    enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case serverError, notFound, unauthorized, notJSON, noConnectURL, connectURLNotString, unreachable

        var testDescription: String { rawValue }

        var code: OAuthError.Code {
            switch self {
            case .serverError: .serverError
            case .notFound, .unauthorized: .httpStatus
            case .notJSON, .noConnectURL, .connectURLNotString: .invalidResponse
            case .unreachable: .transport
            }
        }

        var status: Int? {
            switch self {
            case .serverError: 500
            case .notFound: 404
            case .unauthorized: 401
            case .notJSON, .noConnectURL, .connectURLNotString: 200
            case .unreachable: nil
            }
        }

        func world() throws -> BraintreeWorld {
            try BraintreeWorld(endpointPath: self == .notFound ? "/backend/no-such-endpoint" : FakeBraintreeConnect.connectURLPath,
                               rawAnswers: true)
        }

        func arm(_ world: BraintreeWorld) {
            let path = FakeBraintreeConnect.connectURLPath
            switch self {
            case .serverError: world.server.inject(Fault(kind: .serverError, path: path))
            case .notFound: break
            case .unauthorized: world.raw?.answerOnce(path: path) { _ in .rawJSON(401, #"{"message":"log in first"}"#) }
            case .notJSON: world.server.inject(Fault(kind: .nonJSONBody, path: path))
            case .noConnectURL: world.raw?.answerOnce(path: path) { _ in .rawJSON(200, #"{"url":"https://x.example"}"#) }
            case .connectURLNotString: world.raw?.answerOnce(path: path) { _ in .rawJSON(200, #"{"connectURL":42}"#) }
            case .unreachable: world.server.inject(Fault(kind: .unreachable))
            }
        }
    }

    @Test("backend failures are mapped and nothing opens", arguments: Failure.allCases)
    func failures(_ failure: Failure) async throws {
        let fixture = try failure.world()
        failure.arm(fixture)
        let error = await oauthError { try await fixture.connect.connect() }
        #expect(error?.code == failure.code)
        #expect(error?.status == failure.status)
        #expect(fixture.browser.openedURLs.isEmpty)
        fixture.server.clearFaults()
        #expect(await !fixture.connect.handleOpenURL(try await fixture.foreignReturn()))
    }

    struct HandlerCase: CustomTestStringConvertible, Sendable {
        let name: String
        let returnURL: String
        let url: String
        let event: BraintreeConnectEvent?
        var testDescription: String { name }
    }

    static let seed = seedReturn
    static let reverse = reverseReturn

    /// BT-UNTRUSTED: the handler table. Each URL arrives while a connect is in progress.
    @Test("open-URL handler: trusted source, path and parameters", arguments: [
        HandlerCase(name: "connected", returnURL: seed, url: "\(seed)/connected?merchant_id=M1", event: .connected(merchantID: "M1")),
        HandlerCase(name: "connected, scheme and host in capitals", returnURL: seed, url: "EXAMPLESCHEME://BRAINTREE/connected?merchant_id=M1", event: .connected(merchantID: "M1")),
        HandlerCase(name: "connected, a harmless extra parameter", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&state=abc", event: .connected(merchantID: "M1")),
        HandlerCase(name: "connected, configured with a trailing slash", returnURL: seed + "/", url: "\(seed)/connected?merchant_id=M1", event: .connected(merchantID: "M1")),
        HandlerCase(name: "failed", returnURL: seed, url: "\(seed)/failed?error=access_denied", event: .failed(error: "access_denied")),
        HandlerCase(name: "failed with a description", returnURL: seed, url: "\(seed)/failed?error=access_denied&error_description=No+thanks", event: .failed(error: "access_denied")),
        HandlerCase(name: "reverse-domain connected", returnURL: reverse, url: "com.example.merchantapp:/braintree/connected?merchant_id=M", event: .connected(merchantID: "M")),
        HandlerCase(name: "reverse-domain, empty authority", returnURL: reverse, url: "com.example.merchantapp:///braintree/connected?merchant_id=M", event: .connected(merchantID: "M")),
        HandlerCase(name: "reverse-domain failed", returnURL: reverse, url: "com.example.merchantapp:/braintree/failed?error=access_denied", event: .failed(error: "access_denied")),
        HandlerCase(name: "wrong scheme", returnURL: seed, url: "otherscheme://braintree/connected?merchant_id=M1", event: nil),
        HandlerCase(name: "https look-alike", returnURL: seed, url: "https://braintree/connected?merchant_id=M1", event: nil),
        HandlerCase(name: "wrong host", returnURL: seed, url: "examplescheme://evil/connected?merchant_id=M1", event: nil),
        HandlerCase(name: "a port", returnURL: seed, url: "examplescheme://braintree:8080/connected?merchant_id=M1", event: nil),
        HandlerCase(name: "user info", returnURL: seed, url: "examplescheme://merchant@braintree/connected?merchant_id=M1", event: nil),
        HandlerCase(name: "wrong path", returnURL: seed, url: "\(seed)/done?merchant_id=M1", event: nil),
        HandlerCase(name: "path prefix", returnURL: seed, url: "\(seed)/connectedx?merchant_id=M1", event: nil),
        HandlerCase(name: "sub-path", returnURL: seed, url: "\(seed)/connected/more?merchant_id=M1", event: nil),
        HandlerCase(name: "path in capitals", returnURL: seed, url: "\(seed)/CONNECTED?merchant_id=M1", event: nil),
        HandlerCase(name: "bare return URL", returnURL: seed, url: "\(seed)?merchant_id=M1", event: nil),
        HandlerCase(name: "missing merchant_id", returnURL: seed, url: "\(seed)/connected", event: nil),
        HandlerCase(name: "empty merchant_id", returnURL: seed, url: "\(seed)/connected?merchant_id=", event: nil),
        HandlerCase(name: "repeated merchant_id", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&merchant_id=M2", event: nil),
        HandlerCase(name: "extra access_token", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&access_token=AT", event: nil),
        HandlerCase(name: "extra code", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&code=C", event: nil),
        HandlerCase(name: "extra client_secret", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&client_secret=S", event: nil),
        HandlerCase(name: "extra refreshToken", returnURL: seed, url: "\(seed)/connected?merchant_id=M1&refreshToken=R", event: nil),
        HandlerCase(name: "token in the fragment", returnURL: seed, url: "\(seed)/connected?merchant_id=M1#access_token=AT", event: nil),
        HandlerCase(name: "failed without error", returnURL: seed, url: "\(seed)/failed", event: nil),
        HandlerCase(name: "failed with an empty error", returnURL: seed, url: "\(seed)/failed?error=", event: nil),
        HandlerCase(name: "failed carrying a token", returnURL: seed, url: "\(seed)/failed?error=x&access_token=AT", event: nil),
        HandlerCase(name: "reverse-domain with a host", returnURL: reverse, url: "com.example.merchantapp://braintree/connected?merchant_id=M", event: nil),
        HandlerCase(name: "reverse-domain, seed scheme", returnURL: reverse, url: "examplescheme:/braintree/connected?merchant_id=M", event: nil),
        HandlerCase(name: "seed form, reverse-domain URL", returnURL: seed, url: "examplescheme:/braintree/connected?merchant_id=M", event: nil),
    ])
    func handler(_ testCase: HandlerCase) async throws {
        let fixture = try BraintreeWorld(returnURL: testCase.returnURL)
        try await fixture.connect.connect()
        let url = try #require(URL(string: testCase.url))

        let handled = await fixture.connect.handleOpenURL(url)
        #expect(handled == (testCase.event != nil))
        if let event = testCase.event {
            #expect(fixture.events.values == [event])
            #expect(fixture.browser.dismissCount == 1)
        } else {
            #expect(fixture.events.values.isEmpty)
            #expect(fixture.browser.dismissCount == 0)
            // Nothing changed: the connect still waits, and the real return is accepted.
            #expect(await fixture.connect.handleOpenURL(try await fixture.merchantAuthorizes()))
            #expect(fixture.events.values == [.connected(merchantID: BraintreeWorld.merchantID)])
        }
    }

    @Test("no connect in progress: a perfect URL is ignored")
    func noConnect() async throws {
        let fixture = try BraintreeWorld()
        let authorized = try await fixture.foreignReturn()
        #expect(authorized.absoluteString == Self.seedReturn + "/connected?merchant_id=" + BraintreeWorld.merchantID)
        #expect(await !fixture.connect.handleOpenURL(authorized))
        let declined = try #require(URL(string: Self.seedReturn + "/failed?error=access_denied"))
        #expect(await !fixture.connect.handleOpenURL(declined))
        #expect(fixture.events.values.isEmpty)
        #expect(fixture.browser.dismissCount == 0)
        #expect(fixture.tap.requests.isEmpty)
    }

    @Test("the same URL delivered twice at once is handled once")
    func concurrentDuplicates() async throws {
        let fixture = try BraintreeWorld()
        try await fixture.connect.connect()
        let back = try await fixture.merchantAuthorizes()
        let connect = fixture.connect
        let first = Task { await connect.handleOpenURL(back) }
        let second = Task { await connect.handleOpenURL(back) }
        let results = [
            try await boundedValue(of: first, waitingFor: "the first handleOpenURL of a duplicate"),
            try await boundedValue(of: second, waitingFor: "the second handleOpenURL of a duplicate"),
        ]
        #expect(results.filter { $0 }.count == 1)
        #expect(fixture.events.values.count == 1)
        #expect(fixture.browser.dismissCount == 1)
    }

    @Test("a browser that cannot open the page: .authorization, and the connect is over")
    func browserFailure() async throws {
        let fixture = try BraintreeWorld()
        fixture.browser.fail(with: RecordingUserAgent.Refused())
        #expect(await oauthError { try await fixture.connect.connect() }?.code == .authorization)
        // The merchant approves on the page the SDK tried to open; the app no longer listens.
        #expect(await !fixture.connect.handleOpenURL(try await fixture.merchantAuthorizes()))
        #expect(fixture.events.values.isEmpty)
    }

    @Test("a second connect replaces the first: one return, one event")
    func secondConnect() async throws {
        let fixture = try BraintreeWorld()
        try await fixture.connect.connect()
        try await fixture.connect.connect()
        #expect(fixture.browser.openedURLs.count == 2)
        let back = try await fixture.merchantAuthorizes()
        #expect(await fixture.connect.handleOpenURL(back))
        #expect(await !fixture.connect.handleOpenURL(back))
        #expect(fixture.events.values.count == 1)
    }

    struct NameCase: CustomTestStringConvertible, Sendable {
        let name: String
        let credentialLike: Bool
        var testDescription: String { name }
    }

    @Test("credential-like parameter names", arguments: [
        NameCase(name: "access_token", credentialLike: true),
        NameCase(name: "refresh_token", credentialLike: true),
        NameCase(name: "id_token", credentialLike: true),
        NameCase(name: "accessToken", credentialLike: true),
        NameCase(name: "ACCESS-TOKEN", credentialLike: true),
        NameCase(name: "client_secret", credentialLike: true),
        NameCase(name: "password", credentialLike: true),
        NameCase(name: "code", credentialLike: true),
        NameCase(name: "authCode", credentialLike: true),
        NameCase(name: "code_verifier", credentialLike: true),
        NameCase(name: "merchant_id", credentialLike: false),
        NameCase(name: "error", credentialLike: false),
        NameCase(name: "error_description", credentialLike: false),
        NameCase(name: "state", credentialLike: false),
        NameCase(name: "scope", credentialLike: false),
    ])
    func credentialLike(_ testCase: NameCase) {
        #expect(BraintreeReturnURL.isCredentialLike(testCase.name) == testCase.credentialLike)
    }
}
