import FlowCheckTestLanes
import Testing
@testable import FlowCheckSpec

@Suite(.fast, .timeLimit(.minutes(20)))
struct JSONReaderTests {
    @Test func keepsPositionsAndOrder() throws {
        let node = try JSONReader.parse("{\n  \"b\": 1,\n  \"a\": [true, null, \"é\\u00e9\\ud83d\\ude00\"]\n}")
        let members = try #require(node.members)
        #expect(members.map(\.key) == ["b", "a"])
        #expect(members[1].keyLocation == SourceLocation(line: 3, column: 3))
        guard case .array(let items) = members[1].value.value else { Issue.record("not an array"); return }
        #expect(items[2].value == .string("éé😀"))
        #expect(items[2].location == SourceLocation(line: 3, column: 21))
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse("[\"é\" x]") }
        do {
            _ = try JSONReader.parse("[\"é\" x]")
        } catch {
            #expect(error.location == SourceLocation(line: 1, column: 6))
        }
    }

    @Test(arguments: ["{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "tru", "{\"a\":1}}", "\"\u{01}\"", "1.", "-", "\"\\ud800\""])
    func refusesMalformed(_ text: String) {
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse(text) }
    }

    @Test func refusesDeepNestingWithoutCrashing() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse(deep) }
    }

    @Test func numbersKeepTheirText() throws {
        #expect(try JSONReader.parse("1e400").value == .number("1e400"))
        #expect(try JSONReader.parse("-0.50").value == .number("-0.50"))
    }
}
