import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// CLV-API-3: environments resolve to their own hosts; a non-loopback `http://` base is refused.
@Suite("Clover configuration and environments", .fast, .timeLimit(.minutes(20)))
struct CloverConfigurationTests {
    /// A custom environment with distinct web and API hosts (the fake serves both on one).
    static let webBase = URL(string: "http://127.0.0.1:9001")!
    static let apiBase = URL(string: "http://127.0.0.1:9002")!

    @Test("sandbox and production resolve to Clover's hosts; custom to its own")
    func environmentHosts() throws {
        #expect(CloverEnvironment.sandbox.webBaseURL.absoluteString == "https://sandbox.dev.clover.com")
        #expect(CloverEnvironment.sandbox.apiBaseURL.absoluteString == "https://apisandbox.dev.clover.com")
        #expect(CloverEnvironment.production.webBaseURL.absoluteString == "https://www.clover.com")
        #expect(CloverEnvironment.production.apiBaseURL.absoluteString == "https://api.clover.com")
        let custom = CloverEnvironment.custom(web: Self.webBase, api: Self.apiBase)
        #expect(custom.webBaseURL == Self.webBase)
        #expect(custom.apiBaseURL == Self.apiBase)
        #expect(CloverEnvironment.sandbox != .production)
        for environment in [CloverEnvironment.sandbox, .production, custom] {
            #expect(throws: Never.self) { try configuration(environment) }
        }
    }

    @Test("the authorize URL goes to the environment's web host", arguments: [CloverEnvironment.sandbox, .production])
    func authorizeHost(_ environment: CloverEnvironment) async throws {
        let world = try CloverWorld()
        #expect(try await world.sdk.setup(configuration: try configuration(environment)) == .loginStarted)
        #expect(world.tap.requests.isEmpty)
        let url = try #require(world.browser.openedURLs.first)
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
        let environment = CloverEnvironment.custom(web: Self.webBase, api: Self.apiBase)
        let emptyID = #expect(throws: OAuthError.self) {
            try CloverConfiguration(environment: environment, appID: "", appSecret: "s", apiKey: "k", apiSecret: "t",
                                    oauthFlowType: FullOAuth(redirectURI: CloverWorld.redirectURI))
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
            environment: .sandbox, appID: CloverWorld.appID, appSecret: CloverWorld.appSecret,
            apiKey: CloverWorld.apiKey, apiSecret: CloverWorld.apiSecret,
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
            for secret in [CloverWorld.appSecret, CloverWorld.apiKey, CloverWorld.apiSecret, "no-oauth-token-secret",
                           "the-code-secret", "the-verifier-secret", "access-secret", "refresh-secret"] {
                #expect(!text.contains(secret), "\(text)")
            }
            #expect(text.contains("M1") || text.contains(CloverWorld.appID))
        }
    }

    private func configuration(_ environment: CloverEnvironment, flow: any OAuthFlowType = FullOAuth(redirectURI: CloverWorld.redirectURI)) throws -> CloverConfiguration {
        try CloverConfiguration(environment: environment, appID: CloverWorld.appID, appSecret: CloverWorld.appSecret,
                                apiKey: CloverWorld.apiKey, apiSecret: CloverWorld.apiSecret, oauthFlowType: flow)
    }
}
