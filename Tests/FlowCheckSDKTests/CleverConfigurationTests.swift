import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

/// The configuration's refusals (CLE, and the HTTPS-only rule all providers share).
@Suite("Clever configuration", .fast, .timeLimit(.minutes(20)))
struct CleverConfigurationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let clientID: String
        let redirectURI: String
        let base: String
        let accepted: Bool
        var testDescription: String { name }
    }

    @Test("accepts and refuses", arguments: [
        Case(name: "production https", clientID: "abc", redirectURI: "clever-abc://oauth", base: "https://clever.com", accepted: true),
        Case(name: "loopback http", clientID: "abc", redirectURI: "clever-abc://oauth", base: "http://127.0.0.1:9101", accepted: true),
        Case(name: "localhost http", clientID: "abc", redirectURI: "com.example.app:/oauth", base: "http://localhost:8080", accepted: true),
        Case(name: "non-loopback http", clientID: "abc", redirectURI: "clever-abc://oauth", base: "http://clever.com", accepted: false),
        Case(name: "another scheme", clientID: "abc", redirectURI: "clever-abc://oauth", base: "ftp://clever.com", accepted: false),
        Case(name: "empty client ID", clientID: "", redirectURI: "clever-abc://oauth", base: "https://clever.com", accepted: false),
        Case(name: "relative redirect", clientID: "abc", redirectURI: "oauth/callback", base: "https://clever.com", accepted: false),
        Case(name: "empty redirect", clientID: "abc", redirectURI: "", base: "https://clever.com", accepted: false),
        Case(name: "scheme only redirect", clientID: "abc", redirectURI: "clever-abc:", base: "https://clever.com", accepted: false),
    ])
    func validation(_ testCase: Case) throws {
        let base = try #require(URL(string: testCase.base))
        do {
            let configuration = try CleverConfiguration(clientID: testCase.clientID, redirectURI: testCase.redirectURI, baseURL: base)
            #expect(testCase.accepted)
            #expect(configuration.clientID == testCase.clientID)
            #expect(configuration.redirectURI == testCase.redirectURI)
            #expect(configuration.baseURL == base)
        } catch let error as OAuthError {
            #expect(!testCase.accepted)
            #expect(error.code == .configuration)
        }
    }

    @Test("the base defaults to https://clever.com")
    func defaultBase() throws {
        let configuration = try CleverConfiguration(clientID: "abc", redirectURI: "clever-abc://oauth")
        #expect(configuration.baseURL.absoluteString == "https://clever.com")
    }

    @Test("a configuration changed after init is checked again when a login starts")
    func recheckedAtLogin() async throws {
        var configuration = try CleverConfiguration(clientID: "abc", redirectURI: "clever-abc://oauth")
        configuration.baseURL = URL(string: "http://clever.com")!
        let browser = RecordingUserAgent()
        let login = CleverInstantLogin(configuration: configuration, transport: HeldTransport(), userAgent: browser,
                                       store: InMemoryTokenStore(), random: PinnedRandomSource())
        let error = await oauthError { try await login.startLogin() }
        #expect(error?.code == .configuration)
        #expect(browser.openedURLs.isEmpty)
    }
}
