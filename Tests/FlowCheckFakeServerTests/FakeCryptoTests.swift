import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckTestSupport

/// The fake's own SHA-256 and PKCE helpers: published vectors first, then property loops.
@Suite(.fast, .timeLimit(.minutes(20)))
struct FakeCryptoTests {
    struct DigestCase: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var hex: String
        var testDescription: String { name }
    }

    /// NIST FIPS 180-2 / CAVP examples, plus messages around the padding boundaries (55 and
    /// 56 bytes need one and two blocks; 64 fills a block exactly) checked with `sha256sum`.
    static let digests: [DigestCase] = [
        DigestCase(name: "empty", input: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        DigestCase(name: "abc", input: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        DigestCase(
            name: "448 bits", input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            hex: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        DigestCase(
            name: "896 bits",
            input: "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            hex: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        DigestCase(name: "55 a", input: String(repeating: "a", count: 55), hex: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        DigestCase(name: "56 a", input: String(repeating: "a", count: 56), hex: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        DigestCase(name: "57 a", input: String(repeating: "a", count: 57), hex: "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"),
        DigestCase(name: "63 a", input: String(repeating: "a", count: 63), hex: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        DigestCase(name: "64 a", input: String(repeating: "a", count: 64), hex: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        DigestCase(name: "65 a", input: String(repeating: "a", count: 65), hex: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        DigestCase(name: "119 a", input: String(repeating: "a", count: 119), hex: "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        DigestCase(name: "120 a", input: String(repeating: "a", count: 120), hex: "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        DigestCase(name: "1000 a", input: String(repeating: "a", count: 1000), hex: "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ]

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(arguments: digests)
    func sha256MatchesPublishedDigests(_ vector: DigestCase) {
        let digest = FakeCrypto.sha256(Array(vector.input.utf8))
        #expect(digest.count == 32)
        #expect(Self.hex(digest) == vector.hex)
    }

    @Test func sha256OfOneMillionA() {
        let digest = FakeCrypto.sha256([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Self.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// RFC 7636 Appendix B, including the digest octets it lists.
    @Test func rfc7636AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(FakeCrypto.sha256(Array(verifier.utf8)) == [
            19, 211, 30, 150, 26, 26, 216, 236, 47, 22, 177, 12, 76, 152, 46, 8,
            118, 168, 120, 173, 109, 241, 68, 86, 110, 225, 137, 74, 203, 112, 249, 195,
        ])
        #expect(FakeCrypto.s256Challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    /// RFC 4648 §10 vectors (no padding), and bytes that exercise the two url-safe letters.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func base64URLMatchesRFC4648(input: String, expected: String) {
        #expect(FakeCrypto.base64URL(Array(input.utf8)) == expected)
    }

    @Test func base64URLUsesTheURLSafeAlphabet() {
        #expect(FakeCrypto.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(FakeCrypto.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    /// Foundation's standard base64, translated, is an independent oracle for every length.
    @Test func base64URLAgreesWithFoundationOnRandomBytes() {
        var generator = SplitMix64(seed: 7636)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(FakeCrypto.base64URL(bytes) == expected, "length \(length)")
        }
    }

    /// 1,000 generated verifiers: every challenge is 43 base64url characters, stable, and
    /// changes when one character of the verifier does.
    @Test func challengesOfGeneratedVerifiers() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SplitMix64(seed: 42)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let length = Int.random(in: 43...128, using: &generator)
            var verifier = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            let challenge = FakeCrypto.s256Challenge(for: verifier)
            #expect(challenge.count == 43)
            #expect(challenge.allSatisfy { base64URL.contains($0) })
            #expect(FakeCrypto.s256Challenge(for: verifier) == challenge)
            seen.insert(challenge)
            let last = verifier.removeLast()
            verifier.append(last == "a" ? "b" : "a")
            #expect(FakeCrypto.s256Challenge(for: verifier) != challenge)
        }
        #expect(seen.count == 1000)
    }
}
