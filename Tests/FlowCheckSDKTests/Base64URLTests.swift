import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK
import FlowCheckTestSupport

@Suite("Base64URL", .fast, .timeLimit(.minutes(20)))
struct Base64URLTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let bytes: [UInt8]
        let text: String
        var testDescription: String { text.isEmpty ? "(empty)" : text }
    }

    /// RFC 4648 §10 test vectors, unpadded, plus the two characters where the URL alphabet
    /// differs from the standard one (§5: `-` for `+`, `_` for `/`).
    @Test("RFC 4648 vectors, unpadded", arguments: [
        Vector(bytes: [], text: ""),
        Vector(bytes: Array("f".utf8), text: "Zg"),
        Vector(bytes: Array("fo".utf8), text: "Zm8"),
        Vector(bytes: Array("foo".utf8), text: "Zm9v"),
        Vector(bytes: Array("foob".utf8), text: "Zm9vYg"),
        Vector(bytes: Array("fooba".utf8), text: "Zm9vYmE"),
        Vector(bytes: Array("foobar".utf8), text: "Zm9vYmFy"),
        Vector(bytes: [0xFB, 0xFF, 0xBF], text: "-_-_"),
        Vector(bytes: [0xFF, 0xFF], text: "__8"),
    ])
    func vectors(_ vector: Vector) {
        #expect(Base64URL.encode(vector.bytes) == vector.text)
        #expect(Base64URL.decode(vector.text) == vector.bytes)
    }

    @Test("round trip for every length up to 100")
    func roundTrip() {
        let random = PinnedRandomSource(seed: 42)
        for length in 0...100 {
            let bytes = random.bytes(length)
            let text = Base64URL.encode(bytes)
            #expect(text.count == (length * 4 + 2) / 3)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test("decode refuses padding, the standard alphabet, bad lengths and non-canonical bits", arguments: [
        "Zg==", "Zm9v=", "ab+c", "ab/c", "Zm9 v", "Z", "Zm9vY", "Zh", "Zm9", "Zm-", "é",
    ])
    func decodeRefuses(_ text: String) {
        // "Zh" and "Zm9" differ from the canonical "Zg" ("f") and "Zm8" ("fo") only in bits the
        // decoder drops: accepting them would give two spellings to one value.
        #expect(Base64URL.decode(text) == nil)
    }
}
