import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

/// The public URL policy the Clover and Braintree configurations take: the standard one is the
/// correct default, and a configuration really judges by the policy it is given.
@Suite(.fast, .timeLimit(.minutes(20)))
struct BaseURLPolicyTests {
    @Test(arguments: ["http://127.0.0.1.example.com", "http://localhost.example.com", "http://127.example.com", "http://example.com"])
    func theStandardPolicyRefusesClearTextToARemoteHost(_ text: String) throws {
        #expect(throws: OAuthError.self) { try BaseURLPolicy.standard.check(URL(string: text)!) }
    }

    @Test(arguments: ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "https://example.com"])
    func theStandardPolicyAcceptsLoopbackAndHTTPS(_ text: String) throws {
        try BaseURLPolicy.standard.check(URL(string: text)!)
    }

    @Test func cloverConfigurationJudgesByItsPolicy() throws {
        let lookalike = URL(string: "http://127.0.0.1.example.com")!
        let environment = CloverEnvironment.custom(web: lookalike, api: lookalike)
        let flow = FullOAuth(redirectURI: "https://example.com/oauth/callback")
        #expect(throws: OAuthError.self) {
            try CloverConfiguration(environment: environment, appID: "app", appSecret: "", apiKey: "", apiSecret: "", oauthFlowType: flow)
        }
        let byPrefix = BaseURLPolicy { $0.hasPrefix("127.") }
        _ = try CloverConfiguration(environment: environment, appID: "app", appSecret: "", apiKey: "", apiSecret: "", oauthFlowType: flow, baseURLPolicy: byPrefix)
    }

    @Test func braintreeConfigurationJudgesItsEndpointByItsPolicy() throws {
        let endpoint = URL(string: "http://backend.example.com/connect-url")!
        #expect(throws: OAuthError.self) { try BraintreeConnectConfiguration(connectURLEndpoint: endpoint, returnURL: "com.example.app:/braintree") }
        let configuration = try BraintreeConnectConfiguration(connectURLEndpoint: endpoint, returnURL: "com.example.app:/braintree", urlPolicy: BaseURLPolicy { _ in true })
        #expect(configuration.connectURLEndpoint == endpoint)
    }
}
