import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

@Suite("StoredToken", .fast, .timeLimit(.minutes(20)))
struct StoredTokenTests {
    let token = StoredToken(
        accessToken: "access-abc123",
        tokenType: "Bearer",
        expiresAt: Date(timeIntervalSince1970: 1_767_229_200),
        refreshToken: "refresh-xyz789",
        scope: "read"
    )

    @Test("description, debugDescription and dump are redacted")
    func redacted() {
        var dumped = ""
        dump(token, to: &dumped)
        for text in [token.description, String(reflecting: token), "\(token)", dumped] {
            #expect(!text.contains("access-abc123"), "\(text)")
            #expect(!text.contains("refresh-xyz789"), "\(text)")
            #expect(text.contains("<redacted>"))
        }
    }

    @Test("storage encoding round-trips")
    func roundTrip() throws {
        let data = try token.encodedForStorage()
        #expect(try StoredToken(storedData: data) == token)
        let minimal = StoredToken(accessToken: "a")
        #expect(try StoredToken(storedData: minimal.encodedForStorage()) == minimal)
    }

    @Test("garbage in the store is a storage error")
    func unreadable() {
        let error = #expect(throws: OAuthError.self) { try StoredToken(storedData: Data("not json".utf8)) }
        #expect(error?.code == .storage)
    }

    struct ExpiryCase: CustomTestStringConvertible, Sendable {
        let secondsBeforeExpiry: TimeInterval
        let margin: TimeInterval
        let needsRefresh: Bool
        let isExpired: Bool
        var testDescription: String { "\(secondsBeforeExpiry)s before expiry, margin \(margin)" }
    }

    @Test("needsRefresh and isExpired", arguments: [
        ExpiryCase(secondsBeforeExpiry: 3600, margin: 60, needsRefresh: false, isExpired: false),
        ExpiryCase(secondsBeforeExpiry: 61, margin: 60, needsRefresh: false, isExpired: false),
        ExpiryCase(secondsBeforeExpiry: 60, margin: 60, needsRefresh: true, isExpired: false),
        ExpiryCase(secondsBeforeExpiry: 1, margin: 0, needsRefresh: false, isExpired: false),
        ExpiryCase(secondsBeforeExpiry: 0, margin: 0, needsRefresh: true, isExpired: true),
        ExpiryCase(secondsBeforeExpiry: -60, margin: 60, needsRefresh: true, isExpired: true),
    ])
    func expiry(_ testCase: ExpiryCase) throws {
        let expiresAt = try #require(token.expiresAt)
        let now = expiresAt.addingTimeInterval(-testCase.secondsBeforeExpiry)
        #expect(token.needsRefresh(at: now, margin: testCase.margin) == testCase.needsRefresh)
        #expect(token.isExpired(at: now) == testCase.isExpired)
    }

    @Test("a token without expiry never counts as due")
    func noExpiry() {
        let token = StoredToken(accessToken: "a")
        #expect(!token.needsRefresh(at: .distantFuture, margin: 60))
    }
}
