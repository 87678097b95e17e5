import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// The merchant backend of the Braintree fake: the connect URL, the secret guard and the
/// callback that finishes the connection server-side, with no sockets.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeBraintreeBackendTests {
    let env = BraintreeRig()

    // MARK: - GET /backend/connect-url

    @Test(arguments: ["127.0.0.1:8080", "localhost:9", "[::1]:4000"])
    func connectURLIsBuiltFromTheHostHeader(host: String) throws {
        let response = env.get("/backend/connect-url", host: host)
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let url = try #require(response.jsonFields()?["connectURL"])
        let callback = "http%3A%2F%2F" + host.replacingOccurrences(of: ":", with: "%3A")
            .replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D")
            + "%2Fbackend%2Fbraintree%2Fcallback"
        let prefix = "http://\(host)/braintree/oauth/connect?client_id=client_id%24sandbox%24abc&redirect_uri=\(callback)"
            + "&scope=read_write&state="
        #expect(url.hasPrefix(prefix), "\(url)")
        let state = String(url.dropFirst(prefix.count))
        #expect(state.count == 32 && state.allSatisfy(\.isHexDigit), "128 random bits")
        #expect(!response.bodyText.contains(BraintreeRig.secret))
        #expect(env.braintree.issuedSecrets.isEmpty, "states are not secrets")
    }

    @Test func eachConnectURLHasItsOwnState() throws {
        let first = try BraintreeRig.state(in: env.connectURL())
        let second = try BraintreeRig.state(in: env.connectURL())
        #expect(first != second)
    }

    @Test(arguments: [nil, "", "evil.example/x?y=", "a b", "host\"quote"] as [String?])
    func connectURLNeedsAUsableHost(host: String?) {
        let response = env.get("/backend/connect-url", host: host)
        #expect(response.status == 400)
        #expect(response.jsonFields()?["connectURL"] == nil)
    }

    @Test func backendConnectURLsAreHandedOutInOrderThenItsOwn() throws {
        var fixture = BraintreeRig.fixture
        fixture.backendConnectURLs = ["http://connect.example.com/braintree/oauth/connect", "examplescheme://braintree/connected?merchant_id=M1"]
        let env = BraintreeRig(fixture: fixture)
        #expect(try env.connectURL() == "http://connect.example.com/braintree/oauth/connect")
        #expect(try env.connectURL() == "examplescheme://braintree/connected?merchant_id=M1")
        let own = try env.connectURL()
        #expect(own.hasPrefix("http://127.0.0.1:8080/braintree/oauth/connect?"), "\(own)")
        #expect(try BraintreeRig.state(in: own).count == 32)
    }

    // MARK: - The secret guard

    struct SecretCase: Sendable, CustomTestStringConvertible {
        var name: String
        var query: String = ""
        var headers: [(String, String)] = []
        var body: String = ""
        var testDescription: String { name }
    }

    static let secretCases: [SecretCase] = [
        SecretCase(name: "query parameter, any value", query: "?client_secret=x"),
        SecretCase(name: "query parameter, empty", query: "?client_secret="),
        SecretCase(name: "secret as another parameter's value", query: "?s=client_secret%24sandbox%24s3cr3t"),
        SecretCase(name: "secret raw in the target", query: "?s=client_secret$sandbox$s3cr3t"),
        SecretCase(name: "header client_secret", headers: [("client_secret", "x")]),
        SecretCase(name: "header X-Client-Secret", headers: [("X-Client-Secret", "x")]),
        SecretCase(name: "secret in a custom header's value", headers: [("X-Token", "client_secret$sandbox$s3cr3t")]),
        SecretCase(
            name: "Basic id:secret", headers: [("Authorization", BraintreeRig.backendAuthorization)]
        ),
        SecretCase(
            name: "Basic with the raw secret", headers: [("Authorization", BraintreeRig.basic("a:client_secret$sandbox$s3cr3t"))]
        ),
        SecretCase(name: "form field", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "client_secret=x"),
        SecretCase(
            name: "form-encoded secret value", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "s=client_secret%24sandbox%24s3cr3t"
        ),
        SecretCase(name: "JSON key", headers: [("Content-Type", "application/json")], body: #"{"client_secret":""}"#),
        SecretCase(name: "secret in a JSON value", headers: [("Content-Type", "application/json")], body: #"{"s":"client_secret$sandbox$s3cr3t"}"#),
    ]

    @Test(arguments: secretCases, ["/backend/connect-url", "/backend/braintree/callback", "/backend/other"])
    func backendRefusesAnyRequestCarryingTheSecret(_ row: SecretCase, path: String) {
        var headers = HTTPHeaders(row.headers)
        headers.add("Host", BraintreeRig.host)
        let response = env.send(HTTPRequest(method: "GET", target: path + row.query, headers: headers, body: Data(row.body.utf8)))
        #expect(response.status == 400)
        #expect(response.bodyText == #"{"error":"FlowCheck policy: the client secret belongs on the server"}"#)
    }

    /// DECISION under test: a secret under 8 characters is matched by name only, so it cannot
    /// be found by chance inside a random state or code.
    @Test func shortSecretIsMatchedByNameOnly() throws {
        var fixture = BraintreeRig.fixture
        fixture.clientSecret = "abc"
        let env = BraintreeRig(fixture: fixture)
        #expect(env.get("/backend/connect-url?x=abc").status == 200)
        #expect(env.get("/backend/connect-url?client_secret=abc").status == 400)
    }

    // MARK: - GET /backend/braintree/callback

    @Test func approvalEndsWithAConnectedRedirectCarryingOnlyTheMerchantID() throws {
        let redirect = try env.authorize()
        let code = try BraintreeRig.code(in: redirect)
        let back = try env.follow(redirect)
        #expect(back.status == 302)
        #expect(back.headers["Location"] == "examplescheme://braintree/connected?merchant_id=M1")
        #expect(back.headers["Cache-Control"] == "no-store")
        let token = try #require(env.braintree.backendTokens["M1"])
        #expect(env.braintree.backendTokens.count == 1)
        #expect(env.braintree.isTokenValid(token))
        let secrets = env.braintree.issuedSecrets
        #expect(secrets.count == 3 && secrets.first == code && secrets.contains(token))
        for secret in secrets + [BraintreeRig.secret] {
            #expect(!back.bodyText.contains(secret) && !(back.headers["Location"] ?? "").contains(secret))
        }
        // The device saw four exchanges; the backend's token call never crossed its connection.
        #expect(env.world.exchanges.map(\.request.path) == [
            "/backend/connect-url", "/braintree/oauth/connect", "/braintree/oauth/login", "/backend/braintree/callback",
        ])
        for exchange in env.world.exchanges {
            #expect(!exchange.response.bodyText.contains(token))
            #expect(!(exchange.response.headers["Location"] ?? "").contains(token))
        }
    }

    @Test func merchantIDIsEncodedInTheReturnURL() throws {
        let back = try env.connect(email: "odd@example.com", password: "pw-odd")
        #expect(back.headers["Location"] == "examplescheme://braintree/connected?merchant_id=M%202%26x")
        #expect(env.braintree.backendTokens["M 2&x"] != nil)
    }

    struct ReturnCase: Sendable, CustomTestStringConvertible {
        var returnURL: String
        var connected: String
        var failed: String
        var testDescription: String { returnURL }
    }

    static let returnCases: [ReturnCase] = [
        ReturnCase(
            returnURL: "examplescheme://braintree",
            connected: "examplescheme://braintree/connected?merchant_id=M1",
            failed: "examplescheme://braintree/failed?error=access_denied"
        ),
        ReturnCase(
            returnURL: "examplescheme://braintree/",
            connected: "examplescheme://braintree/connected?merchant_id=M1",
            failed: "examplescheme://braintree/failed?error=access_denied"
        ),
        ReturnCase(
            returnURL: "com.example.merchantapp:/braintree",
            connected: "com.example.merchantapp:/braintree/connected?merchant_id=M1",
            failed: "com.example.merchantapp:/braintree/failed?error=access_denied"
        ),
    ]

    @Test(arguments: returnCases)
    func returnURLForms(_ row: ReturnCase) throws {
        var fixture = BraintreeRig.fixture
        fixture.returnURL = row.returnURL
        let env = BraintreeRig(fixture: fixture)
        #expect(try env.connect().headers["Location"] == row.connected)
        #expect(try env.connect(action: "deny").headers["Location"] == row.failed)
    }

    @Test func declineEndsWithAFailedRedirectAndNothingConnected() throws {
        let redirect = try env.authorize(action: "deny")
        let back = try env.follow(redirect)
        #expect(back.status == 302)
        #expect(back.headers["Location"] == "examplescheme://braintree/failed?error=access_denied")
        #expect(env.braintree.backendTokens.isEmpty)
        #expect(env.braintree.issuedSecrets.isEmpty)
        #expect(try env.follow(redirect).status == 400, "the decline spent the state too")
    }

    @Test func stateIsSingleUse() throws {
        let redirect = try env.authorize()
        #expect(try env.follow(redirect).status == 302)
        let token = env.braintree.backendTokens["M1"]
        let replay = try env.follow(redirect)
        #expect(replay.status == 400)
        #expect(replay.bodyText.contains("unknown state"))
        #expect(replay.headers["Location"] == nil)
        #expect(env.braintree.backendTokens["M1"] == token)
        #expect(env.braintree.issuedSecrets.count == 3, "the replay bought nothing")
    }

    @Test(arguments: [
        "?code=abc&merchantId=M1",
        "?code=abc&merchantId=M1&state=",
        "?code=abc&merchantId=M1&state=0123456789abcdef0123456789abcdef",
        "?error=access_denied&state=nope",
    ])
    func unknownStateIsRefused(query: String) {
        let response = env.get("/backend/braintree/callback" + query)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.bodyText.contains("unknown state"))
        #expect(response.headers["Location"] == nil)
    }

    /// A state from the backend, but a callback crafted by hand around it.
    @Test(arguments: [
        ("&code=0123456789abcdef0123456789abcdef&merchantId=M1", "examplescheme://braintree/failed?error=invalid_grant"),
        ("&merchantId=M1", "examplescheme://braintree/failed?error=invalid_request"),
        ("&code=&merchantId=M1", "examplescheme://braintree/failed?error=invalid_request"),
        ("&error=server_error", "examplescheme://braintree/failed?error=server_error"),
        ("&error=a%20b%26c", "examplescheme://braintree/failed?error=a%20b%26c"),
    ])
    func callbacksThatCannotConnectFail(suffix: String, location: String) throws {
        let state = try BraintreeRig.state(in: env.connectURL())
        let response = env.get("/backend/braintree/callback?state=" + state + suffix)
        #expect(response.status == 302)
        #expect(response.headers["Location"] == location)
        #expect(env.braintree.backendTokens.isEmpty)
    }

    @Test func codeSpentElsewhereFailsTheConnection() throws {
        let redirect = try env.authorize()
        #expect(env.accessTokens(code: try BraintreeRig.code(in: redirect)).status == 200)
        let back = try env.follow(redirect)
        #expect(back.headers["Location"] == "examplescheme://braintree/failed?error=invalid_grant")
        #expect(env.braintree.backendTokens.isEmpty)
    }

    @Test(arguments: [(299.0, "connected?merchant_id=M1"), (300.0, "failed?error=invalid_grant")])
    func codeExpiresBeforeTheCallback(after seconds: TimeInterval, ending: String) throws {
        let redirect = try env.authorize()
        env.clock.advance(by: seconds)
        #expect(try env.follow(redirect).headers["Location"] == "examplescheme://braintree/" + ending)
    }

    @Test func merchantIDComesFromTheTokenNotTheQuery() throws {
        let redirect = try env.authorize()
        let location = try #require(redirect.headers["Location"]).replacingOccurrences(of: "merchantId=M1", with: "merchantId=EVIL")
        let back = env.get(try BraintreeRig.target(of: location))
        #expect(back.headers["Location"] == "examplescheme://braintree/connected?merchant_id=M1")
        #expect(env.braintree.backendTokens.keys.sorted() == ["M1"])
    }

    @Test func revokeAllTokensKillsWhatTheBackendHolds() throws {
        _ = try env.connect()
        let token = try #require(env.braintree.backendTokens["M1"])
        env.braintree.revokeAllTokens()
        #expect(!env.braintree.isTokenValid(token))
        _ = try env.connect()
        let fresh = try #require(env.braintree.backendTokens["M1"])
        #expect(fresh != token && env.braintree.isTokenValid(fresh))
    }

    // MARK: - Routing

    @Test(arguments: [
        ("POST", "/backend/connect-url", 405),
        ("POST", "/backend/braintree/callback", 405),
        ("POST", "/braintree/oauth/connect", 405),
        ("GET", "/braintree/oauth/login", 405),
        ("GET", "/braintree/oauth/access_tokens", 405),
        ("GET", "/backend/nothing", 404),
        ("GET", "/", 404),
    ])
    func unknownRoutesAndMethods(method: String, target: String, status: Int) {
        #expect(env.send(HTTPRequest(method: method, target: target, headers: ["Host": BraintreeRig.host])).status == status)
    }
}
