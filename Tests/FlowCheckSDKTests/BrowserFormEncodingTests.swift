import FlowCheckTestLanes
import Testing
@testable import FlowCheckTestSupport

/// The fake browser's form encoder against the WHATWG `application/x-www-form-urlencoded`
/// serializer's rules, never against the SDK's encoder it is a deliberate twin of.
@Suite("BrowserFormEncoding", .fast, .timeLimit(.minutes(20)))
struct BrowserFormEncodingTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let input: String
        let encoded: String
        var testDescription: String { "\(input.debugDescription) -> \(encoded)" }
    }

    @Test("one value serializes as the WHATWG rules say", arguments: [
        Vector(input: "", encoded: ""),
        Vector(input: "azAZ09", encoded: "azAZ09"),
        Vector(input: "*-._", encoded: "*-._"),
        Vector(input: "a b", encoded: "a+b"),
        Vector(input: "a+b", encoded: "a%2Bb"),
        Vector(input: "~!'()", encoded: "%7E%21%27%28%29"),
        Vector(input: "e@example.com", encoded: "e%40example.com"),
        Vector(input: "&=%/?#", encoded: "%26%3D%25%2F%3F%23"),
        Vector(input: "\n\t", encoded: "%0A%09"),
        Vector(input: "é", encoded: "%C3%A9"),
        Vector(input: "😀", encoded: "%F0%9F%98%80"),
        Vector(input: "\u{7F}", encoded: "%7F"),
    ])
    func serialize(_ vector: Vector) {
        #expect(BrowserFormEncoding.serialize(vector.input) == vector.encoded)
    }

    @Test("pairs keep their order, names are serialized too, and are joined by &")
    func pairs() {
        let body = BrowserFormEncoding.encode([
            ("request_id", "r-1"), ("email", "a b@example.com"), ("pass word", "p&w=d"), ("action", "login"),
        ])
        #expect(body == "request_id=r-1&email=a+b%40example.com&pass+word=p%26w%3Dd&action=login")
        #expect(BrowserFormEncoding.encode([]) == "")
    }
}
