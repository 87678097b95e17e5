import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The connect configuration's refusals and the RFC 8252 §7.1 scheme check.
@Suite("Braintree connect configuration", .fast, .timeLimit(.minutes(20)))
struct BraintreeConnectConfigurationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let endpoint: String
        let returnURL: String
        let accepted: Bool
        let reverseDomain: Bool
        var testDescription: String { name }
    }

    @Test("accepts and refuses", arguments: [
        Case(name: "seed 002 scheme", endpoint: "https://merchant.example.com/connect-url", returnURL: "examplescheme://braintree", accepted: true, reverseDomain: false),
        Case(name: "reverse-domain form", endpoint: "https://merchant.example.com/connect-url", returnURL: "com.example.merchantapp:/braintree", accepted: true, reverseDomain: true),
        Case(name: "reverse-domain with a host", endpoint: "https://merchant.example.com/connect-url", returnURL: "com.example.merchantapp://braintree", accepted: true, reverseDomain: true),
        Case(name: "loopback http endpoint", endpoint: "http://127.0.0.1:9201/connect-url", returnURL: "examplescheme://braintree", accepted: true, reverseDomain: false),
        Case(name: "trailing slash", endpoint: "https://merchant.example.com/connect-url", returnURL: "examplescheme://braintree/", accepted: true, reverseDomain: false),
        Case(name: "non-loopback http endpoint", endpoint: "http://merchant.example.com/connect-url", returnURL: "examplescheme://braintree", accepted: false, reverseDomain: false),
        Case(name: "endpoint with another scheme", endpoint: "ftp://merchant.example.com/connect-url", returnURL: "examplescheme://braintree", accepted: false, reverseDomain: false),
        Case(name: "return URL without a scheme", endpoint: "https://merchant.example.com/connect-url", returnURL: "braintree/return", accepted: false, reverseDomain: false),
        Case(name: "empty return URL", endpoint: "https://merchant.example.com/connect-url", returnURL: "", accepted: false, reverseDomain: false),
        Case(name: "return URL with a query", endpoint: "https://merchant.example.com/connect-url", returnURL: "examplescheme://braintree?x=1", accepted: false, reverseDomain: false),
        Case(name: "return URL with a fragment", endpoint: "https://merchant.example.com/connect-url", returnURL: "examplescheme://braintree#x", accepted: false, reverseDomain: false),
    ])
    func validation(_ testCase: Case) throws {
        let endpoint = try #require(URL(string: testCase.endpoint))
        do {
            let configuration = try BraintreeConnectConfiguration(connectURLEndpoint: endpoint, returnURL: testCase.returnURL)
            #expect(testCase.accepted)
            #expect(configuration.connectURLEndpoint == endpoint)
            #expect(configuration.returnURL == testCase.returnURL)
            #expect(configuration.usesReverseDomainScheme == testCase.reverseDomain)
        } catch let error as OAuthError {
            #expect(!testCase.accepted)
            #expect(error.code == .configuration)
        }
    }

    @Test("a return URL changed after init into one without a scheme makes connect refuse")
    func recheckedAtConnect() async throws {
        let endpoint = try #require(URL(string: "http://127.0.0.1:9201/backend/connect-url"))
        var configuration = try BraintreeConnectConfiguration(connectURLEndpoint: endpoint, returnURL: "examplescheme://braintree")
        configuration.returnURL = "no scheme"
        #expect(!configuration.usesReverseDomainScheme)
        let backend = TransportTap(base: HeldTransport())
        let browser = RecordingUserAgent()
        let connect = BraintreeConnect(configuration: configuration, transport: backend, userAgent: browser, notify: { _ in })
        #expect(await oauthError { try await connect.connect() }?.code == .configuration)
        #expect(backend.requests.isEmpty)
        #expect(browser.openedURLs.isEmpty)
    }
}
