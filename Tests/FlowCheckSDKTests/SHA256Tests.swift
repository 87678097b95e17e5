import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

@Suite("SHA256", .fast, .timeLimit(.minutes(20)))
struct SHA256Tests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let name: String
        let message: [UInt8]
        let digest: String
        var testDescription: String { name }
    }

    /// NIST FIPS 180-4 examples (CSRC "SHA256.pdf", "SHA2_Additional.pdf") first.
    @Test("NIST vectors", arguments: [
        Vector(name: "empty", message: [], digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(name: "abc", message: Array("abc".utf8), digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            name: "448-bit two-block message",
            message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        Vector(name: "all 256 byte values", message: Array(0...255), digest: "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880"),
    ])
    func nistVectors(_ vector: Vector) {
        #expect(hex(SHA256.hash(vector.message)) == vector.digest)
    }

    @Test("one million 'a' (NIST long message)")
    func millionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    struct Boundary: CustomTestStringConvertible, Sendable {
        let length: Int
        let digest: String
        var testDescription: String { "\(length) bytes" }
    }

    /// Padding needs 9 bytes (0x80 and the 64-bit length): 55 bytes fit in one block, 56 spill
    /// into a second, 64 fill a block exactly; the same again one block later.
    @Test("messages across the 55/56/64-byte padding boundaries", arguments: [
        Boundary(length: 55, digest: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        Boundary(length: 56, digest: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        Boundary(length: 57, digest: "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"),
        Boundary(length: 63, digest: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        Boundary(length: 64, digest: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        Boundary(length: 65, digest: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        Boundary(length: 119, digest: "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        Boundary(length: 120, digest: "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    ])
    func paddingBoundaries(_ boundary: Boundary) {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: boundary.length)
        #expect(hex(SHA256.hash(message)) == boundary.digest)
    }

    @Test("a non-contiguous sequence hashes like the same bytes in an array")
    func sequenceInput() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hash(message.lazy.map { $0 }) == SHA256.hash(message))
        #expect(SHA256.hash("abc".utf8) == SHA256.hash(Array("abc".utf8)))
        #expect(SHA256.hash(message).count == 32)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
