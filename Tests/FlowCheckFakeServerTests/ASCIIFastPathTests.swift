import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckFakeServer

/// The byte-wise fast paths taken for ASCII (header names looked up case-insensitively, the
/// Bearer scheme split off an Authorization value) answer exactly as the Unicode-aware code
/// they stand in for, which still runs for anything else.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ASCIIFastPathTests {
    @Test(arguments: [
        ("Authorization", "authorization", true), ("AUTHORIZATION", "Authorization", true),
        ("Content-Type", "content-type", true), ("Content-Type", "Content_Type", false),
        ("X-A", "X-B", false), ("ab", "abc", false), ("", "", true), ("@", "`", false), ("[", "{", false),
        // Non-ASCII: Unicode lowercasing (the Kelvin sign lowercases to k).
        ("\u{212A}ey", "key", true), ("Stra\u{DF}e", "STRA\u{DF}E", true),
    ])
    func headerNamesMatchAsLowercasedDoes(_ pair: (String, String, Bool)) {
        let (lhs, rhs, same) = pair
        #expect(HTTPHeaders.sameName(lhs, rhs) == same)
        #expect(HTTPHeaders.sameName(lhs, rhs) == (lhs.lowercased() == rhs.lowercased()))
        let headers = HTTPHeaders([(lhs, "v")])
        #expect((headers[rhs] != nil) == same)
    }

    /// The original, Character-based reading: the reference the byte path must match.
    static func reference(_ header: String?) -> String? {
        guard let header = header.map(FakeMoltin.trimmingWhitespaces), !header.isEmpty else { return nil }
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1])
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) || !token.contains(where: \.isWhitespace) else { return nil }
        return token
    }

    @Test(arguments: [
        "Bearer abc", "bearer abc", "BEARER abc", "BeArEr abc", "Bearer  abc", " Bearer abc ", "Bearer", "Bearer ",
        "Bearer a b", "Bearer\tabc", "Bearer abc\t", "Bearer a\u{0B}c", "Bearer a\u{1C}c", "Bearer a\r\nc", "Basic abc",
        "Bearerx abc", "Bear abc", "@earer abc", "Bearer \u{7F}", "Bearer a\u{00A0}b", "Bearer tok\u{E9}n", "\u{2003}Bearer abc",
    ])
    func theBearerTokenIsReadAsBefore(_ header: String) {
        #expect(FakeMoltin.bearerToken(header) == Self.reference(header))
    }
}
