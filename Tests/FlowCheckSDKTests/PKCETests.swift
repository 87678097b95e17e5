import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

@Suite("PKCE and OAuth state", .fast, .timeLimit(.minutes(20)))
struct PKCETests {
    /// RFC 7636 Appendix B: these 32 octets give this verifier, whose S256 challenge is this.
    static let appendixBOctets: [UInt8] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
        22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ]
    static let appendixBVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let appendixBChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test("RFC 7636 Appendix B: challenge of the published verifier")
    func appendixBChallenge() throws {
        #expect(PKCE.challenge(for: Self.appendixBVerifier) == Self.appendixBChallenge)
        let pkce = try PKCE(verifier: Self.appendixBVerifier)
        #expect(pkce.verifier == Self.appendixBVerifier)
        #expect(pkce.challenge == Self.appendixBChallenge)
        #expect(pkce.method == "S256")
    }

    @Test("RFC 7636 Appendix B: the random initialiser turns the published octets into the published verifier")
    func appendixBFromOctets() {
        let pkce = PKCE(random: PinnedRandomSource(blocks: [Self.appendixBOctets]))
        #expect(pkce.verifier == Self.appendixBVerifier)
        #expect(pkce.challenge == Self.appendixBChallenge)
        #expect(CloverPaymentSDK.makeCodeChallenge(random: PinnedRandomSource(blocks: [Self.appendixBOctets])) == pkce)
    }

    struct VerifierCase: CustomTestStringConvertible, Sendable {
        let name: String
        let verifier: String
        let valid: Bool
        var testDescription: String { name }
    }

    @Test("init(verifier:) enforces RFC 7636 §4.1", arguments: [
        VerifierCase(name: "42 characters", verifier: String(repeating: "a", count: 42), valid: false),
        VerifierCase(name: "43 characters", verifier: String(repeating: "a", count: 43), valid: true),
        VerifierCase(name: "128 characters", verifier: String(repeating: "~", count: 128), valid: true),
        VerifierCase(name: "129 characters", verifier: String(repeating: "a", count: 129), valid: false),
        VerifierCase(name: "empty", verifier: "", valid: false),
        VerifierCase(name: "all unreserved kinds", verifier: "AZaz09-._~" + String(repeating: "x", count: 33), valid: true),
        VerifierCase(name: "a space", verifier: String(repeating: "a", count: 42) + " ", valid: false),
        VerifierCase(name: "a plus", verifier: String(repeating: "a", count: 42) + "+", valid: false),
        VerifierCase(name: "a slash", verifier: String(repeating: "a", count: 42) + "/", valid: false),
        VerifierCase(name: "padding", verifier: String(repeating: "a", count: 42) + "=", valid: false),
        VerifierCase(name: "non-ASCII", verifier: String(repeating: "a", count: 42) + "é", valid: false),
    ])
    func verifierValidation(_ testCase: VerifierCase) {
        if testCase.valid {
            #expect(throws: Never.self) { try PKCE(verifier: testCase.verifier) }
        } else {
            let error = #expect(throws: OAuthError.self) { try PKCE(verifier: testCase.verifier) }
            #expect(error?.code == .configuration)
        }
    }

    /// Property loop: 1,000 generated verifiers are well formed, distinct, and their challenges
    /// are the S256 of the verifier; 1,000 arbitrary valid verifiers of every allowed length are
    /// accepted and hashed the same way.
    @Test("1,000 verifiers: length, alphabet, distinct, S256 challenge")
    func propertyLoop() throws {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var seen = Set<String>()
        for _ in 0..<1000 {
            let pkce = PKCE()
            #expect((43...128).contains(pkce.verifier.count))
            #expect(pkce.verifier.allSatisfy(alphabet.contains))
            #expect(Base64URL.decode(pkce.verifier)?.count == 32)
            #expect(Base64URL.decode(pkce.challenge) == SHA256.hash(pkce.verifier.utf8))
            #expect(try PKCE(verifier: pkce.verifier) == pkce)
            seen.insert(pkce.verifier)
        }
        #expect(seen.count == 1000)

        let random = PinnedRandomSource(seed: 7)
        let characters = Array(alphabet)
        var arbitrary = Set<String>()
        for index in 0..<1000 {
            let length = 43 + index % 86
            let verifier = String(random.bytes(length).map { characters[Int($0) % characters.count] })
            let pkce = try PKCE(verifier: verifier)
            #expect(pkce.verifier.count == length)
            #expect(pkce.challenge.count == 43)
            #expect(pkce.challenge == Base64URL.encode(SHA256.hash(verifier.utf8)))
            arbitrary.insert(verifier)
        }
        #expect(arbitrary.count == 1000)
    }

    @Test("description shows the challenge, never the verifier")
    func redacted() throws {
        let pkce = try PKCE(verifier: Self.appendixBVerifier)
        for text in [pkce.description, pkce.debugDescription, String(reflecting: pkce), dumped(pkce)] {
            #expect(!text.contains(Self.appendixBVerifier))
        }
        #expect(pkce.description.contains(Self.appendixBChallenge))
    }

    @Test("state: 43 base64url characters carrying 256 bits, distinct over 1,000")
    func stateEntropy() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let state = OAuthState.generate()
            #expect(state.count == 43)
            let bits = (Base64URL.decode(state)?.count ?? 0) * 8
            #expect(bits >= 128)
            #expect(bits == 256)
            seen.insert(state)
        }
        #expect(seen.count == 1000)
    }

    @Test("state and verifier come from the injected source")
    func pinnedState() {
        let bytes = [UInt8](repeating: 0xFF, count: 32)
        #expect(OAuthState.generate(random: PinnedRandomSource(blocks: [bytes])) == String(repeating: "_", count: 42) + "8")
        #expect(PinnedRandomSource(seed: 1).bytes(32) == PinnedRandomSource(seed: 1).bytes(32))
    }

    @Test("the system source returns exactly the bytes asked for, and they vary")
    func systemSource() {
        let source = SystemRandomSource()
        for count in [0, 1, 7, 8, 9, 32, 100] {
            #expect(source.bytes(count).count == count)
        }
        #expect(source.bytes(32) != source.bytes(32))
    }
}

/// What `dump` prints for `value`.
func dumped(_ value: some Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text
}
