import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckSpec

/// Hostile inputs keep their place: a comment or an invalid byte is reported at the JSON path
/// of the value it sits in, and an invisible character in quoted spec text is shown.
@Suite(.fast, .timeLimit(.minutes(20)))
struct InputClassTests {
    static let base = #"{"id": "MLT-AUTH", "title": "T", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-auth"], "provider": "moltin", "fixture": {"clients": [{"id": "c", "secret": "sk-abcdef12"}]}, "steps": [{"app": "products"}]}"#

    static func diagnostics(_ bytes: [UInt8]) -> [SpecDiagnostic] {
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode(bytes, file: "t.json") else { return [] }
        return diagnostics
    }

    @Test(arguments: [
        (#""provider": "moltin""#, #""provider": /* the shop */ "moltin""#, "$.provider"),
        (#""steps": [{"app": "products"}]"#, #""steps": [{"app": "products"}, // more later"# + "\n" + #"{"app": "products"}]"#, "$.steps[1]"),
        (#""requirements": ["SEED-003-auth"]"#, #""requirements": ["SEED-003-auth", /* more */ "RFC6749-4.4"]"#, "$.requirements[1]"),
    ])
    func aCommentIsReportedWhereItStands(original: String, replacement: String, path: String) throws {
        let text = Self.base.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.base)
        let found = try #require(Self.diagnostics(Array(text.utf8)).first)
        #expect(found.title.contains("comment"), "\(found)")
        #expect(found.path == path, "\(found)")
    }

    @Test func anInvalidByteInAStringIsReportedAtItsValue() throws {
        var bytes = Array(Self.base.utf8)
        let at = try #require(Self.base.range(of: #""passage": "p"#)).upperBound.utf16Offset(in: Self.base)
        bytes.insert(0xFF, at: at)
        let found = try #require(Self.diagnostics(bytes).first)
        #expect(found.title.hasPrefix("the file is not UTF-8 text: byte 0xFF"))
        #expect(found.path == "$.source.passage", "\(found)")
    }

    @Test func anInvisibleCharacterInQuotedSpecTextIsShown() throws {
        let text = Self.base.replacingOccurrences(of: #""id": "MLT-AUTH""#, with: "\"id\": \"MLT-AUTH\u{200B}\"")
        let found = try #require(Self.diagnostics(Array(text.utf8)).first)
        #expect(found.title == #"id "MLT-AUTH\u200b" is not a catalogue id"#, "\(found)")
    }

    @Test func aByteOrderMarkStartsASpecAsNothing() {
        guard case .valid = SpecLoader.standard.decode([0xEF, 0xBB, 0xBF] + Array(Self.base.utf8), file: "t.json") else {
            Issue.record("a spec with a byte order mark did not load")
            return
        }
    }
}

/// A team's suite cites its own documents: `"source": {"document": PATH-OR-URL, "passage": ...}`
/// beside the seed files FlowCheck encodes, never both at once.
@Suite(.fast, .timeLimit(.minutes(20)))
struct TeamSourceTests {
    static func decode(_ source: String) -> SpecFile {
        let text = InputClassTests.base.replacingOccurrences(of: #""source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}"#, with: #""source": "# + source)
        return SpecLoader.standard.decode(Array(text.utf8), file: "t.json")
    }

    @Test(arguments: [#"{"document": "docs/login.md", "passage": "We refresh a minute early"}"#, #"{"document": "https://wiki.example.com/auth#refresh", "passage": "p"}"#])
    func aTeamsOwnDocumentIsASource(_ source: String) throws {
        guard case .valid(let spec) = Self.decode(source) else {
            Issue.record("\(Self.decode(source))")
            return
        }
        #expect(spec.source.seed.hasPrefix("docs/login.md") || spec.source.seed.hasPrefix("https://wiki.example.com/"))
    }

    @Test func aSourceIsASeedOrADocumentNotBothNorNeither() {
        guard case .invalid(let both) = Self.decode(#"{"seed": "003_d427daaf6ba0e8e7.txt", "document": "docs/a.md", "passage": "p"}"#) else {
            Issue.record("both loaded")
            return
        }
        #expect(both.map(\.title) == ["a source is a seed or a document, not both"])
        guard case .invalid(let neither) = Self.decode(#"{"passage": "p"}"#) else {
            Issue.record("neither loaded")
            return
        }
        #expect(neither.map(\.title) == [#"missing required key "seed""#])
    }
}
