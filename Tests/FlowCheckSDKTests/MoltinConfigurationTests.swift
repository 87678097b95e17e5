import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

@Suite("MoltinConfiguration", .fast, .timeLimit(.minutes(20)))
struct MoltinConfigurationTests {
    @Test("accepts https anywhere and http to loopback", arguments: [
        "https://api.molt.in/",
        "https://example.com",
        "http://127.0.0.1:8080",
        "http://127.0.0.1:8080/",
        "http://127.1.2.3:9",
        "http://localhost:1",
        "http://LOCALHOST",
        "http://[::1]:8080",
    ])
    func accepts(_ text: String) throws {
        let configuration = try MoltinConfiguration(baseURL: try #require(URL(string: text)))
        #expect(configuration.baseURL.absoluteString == text)
        #expect(configuration.refreshMargin == 60)
    }

    @Test("refuses plain http off loopback and other schemes", arguments: [
        "http://example.com",
        "http://api.molt.in/",
        "http://128.0.0.1",
        "http://10.0.0.1:8080",
        "http://[::2]",
        "http://localhost.example.com",
        "ftp://127.0.0.1",
        "file:///tmp/x",
    ])
    func refuses(_ text: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: OAuthError.self) { try MoltinConfiguration(baseURL: url) }
        #expect(error?.code == .configuration)
    }

    @Test("refuses a negative margin")
    func negativeMargin() throws {
        let url = try #require(URL(string: "https://api.molt.in/"))
        let error = #expect(throws: OAuthError.self) { try MoltinConfiguration(baseURL: url, refreshMargin: -1) }
        #expect(error?.code == .configuration)
    }

    @Test("production and store key")
    func constants() {
        #expect(MoltinConfiguration.production.baseURL.absoluteString == "https://api.molt.in/")
        #expect(MoltinConfiguration.production.refreshMargin == 60)
        #expect(MoltinConfiguration.storeKey == "moltin.token")
    }
}
