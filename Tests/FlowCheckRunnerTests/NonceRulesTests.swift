import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// INV-RANDOM's entropy rule: a generated `state` or verifier carries 128 bits at least
/// (RFC 6749 §10.10; flows.md CLE-LOGIN "at least 128 bits"), counted by the smallest
/// alphabet it is written in. Values real clients make pass; ones that fall short fail,
/// whatever alphabet they use.
@Suite(.fast, .timeLimit(.minutes(20)))
struct NonceRulesTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// What conforming clients send: our core's 32 bytes in base64url, Python's
    /// `token_urlsafe(16)`, `token_hex(16)`, 16 random bytes in a UUID's layout (32 hex
    /// digits; not a version 4 UUID's fixed digits), two UUIDs joined, authlib's 30 letters
    /// and digits, a 43-character PKCE verifier, 47 bytes in padded standard base64.
    @Test(arguments: [
        "q3Zk1v9xWm2TgH8rLp0sYc4NbE6uJfAdKiO7eRwQz5M",
        "Xq7pL2mN9vB4cR1tY6wZ0g",
        "9f86d081884c7d659a2feaa0c55ad015",
        "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
        "6f1c2a9e-0d3b-4c57-a8e2-91f04b7d6c3a-1b9e5d2f-7a4c-4e81-9f3d-0c6b2a8e5d17",
        "Jq8sLm2Pv9Xc4Rt7Yb1Nw6Ke3Gh5Df",
        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "bG9uZ2VyIHN0YXRlIHdpdGggcGFkZGluZytzbGFzaC9lbmRzIGhlcmUgYW5kIHRoZXJl+/==",
        // 16 random bytes as base64url that happen to be one case and digits (one in 150,000),
        // and passport's uid(24) in lower case: wider alphabets by chance narrow, still random.
        "q3zk1v9xwm2tgh8rlp0syc",
        "k7x2mq9pz4rt8wn3yb6vsd0h",
    ])
    func conformingValuesPass(_ value: String) {
        #expect(NonceRules.weakness(of: value, now: Self.now) == nil, "\(value)")
    }

    /// Under 128 bits in the alphabet they use: 16 hex digits (64 bits), 16 base64url
    /// characters (96), 31 hex digits (124), 21 letters and digits (at most 126).
    @Test(arguments: [
        ("a3f9c01b7e4d2a68", "hex"),
        ("Xq7pL2mN9vB4cR-_", "base64"),
        ("9f86d081884c7d659a2feaa0c55ad01", "hex"),
        ("Jq8sLm2Pv9Xc4Rt7Yb1Nw", "base64"),
    ])
    func shortOfTheirAlphabetFail(_ value: String, _ alphabet: String) {
        let weakness = NonceRules.weakness(of: value, now: Self.now)
        #expect(weakness?.contains("fewer than the 128") == true && weakness?.contains(alphabet) == true, "\(value): \(weakness ?? "nil")")
    }

    /// A version 4 UUID (`UUID().uuidString`, `crypto.randomUUID()`, `uuid.uuid4()`) carries
    /// 122 random bits, short of the 128 flows.md CLE-LOGIN asks of a state, whatever case it
    /// is written in; so do fewer hex digits between dashes. Counted at base64's 6 bits a
    /// character, as before, a UUID passed as 216 bits.
    @Test(arguments: [
        ("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "a version 4 UUID: 32 hex digits between dashes carry at most 122 bits"),
        ("e621e1f8-c36c-495a-b3fc-0c247a3e6e5f", "a version 4 UUID"),
        ("e621e1f8-c36c-495a-b3fc-0c247a3e", "hex digits and dashes: 28 hex digits between dashes carry at most 112 bits"),
    ])
    func uuidsAndShortDashedHexFail(_ value: String, _ expected: String) {
        let weakness = NonceRules.weakness(of: value, now: Self.now)
        #expect(weakness?.contains(expected) == true && weakness?.contains("fewer than the 128") == true, "\(value): \(weakness ?? "nil")")
    }

    /// One value in a version 4 UUID's layout may be 16 random bytes that happen to show its
    /// fixed digits (one time in 64): it counts as its 32 hex digits until the flow has shown
    /// three of that kind, which random bytes do one time in 262,144 and a UUID-making client
    /// always.
    @Test func aUUIDIsCountedAsOneOnlyInARunOfThree() {
        let uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        #expect(NonceRules.weakness(of: uuid, now: Self.now, version4UUIDsInFlow: 1) == nil)
        #expect(NonceRules.weakness(of: uuid, now: Self.now, version4UUIDsInFlow: 2) == nil)
        #expect(NonceRules.weakness(of: uuid, now: Self.now, version4UUIDsInFlow: 3)?.contains("a version 4 UUID") == true)
        #expect(NonceRules.looksLikeVersion4UUID(uuid) && !NonceRules.looksLikeVersion4UUID("E621E1F8-C36C-195A-93FC-0C247A3E6E5F"))
    }
}
