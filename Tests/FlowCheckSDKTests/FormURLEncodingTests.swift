import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSDK

@Suite("FormURLEncoding", .fast, .timeLimit(.minutes(20)))
struct FormURLEncodingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: String
        let encoded: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "ampersand", input: "a&b", encoded: "a%26b"),
        Case(name: "equals", input: "a=b", encoded: "a%3Db"),
        Case(name: "plus", input: "a+b", encoded: "a%2Bb"),
        Case(name: "space becomes plus", input: "a b", encoded: "a+b"),
        Case(name: "slash", input: "a/b", encoded: "a%2Fb"),
        Case(name: "tilde is escaped (WHATWG, unlike RFC 3986)", input: "~", encoded: "%7E"),
        Case(name: "asterisk is kept", input: "*", encoded: "*"),
        Case(name: "dash dot underscore are kept", input: "-._", encoded: "-._"),
        Case(name: "alphanumerics are kept", input: "AZaz09", encoded: "AZaz09"),
        Case(name: "percent", input: "100%", encoded: "100%25"),
        Case(name: "newline", input: "a\nb", encoded: "a%0Ab"),
        Case(name: "non-ASCII é", input: "é", encoded: "%C3%A9"),
        Case(name: "emoji", input: "😀", encoded: "%F0%9F%98%80"),
        Case(name: "empty", input: "", encoded: ""),
        Case(name: "mixed secret", input: "p&ss=w+rd é", encoded: "p%26ss%3Dw%2Brd+%C3%A9"),
    ]

    @Test("encodes one component", arguments: cases)
    func encodesComponent(_ testCase: Case) {
        #expect(FormURLEncoding.encodeComponent(testCase.input) == testCase.encoded)
    }

    @Test("a component round-trips through decode", arguments: cases)
    func componentRoundTrips(_ testCase: Case) throws {
        let body = FormURLEncoding.encode([("k", testCase.input)])
        let fields = try #require(FormURLEncoding.decode(body))
        #expect(fields.count == 1)
        #expect(fields.first?.0 == "k")
        #expect(fields.first?.1 == testCase.input)
    }

    @Test("encode keeps field order and joins with &")
    func encodeKeepsOrder() {
        let body = FormURLEncoding.encode([
            ("grant_type", "client_credentials"),
            ("client_id", "id"),
            ("client_secret", "a&b=c"),
        ])
        #expect(body == "grant_type=client_credentials&client_id=id&client_secret=a%26b%3Dc")
    }

    @Test("several fields round-trip in order, names escaped too")
    func fieldsRoundTrip() throws {
        let fields = [("z", "1"), ("a b", "x&y"), ("=", "+"), ("é", ""), ("z", "dup")]
        let decoded = try #require(FormURLEncoding.decode(FormURLEncoding.encode(fields)))
        #expect(decoded.map(\.0) == fields.map(\.0))
        #expect(decoded.map(\.1) == fields.map(\.1))
    }

    struct DecodeCase: CustomTestStringConvertible, Sendable {
        let body: String
        let fields: [[String]]?
        var testDescription: String { "decode \"\(body)\"" }
    }

    @Test("decode", arguments: [
        DecodeCase(body: "", fields: []),
        DecodeCase(body: "a=1&&b", fields: [["a", "1"], ["b", ""]]),
        DecodeCase(body: "a=%20+x", fields: [["a", "  x"]]),
        DecodeCase(body: "a=b=c", fields: [["a", "b=c"]]),
        DecodeCase(body: "a=%c3%a9", fields: [["a", "é"]]),
        DecodeCase(body: "a=x&\u{301}b=y", fields: [["a", "x"], ["\u{301}b", "y"]]),
        DecodeCase(body: "a=%", fields: nil),
        DecodeCase(body: "a=%2", fields: nil),
        DecodeCase(body: "a=%zz", fields: nil),
        DecodeCase(body: "%G1=b", fields: nil),
        DecodeCase(body: "a=%C3", fields: nil),
        DecodeCase(body: "a=%C3%28", fields: nil),
    ])
    func decode(_ testCase: DecodeCase) {
        let decoded = FormURLEncoding.decode(testCase.body)
        #expect(decoded?.map { [$0.0, $0.1] } == testCase.fields)
    }

    /// Why the tutorial's encoder (seed 003, "Percent Escaping String") must not be copied:
    /// `.urlHostAllowed` passes the form delimiters through, so the server splits the secret.
    @Test("the tutorial's .urlHostAllowed leaves form delimiters unescaped", arguments: ["&", "=", "+"])
    func tutorialEncodingIsBroken(_ delimiter: String) throws {
        let tutorial = try #require(delimiter.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed))
        #expect(tutorial == delimiter)
        #expect(FormURLEncoding.encodeComponent(delimiter) != delimiter)
    }

    @Test("a secret encoded the tutorial's way reaches the server altered; ours arrives intact")
    func tutorialSecretIsMangled() throws {
        let secret = "p&ss=w+rd"
        let tutorialValue = try #require(secret.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed))
        let tutorialFields = try #require(FormURLEncoding.decode("client_secret=\(tutorialValue)"))
        #expect(tutorialFields.first?.1 != secret)

        let ourFields = try #require(FormURLEncoding.decode(FormURLEncoding.encode([("client_secret", secret)])))
        #expect(ourFields.count == 1)
        #expect(ourFields.first?.1 == secret)
    }
}
