import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
@testable import FlowCheckRunner

/// What the fakes issue is known by its shape (`MintedSecret`): a redactor that keeps no
/// string per issued secret (`flowcheck serve`'s) masks a token in every form a client or an
/// SDK's log writes it in, and nothing that merely looks like one.
@Suite(.fast, .timeLimit(.minutes(20)))
struct MintedSecretRedactionTests {
    static let redactor = Redactor(recognising: { MintedSecret.spans(in: $0) })

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
    static func base64URLUnpadded(_ text: String) -> String {
        base64(text).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    static func everyBytePercentEncoded(_ text: String) -> String {
        text.utf8.map { String(format: "%%%02X", $0) }.joined()
    }

    /// Each way a token turns up in text, built from the token.
    static let forms: [(what: String, text: @Sendable (String) -> String)] = [
        ("as it is, in a header", { "Authorization: Bearer \($0)" }),
        ("upper-case hex", { "token=\($0.uppercased())" }),
        ("glued to other hex digits", { "x=00ff\($0)abcd" }),
        ("every byte percent-encoded", { "refresh_token=" + everyBytePercentEncoded($0) }),
        ("a character inside it percent-encoded", { "refresh_token=" + String($0.prefix(20)) + String(format: "%%%02X", $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: 20)]) + String($0.dropFirst(21)) }),
        ("base64 glued to letters before it, each alignment", { "xy" + base64("q" + $0) + " z" + base64("qq" + $0) + " abc" + base64($0) }),
        ("every character \\u-escaped", { "{\"t\":\"" + $0.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined() + "\"}" }),
        ("base64, at the start of a group", { "blob " + base64($0) }),
        ("base64, one byte into a group", { "blob " + base64("a" + $0 + "z") }),
        ("base64, two bytes into a group", { "blob " + base64("ab:" + $0) }),
        ("base64 of a JSON document", { "payload=" + base64("{\"access_token\":\"\($0)\",\"x\":1}") }),
        ("unpadded base64url, each alignment", { "t=" + base64URLUnpadded("1" + $0) + " " + base64URLUnpadded("12" + $0) }),
        // The token's bytes 17 to 65 or 73 cross the break after byte 57 (76 characters).
        ("base64 of a JSON document wrapped at 76 columns (MIME)", { "blob\n" + wrapped(base64("{\"access_token\":\"\($0)\",\"x\":1}"), separator: "\n") }),
        ("the same in a one-line rendering (escaped \\n)", { "blob " + wrapped(base64("{\"access_token\":\"\($0)\",\"x\":1}"), separator: "\\n") }),
    ]

    static func wrapped(_ encoded: String, separator: String) -> String {
        let characters = Array(encoded)
        return stride(from: 0, to: characters.count, by: 76).map { String(characters[$0..<min($0 + 76, characters.count)]) }.joined(separator: separator)
    }

    @Test(arguments: forms.map(\.what), [16, 20])
    func aMintedSecretIsMaskedInEveryForm(_ what: String, byteCount: Int) throws {
        let secret = MintedSecret.mint(byteCount: byteCount)
        let text = try #require(Self.forms.first { $0.what == what }).text(secret)
        let scrubbed = Self.redactor.scrub(text)
        #expect(scrubbed.contains(Redactor.mask), "\(what): \(scrubbed)")
        // What is left must not hold the secret in this form, nor decode to it.
        var judge = SecretForms()
        judge.add([secret])
        #expect(judge.firstOccurring(in: scrubbed) == nil, "\(what): \(scrubbed)")
        #expect(!scrubbed.lowercased().contains(secret.prefix(24)), "\(what): \(scrubbed)")
    }

    @Test func hexThatIsNotMintedIsLeftAlone() {
        // The same length as a token, and a SHA-256 digest: no tag, so not masked.
        let lookalike = String(repeating: "0123456789abcdef", count: 4).prefix(56)
        let digest = FakeCrypto.sha256(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        let text = "id \(lookalike) digest \(digest) " + Self.base64(String(lookalike))
        #expect(Self.redactor.scrub(text) == text)
        #expect(!MintedSecret.isMinted(String(lookalike)))
    }

    @Test func aTamperedSecretIsNotRecognised() {
        let secret = MintedSecret.mint(byteCount: 20)
        let flipped = String(secret.dropLast()) + (secret.last == "0" ? "1" : "0")
        #expect(MintedSecret.isMinted(secret))
        #expect(!MintedSecret.isMinted(flipped))
        #expect(Self.redactor.scrub(flipped) == flipped)
    }

    @Test func secretsAreRandomAndOfTheLengthsTheyWere() {
        let tokens = (0..<64).map { _ in MintedSecret.mint(byteCount: 20) }
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy { $0.count == 56 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        #expect(MintedSecret.mint(byteCount: 16).count == 48)
    }
}
