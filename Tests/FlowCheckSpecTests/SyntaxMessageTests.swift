import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// Issue 13, build 7: syntax messages for the mistakes editors make, each at the right place
/// and saying what happened, not what the parser expected next.
@Suite(.fast, .timeLimit(.minutes(20)))
struct SyntaxMessageTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var expected: [String]
        var testDescription: String { name }
        init(name: String, _ text: String, expected: [String]) {
            self.init(name: name, bytes: Array(text.utf8), expected: expected)
        }
        init(name: String, bytes: [UInt8], expected: [String]) {
            self.name = name
            self.bytes = bytes
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case(name: "end of file after a comma in an array", "{\n  \"steps\": [\n    {\"app\": \"auth\"},\n", expected: [
            "t.json:4:1: error: invalid JSON: unexpected end of file after a comma; the last open bracket is the array at 2:12 ($.steps) at $.steps\n  fix: the file may be cut off: restore the rest, or complete the array opened at 2:12 and close what is still open with ]}",
        ]),
        Case(name: "end of file after a comma in an object", "{\n  \"id\": \"MLT-AUTH\",\n  \"steps\": [{\"app\": \"auth\",", expected: [
            "t.json:3:28: error: invalid JSON: unexpected end of file after a comma; the last open bracket is the object at 3:13 ($.steps[0]) at $.steps[0]\n  fix: the file may be cut off: restore the rest, or complete the object opened at 3:13 and close what is still open with }]}",
        ]),
        Case(name: "end of file after a key", "{\"id\"", expected: [
            "t.json:1:6: error: invalid JSON: unexpected end of file after the key \"id\"; the last open bracket is the object at 1:1 ($) at $\n  fix: the file may be cut off: restore the rest, or complete the object opened at 1:1 and close what is still open with }",
        ]),
        Case(name: "a // comment", "{\n  \"id\": \"MLT-AUTH\", // the catalogue id\n  \"title\": \"x\"\n}", expected: [
            "t.json:2:21: error: invalid JSON: a // comment: JSON has no comments at $\n  fix: remove it; say why in the step's \"note\" or in the spec's \"decisions\" list",
        ]),
        Case(name: "a /* */ comment before the document", "/* spec */ {}", expected: [
            "t.json:1:1: error: invalid JSON: a /* */ comment: JSON has no comments at $\n  fix: remove it; say why in the step's \"note\" or in the spec's \"decisions\" list",
        ]),
        Case(name: "a string left open at the end of its line", "{\n  \"title\": \"Auth,\n  \"id\": \"MLT-AUTH\"\n}", expected: [
            "t.json:2:18: error: invalid JSON: the string opened at 2:12 is not closed before the end of its line at $.title\n  fix: close it with a double quote on the same line; a line break inside a value is written \\n",
        ]),
        Case(name: "a string left open at a CR LF line end", "{\r\n  \"title\": \"Auth,\r\n  \"id\": \"MLT-AUTH\"\r\n}", expected: [
            "t.json:2:18: error: invalid JSON: the string opened at 2:12 is not closed before the end of its line at $.title\n  fix: close it with a double quote on the same line; a line break inside a value is written \\n",
        ]),
        Case(name: "a control character in a string", "{\"title\": \"a\u{07}b\"}", expected: [
            "t.json:1:13: error: invalid JSON: control character 0x07 inside a string at $.title\n  fix: escape it as \\u0007",
        ]),
        Case(name: "invalid UTF-8 at its byte", bytes: Array("{\n  \"title\": \"caf".utf8) + [0xE9] + Array("\"\n}".utf8), expected: [
            "t.json:2:16: error: the file is not UTF-8 text: byte 0xE9 (offset 17) starts no UTF-8 character at $.title\n  fix: save it as UTF-8; a byte like this is often an accented letter saved as Latin-1 or Windows-1252",
        ]),
        Case(name: "invalid UTF-8: an overlong form after a multi-byte character", bytes: Array("[\"é".utf8) + [0xC0, 0xAF] + Array("\"]".utf8), expected: [
            "t.json:1:4: error: the file is not UTF-8 text: byte 0xC0 (offset 4) starts no UTF-8 character at $[0]\n  fix: save it as UTF-8; a byte like this is often an accented letter saved as Latin-1 or Windows-1252",
        ]),
        Case(name: "invalid UTF-8: a surrogate", bytes: Array("\n\n  [".utf8) + [0xED, 0xA0, 0x80] + Array("]".utf8), expected: [
            "t.json:3:4: error: the file is not UTF-8 text: byte 0xED (offset 5) starts no UTF-8 character at $\n  fix: save it as UTF-8; a byte like this is often an accented letter saved as Latin-1 or Windows-1252",
        ]),
    ]

    @Test(arguments: cases)
    func reportsExactMessage(_ testCase: Case) {
        switch SpecLoader.standard.decode(testCase.bytes, file: "t.json") {
        case .valid:
            Issue.record("expected diagnostics, the spec loaded")
        case .invalid(let diagnostics):
            #expect(diagnostics.map(\.description) == testCase.expected)
        }
    }

    @Test(arguments: [
        [UInt8](), Array("plain ascii".utf8), Array("é😀€".utf8), [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], [0xF4, 0x8F, 0xBF, 0xBF],
    ])
    func validUTF8HasNoInvalidByte(_ bytes: [UInt8]) {
        #expect(UTF8Position.firstInvalidByte(in: bytes) == nil)
        #expect(String(validating: bytes, as: UTF8.self) != nil)
    }

    /// The position check agrees with the standard library on what is UTF-8.
    @Test(arguments: [[0x80], [0xC1, 0x80], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5], [0xE2, 0x82], [0x61, 0xFF]] as [[UInt8]])
    func invalidUTF8IsFound(_ bytes: [UInt8]) {
        #expect(UTF8Position.firstInvalidByte(in: bytes) != nil)
        #expect(String(validating: bytes, as: UTF8.self) == nil)
    }
}
