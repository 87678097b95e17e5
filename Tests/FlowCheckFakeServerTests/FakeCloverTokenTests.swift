import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// The Clover API host's OAuth endpoints: code exchange with PKCE, and refresh rotation.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCloverTokenTests {
    let env = CloverRig()

    // MARK: - Code exchange

    @Test func exchangeIssuesAPairWithUnixExpirations() throws {
        let code = try env.code()
        let response = env.token(code: code)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Pragma"] == "no-cache")
        guard case .object(let fields)? = response.jsonBody else {
            Issue.record("not a JSON object: \(response.bodyText)")
            return
        }
        #expect(Set(fields.keys) == ["access_token", "access_token_expiration", "refresh_token", "refresh_token_expiration"])
        #expect(fields["access_token_expiration"] == .number(String(env.nowSeconds + 1800)))
        #expect(fields["refresh_token_expiration"] == .number(String(env.nowSeconds + 2_592_000)))
        let pair = try env.pair(response)
        #expect(pair.access != pair.refresh)
        #expect(env.clover.issuedSecrets == [code, pair.access, pair.refresh])
        #expect(env.world.issuedSecrets == env.clover.issuedSecrets)
        #expect(env.merchant("M1", token: pair.access).status == 200)
    }

    @Test func lifetimesComeFromTheFixture() throws {
        var fixture = CloverRig.fixture
        fixture.accessTokenLifetime = 60
        fixture.refreshTokenLifetime = 120
        let short = CloverRig(fixture: fixture)
        let response = short.token(code: try short.code())
        #expect(response.jsonFields()?["access_token_expiration"] == String(short.nowSeconds + 60))
        #expect(response.jsonFields()?["refresh_token_expiration"] == String(short.nowSeconds + 120))
    }

    @Test func expirationsAreWholeSecondsRoundedDown() throws {
        let start = env.nowSeconds
        env.clock.advance(by: 0.75)
        let response = env.token(code: try env.code())
        #expect(response.jsonFields()?["access_token_expiration"] == String(start + 1800))
    }

    /// DECISION under test: a replayed code is refused, the tokens it bought stay valid.
    @Test func codeIsSingleUse() throws {
        let code = try env.code()
        let first = try env.pair(env.token(code: code))
        let second = env.token(code: code)
        #expect(second.status == 400)
        #expect(CloverRig.oauthError(second).code == "invalid_grant")
        #expect(env.merchant("M1", token: first.access).status == 200)
        #expect(env.refresh(refreshToken: first.refresh).status == 200)
    }

    @Test(arguments: [(299.0, 200), (299.999, 200), (300.0, 400), (86_400.0, 400)])
    func codeExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let code = try env.code()
        env.clock.advance(by: seconds)
        let response = env.token(code: code)
        #expect(response.status == status)
        if status == 400 {
            #expect(CloverRig.oauthError(response).code == "invalid_grant")
        }
    }

    @Test func wrongVerifierIsRefusedAndSpendsTheCode() throws {
        let code = try env.code()
        let other = String(repeating: "x", count: 43)
        let response = env.token(code: code, verifier: other)
        #expect(response.status == 400)
        #expect(CloverRig.oauthError(response).code == "invalid_grant")
        #expect(CloverRig.oauthError(response).description == "code_verifier does not match the code_challenge")
        let retry = env.token(code: code)
        #expect(retry.status == 400, "no second try after a failed verification")
        #expect(CloverRig.oauthError(retry).code == "invalid_grant")
        #expect(env.clover.issuedSecrets == [code])
    }

    static let malformedVerifiers: [(String, String)] = {
        let short: String = String(CloverRig.verifier.dropLast())
        return [
            ("42 characters", short),
            ("129 characters", String(repeating: "a", count: 129)),
            ("plus sign", short + "+"),
            ("space", short + " "),
            ("non-ASCII", short + "é"),
            ("empty", ""),
        ]
    }()

    @Test(arguments: malformedVerifiers)
    func malformedVerifierIsInvalidGrant(name: String, verifier: String) throws {
        let response = env.token(code: try env.code(), verifier: verifier)
        #expect(response.status == 400)
        #expect(CloverRig.oauthError(response).code == "invalid_grant")
        #expect(CloverRig.oauthError(response).description == "code_verifier does not match the code_challenge")
    }

    /// "plain" smuggled through S256: the challenge is the verifier itself, so the S256 check
    /// must fail.
    @Test func plainChallengeUnderS256DoesNotVerify() throws {
        let code = try env.code(parameters: CloverRig.authorizeParameters(challenge: CloverRig.verifier))
        let response = env.token(code: code, verifier: CloverRig.verifier)
        #expect(CloverRig.oauthError(response).code == "invalid_grant")
    }

    @Test(arguments: [43, 64, 128])
    func verifiersOfEveryAllowedLengthWork(length: Int) throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let verifier = String((0..<length).map { alphabet[$0 % alphabet.count] })
        let challenge = FakeCrypto.s256Challenge(for: verifier)
        let code = try env.code(parameters: CloverRig.authorizeParameters(challenge: challenge))
        #expect(env.token(code: code, verifier: verifier).status == 200)
    }

    /// DECISION under test: a PKCE client must never send the app secret, whatever its value.
    @Test(arguments: [CloverRig.app.secret, ""])
    func clientSecretIsRefused(secret: String) throws {
        let code = try env.code()
        let response = env.postJSON("/oauth/v2/token", [
            "client_id": CloverRig.app.id, "code": code, "code_verifier": CloverRig.verifier, "client_secret": secret,
        ])
        #expect(response.status == 400)
        #expect(CloverRig.oauthError(response).code == "invalid_request")
        #expect(CloverRig.oauthError(response).description == "FlowCheck policy: client_secret must not be sent by a PKCE (low-trust) client")
        #expect(env.token(code: code).status == 200, "a refused request does not spend the code")
    }

    @Test(arguments: [
        ("no Content-Type", #"{"client_id":"app-1","code":"c","code_verifier":"v"}"#, nil),
        ("form Content-Type", #"{"client_id":"app-1","code":"c","code_verifier":"v"}"#, "application/x-www-form-urlencoded"),
        ("text Content-Type", #"{"client_id":"app-1","code":"c","code_verifier":"v"}"#, "text/plain"),
        ("form body", "client_id=app-1&code=c&code_verifier=v", "application/json"),
        ("array", #"["app-1"]"#, "application/json"),
        ("empty body", "", "application/json"),
        ("missing client_id", #"{"code":"c","code_verifier":"v"}"#, "application/json"),
        ("missing code", #"{"client_id":"app-1","code_verifier":"v"}"#, "application/json"),
        ("missing code_verifier", #"{"client_id":"app-1","code":"c"}"#, "application/json"),
        ("numeric code", #"{"client_id":"app-1","code":12,"code_verifier":"v"}"#, "application/json"),
        ("null verifier", #"{"client_id":"app-1","code":"c","code_verifier":null}"#, "application/json"),
    ] as [(String, String, String?)])
    func badTokenRequestsAreInvalidRequest(name: String, body: String, contentType: String?) {
        let response = env.postJSON("/oauth/v2/token", body, contentType: contentType)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(CloverRig.oauthError(response).code == "invalid_request")
        #expect(CloverRig.oauthError(response).description?.isEmpty == false)
    }

    @Test func jsonWithCharsetIsAccepted() throws {
        let code = try env.code()
        let body = FakeJSON(any: ["client_id": "app-1", "code": code, "code_verifier": CloverRig.verifier]).compactText
        #expect(env.postJSON("/oauth/v2/token", body, contentType: "Application/JSON; charset=utf-8").status == 200)
    }

    @Test func unknownClientIsInvalidClient() throws {
        let code = try env.code()
        let response = env.token(clientID: "nope", code: code)
        #expect(response.status == 401)
        #expect(CloverRig.oauthError(response).code == "invalid_client")
        #expect(env.token(code: code).status == 200)
    }

    @Test func codeOfAnotherClientIsRefusedWithoutSpendingIt() throws {
        let code = try env.code()
        let response = env.token(clientID: CloverRig.otherApp.id, code: code)
        #expect(response.status == 400)
        #expect(CloverRig.oauthError(response).code == "invalid_grant")
        #expect(env.token(code: code).status == 200)
    }

    @Test(arguments: ["", "0123456789abcdef0123456789abcdef"])
    func unknownCodeIsInvalidGrant(code: String) {
        #expect(CloverRig.oauthError(env.token(code: code)).code == "invalid_grant")
    }

    @Test func redirectURIIsCheckedWhenSent() throws {
        let code = try env.code()
        let wrong = env.postJSON("/oauth/v2/token", [
            "client_id": "app-1", "code": code, "code_verifier": CloverRig.verifier, "redirect_uri": CloverRig.site + "/other",
        ])
        #expect(CloverRig.oauthError(wrong).code == "invalid_grant")

        let second = try env.code()
        let right = env.postJSON("/oauth/v2/token", [
            "client_id": "app-1", "code": second, "code_verifier": CloverRig.verifier, "redirect_uri": CloverRig.redirect,
        ])
        #expect(right.status == 200)
    }

    // MARK: - Refresh

    @Test func refreshRotatesThePair() throws {
        let first = try env.loggedIn()
        env.clock.advance(by: 1000)
        let response = env.refresh(refreshToken: first.refresh)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.jsonFields()?["access_token_expiration"] == String(env.nowSeconds + 1800))
        #expect(response.jsonFields()?["refresh_token_expiration"] == String(env.nowSeconds + 2_592_000))
        let second = try env.pair(response)
        #expect(second.access != first.access && second.refresh != first.refresh)

        let replay = env.refresh(refreshToken: first.refresh)
        #expect(replay.status == 400)
        #expect(CloverRig.oauthError(replay).code == "invalid_grant")

        #expect(env.merchant("M1", token: second.access).status == 200)
        // DECISION: the previous access token lives until its own expiry.
        #expect(env.merchant("M1", token: first.access).status == 200)
        env.clock.advance(by: 800)
        #expect(env.merchant("M1", token: first.access).status == 401)
        #expect(env.merchant("M1", token: second.access).status == 200)

        let third = try env.pair(env.refresh(refreshToken: second.refresh))
        #expect(env.merchant("M1", token: third.access).status == 200)
        #expect(env.clover.issuedSecrets.count == 1 + 2 * 3)
    }

    @Test func refreshWorksAfterTheAccessTokenExpired() throws {
        let first = try env.loggedIn()
        env.clock.advance(by: 31 * 60)
        #expect(env.merchant("M1", token: first.access).status == 401)
        let second = try env.pair(env.refresh(refreshToken: first.refresh))
        #expect(env.merchant("M1", token: second.access).status == 200)
    }

    @Test(arguments: [(2_591_999.0, 200), (2_592_000.0, 400)])
    func refreshTokenExpiresOnTheVirtualClock(after seconds: TimeInterval, status: Int) throws {
        let pair = try env.loggedIn()
        env.clock.advance(by: seconds)
        let response = env.refresh(refreshToken: pair.refresh)
        #expect(response.status == status)
        if status == 400 {
            #expect(CloverRig.oauthError(response).code == "invalid_grant")
        }
    }

    @Test func refreshByAnotherClientIsRefusedWithoutSpendingIt() throws {
        let pair = try env.loggedIn()
        let response = env.refresh(clientID: CloverRig.otherApp.id, refreshToken: pair.refresh)
        #expect(CloverRig.oauthError(response).code == "invalid_grant")
        #expect(env.refresh(refreshToken: pair.refresh).status == 200)
    }

    @Test func accessTokenIsNoRefreshToken() throws {
        let pair = try env.loggedIn()
        #expect(CloverRig.oauthError(env.refresh(refreshToken: pair.access)).code == "invalid_grant")
        #expect(CloverRig.oauthError(env.refresh(refreshToken: "")).code == "invalid_grant")
    }

    @Test func refreshRefusesSecretsUnknownClientsAndBadBodies() throws {
        let pair = try env.loggedIn()
        let withSecret = env.postJSON("/oauth/v2/refresh", [
            "client_id": "app-1", "refresh_token": pair.refresh, "client_secret": CloverRig.app.secret,
        ])
        #expect(withSecret.status == 400)
        #expect(CloverRig.oauthError(withSecret).code == "invalid_request")
        let unknown = env.refresh(clientID: "nope", refreshToken: pair.refresh)
        #expect(unknown.status == 401)
        #expect(CloverRig.oauthError(unknown).code == "invalid_client")
        let missing = env.postJSON("/oauth/v2/refresh", ["client_id": "app-1"])
        #expect(CloverRig.oauthError(missing).code == "invalid_request")
        let form = env.postJSON("/oauth/v2/refresh", "client_id=app-1&refresh_token=\(pair.refresh)", contentType: "application/x-www-form-urlencoded")
        #expect(CloverRig.oauthError(form).code == "invalid_request")
        #expect(env.refresh(refreshToken: pair.refresh).status == 200, "none of those spent the token")
    }

    // MARK: - Revocation

    @Test func revokeAllTokensKillsAccessAndRefreshTokens() throws {
        let alice = try env.loggedIn()
        let bob = try env.pair(env.token(code: env.code(email: "bob@example.com", password: "pw-bob")))
        let unspent = try env.code()
        env.clover.revokeAllTokens()
        #expect(env.merchant("M1", token: alice.access).status == 401)
        #expect(env.merchant("M2", token: bob.access).status == 401)
        #expect(CloverRig.oauthError(env.refresh(refreshToken: alice.refresh)).code == "invalid_grant")
        #expect(CloverRig.oauthError(env.refresh(refreshToken: bob.refresh)).code == "invalid_grant")
        let fresh = try env.pair(env.token(code: unspent))
        #expect(env.merchant("M1", token: fresh.access).status == 200)
        #expect(env.refresh(refreshToken: fresh.refresh).status == 200)
    }
}
