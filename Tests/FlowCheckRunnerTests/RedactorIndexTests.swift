import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// The indexed redactor masks exactly what replacing each form in turn, longest first (the
/// redactor before the index), masked.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RedactorIndexTests {
    /// The redactor before the index: every form of every secret, longest first, replaced in turn.
    static func reference(_ secrets: [String], _ text: String) -> String {
        var set = Set<String>()
        for secret in secrets where secret.count >= Redactor.minimumLength {
            for form in Redactor.forms(of: secret) where form.count >= Redactor.minimumLength { set.insert(form) }
        }
        let needles = set.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        var result = text
        for needle in needles { result = Redactor.replacing(needle, with: Redactor.mask, in: result) }
        return result
    }

    static let secrets = ["sk-7Hq2vX9pL4", "a b&c=d+e/f", "pässwörd-ü", "quote\"back\\slash/", "tab\there", "abcd", "abcdefgh", "cdefghij", "xyz", "tok_00000000"]

    static let texts: [String] = [
        "",
        "abc",
        "nothing secret here at all",
        "Bearer sk-7Hq2vX9pL4 and again sk-7Hq2vX9pL4",
        "client_secret=a+b%26c%3Dd%2Be%2Ff&x=1",
        "client_secret=a%20b%26c%3Dd%2Be%2Ff",
        "client_secret=a+b%26c%3dd%2be%2ff lower hex",
        "p%C3%A4ssw%C3%B6rd-%C3%BC and p%c3%a4ssw%c3%b6rd-%c3%bc",
        "{\"s\":\"quote\\\"back\\\\slash\\/\"}",
        "tab\\there and tab\there",
        "YWJjZGVmZ2g= base64 of abcdefgh",
        "abcdefghij overlaps two secrets",
        "xabcdabcdabcdx repeated",
        "aaaaabcdddd",
        "tok_0000000000000000 a run of one secret's bytes",
        "POST /oauth?code=sk-7Hq2vX9pL4&state=abcd → 400",
        "ünïcödé pässwörd-ü ✓ abcd",
        "xyz is too short to mask",
    ]

    @Test(arguments: texts)
    func masksWhatTheRedactorMaskedBefore(_ text: String) {
        #expect(Redactor(secrets: Self.secrets).scrub(text) == Self.reference(Self.secrets, text))
    }

    @Test func masksWhatTheRedactorMaskedBeforeOnGeneratedText() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let alphabet = Array("ab cd=&%+e/fghij0123\"\\x")
        let pieces = Self.secrets.flatMap { Redactor.forms(of: $0) }
        var compared = 0
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<next(8) {
                text += next(2) == 0 ? pieces[next(pieces.count)] : String((0..<next(6)).map { _ in alphabet[next(alphabet.count)] })
            }
            #expect(Redactor(secrets: Self.secrets).scrub(text) == Self.reference(Self.secrets, text), "\(text)")
            compared += 1
        }
        #expect(compared == 2_000)
    }

    @Test func secretsAddedLaterAreMaskedAndEarlierOnesStay() {
        var redactor = Redactor(secrets: ["first-secret"])
        for number in 0..<5_000 { redactor.add(["issued-token-\(number)"]) }
        #expect(redactor.scrub("first-secret issued-token-4999 issued-token-12 issued-token-") == "‹redacted› ‹redacted› ‹redacted› issued-token-")
    }
}
