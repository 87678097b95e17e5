import Foundation
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-API-3: environments resolve to their own hosts; a non-loopback `http://` base is refused.
@Suite("Clover configuration and environments", .timeLimit(.minutes(5)))
struct CloverConfigurationTests {
    @Test("sandbox and production resolve to Clover's hosts; custom to its own")
    func environmentHosts() throws {
        #expect(CloverEnvironment.sandbox.webBaseURL.absoluteString == "https://sandbox.dev.clover.com")
        #expect(CloverEnvironment.sandbox.apiBaseURL.absoluteString == "https://apisandbox.dev.clover.com")
        #expect(CloverEnvironment.production.webBaseURL.absoluteString == "https://www.clover.com")
        #expect(CloverEnvironment.production.apiBaseURL.absoluteString == "https://api.clover.com")
        let custom = CloverEnvironment.custom(web: StubClover.webBase, api: StubClover.apiBase)
        #expect(custom.webBaseURL == StubClover.webBase)
        #expect(custom.apiBaseURL == StubClover.apiBase)
        #expect(CloverEnvironment.sandbox != .production)
        for environment in [CloverEnvironment.sandbox, .production, custom] {
            #expect(throws: Never.self) { try configuration(environment) }
        }
    }

    @Test("the authorize URL goes to the environment's web host", arguments: [CloverEnvironment.sandbox, .production])
    func authorizeHost(_ environment: CloverEnvironment) async throws {
        let browser = RecordingUserAgent()
        let clock = ManualClock()
        let sdk = CloverPaymentSDK(store: InMemoryTokenStore(), transport: StubClover(clock: clock), userAgent: browser, clock: clock)
        #expect(try await sdk.setup(configuration: try configuration(environment)) == .loginStarted)
        let url = try #require(browser.openedURLs.first)
        #expect(url.absoluteString.hasPrefix(environment.webBaseURL.absoluteString + "/oauth/v2/authorize?client_id="))
    }

    struct BaseCase: CustomTestStringConvertible, Sendable {
        let web: String
        let api: String
        let accepted: Bool
        var testDescription: String { "web \(web), api \(api)" }
    }

    @Test("HTTPS anywhere, plain HTTP only to loopback", arguments: [
        BaseCase(web: "http://example.com", api: "https://api.example.com", accepted: false),
        BaseCase(web: "https://example.com", api: "http://example.com", accepted: false),
        BaseCase(web: "http://10.0.0.2:8080", api: "http://10.0.0.2:8081", accepted: false),
        BaseCase(web: "ftp://127.0.0.1", api: "http://127.0.0.1", accepted: false),
        BaseCase(web: "https://example.com", api: "https://api.example.com", accepted: true),
        BaseCase(web: "http://127.0.0.1:9001", api: "http://127.0.0.1:9002", accepted: true),
        BaseCase(web: "http://localhost:9001", api: "http://[::1]:9002", accepted: true),
    ])
    func basePolicy(_ testCase: BaseCase) throws {
        let environment = CloverEnvironment.custom(web: URL(string: testCase.web)!, api: URL(string: testCase.api)!)
        if testCase.accepted {
            #expect(throws: Never.self) { try configuration(environment) }
        } else {
            let error = #expect(throws: OAuthError.self) { try configuration(environment) }
            #expect(error?.code == .configuration)
        }
    }

    @Test("an empty app ID or a relative redirect URI is refused")
    func otherRefusals() {
        let environment = CloverEnvironment.custom(web: StubClover.webBase, api: StubClover.apiBase)
        let emptyID = #expect(throws: OAuthError.self) {
            try CloverConfiguration(environment: environment, appID: "", appSecret: "s", apiKey: "k", apiSecret: "t",
                                    oauthFlowType: FullOAuth(redirectURI: StubClover.redirectURI))
        }
        #expect(emptyID?.code == .configuration)
        for redirect in ["", "callback", "/clover/callback"] {
            let error = #expect(throws: OAuthError.self) {
                try configuration(environment, flow: FullOAuth(redirectURI: redirect))
            }
            #expect(error?.code == .configuration)
        }
        #expect(throws: Never.self) { try configuration(environment, flow: FullOAuth(redirectURI: "cloverapp://oauth/callback")) }
    }

    @Test("descriptions hold no secret")
    func redacted() throws {
        let configuration = try CloverConfiguration(
            environment: .sandbox, appID: StubClover.appID, appSecret: StubClover.appSecret,
            apiKey: StubClover.apiKey, apiSecret: StubClover.apiSecret,
            oauthFlowType: NoOAuth(token: "no-oauth-token-secret", merchantID: "M1")
        )
        let response = OAuthCodeResponse(code: "the-code-secret", codeVerifier: "the-verifier-secret", merchantID: "M1")
        let session = CloverStoredSession(accessToken: "access-secret", accessTokenExpiration: Date(timeIntervalSince1970: 10),
                                          refreshToken: "refresh-secret", merchantID: "M1")
        let texts = [
            configuration.description, String(reflecting: configuration), dumped(configuration),
            response.description, String(reflecting: response), dumped(response),
            String(describing: PartialOAuth(codeResponse: response)),
            session.description, String(reflecting: session), dumped(session),
        ]
        for text in texts {
            for secret in [StubClover.appSecret, StubClover.apiKey, StubClover.apiSecret, "no-oauth-token-secret",
                           "the-code-secret", "the-verifier-secret", "access-secret", "refresh-secret"] {
                #expect(!text.contains(secret), "\(text)")
            }
            #expect(text.contains("M1") || text.contains(StubClover.appID))
        }
    }

    private func configuration(_ environment: CloverEnvironment, flow: any OAuthFlowType = FullOAuth(redirectURI: StubClover.redirectURI)) throws -> CloverConfiguration {
        try CloverConfiguration(environment: environment, appID: StubClover.appID, appSecret: StubClover.appSecret,
                                apiKey: StubClover.apiKey, apiSecret: StubClover.apiSecret, oauthFlowType: flow)
    }
}
