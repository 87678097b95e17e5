import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// Every sink's escaping rule on values built to break it: CR, LF, NUL, ESC, `%`, `::`,
/// backticks, `<`, `|`, and a very long one. Each test fails when its sink's rule is removed.
@Suite(.fast, .timeLimit(.minutes(20)))
struct HostileValueTests {
    static let long = String(repeating: "x", count: 20_000)
    static let hostile = [
        "4\n::warning file=x,line=1::hi", "\r\n::stop-commands::x", "nul\u{0}esc\u{1B}[31m", "100% :: done", "a```b````c", "`tick",
        "<p class=\"error\">oops</p><b>", "a|b", "# heading\n- item\n```\n## injected", long,
    ]

    static func failed(_ value: String, file: String = "specs/moltin/products.json", line: Int = 12) -> FlowResult {
        FlowResult(
            id: "MLT-HOSTILE", title: "Title *emph* <b>bold</b> | pipe", summary: nil, file: file, provider: "moltin",
            seed: "003.txt", passage: "passage", decisions: ["- not a list"],
            steps: [StepResult(number: 2, line: line, action: "The app calls " + NarrativeMarkup.value(value) + ".", checks: ["Result " + NarrativeMarkup.value("productCount") + " equals " + NarrativeMarkup.value(value) + "."], note: value, status: .failed)],
            status: .failed,
            failures: [CheckFailure(step: 2, line: line, check: "result.productCount", expected: "equals \"\(value)\"", actual: "\"\(value)\"",
                                    values: FailureValues(source: .check(.result), matcher: .equals, expected: .string(value), actual: .string(value)))],
            errorMessage: nil, transcript: [], duration: 0.25,
            events: [.request(step: 2, actor: .sdk, method: "GET", path: "/v1/products;x#y", status: 200), .note(step: 2, text: value)]
        )
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    // MARK: - console

    @Test(arguments: hostile)
    func consoleLinesHoldNoControlCharacterAndNoValueStartsALine(_ value: String) {
        let text = ConsoleReport.line(Self.failed(value))
        let lines = text.components(separatedBy: "\n")
        #expect(lines.count == 2, "the flow's line and its one failure, whatever the value holds")
        #expect(!text.unicodeScalars.contains { $0 != "\n" && Self.isControl($0) })
        #expect(lines[0].hasPrefix("✘ MLT-HOSTILE"))
        #expect(lines[1].hasPrefix("    step 2: "))
        #expect(lines.allSatisfy { $0.count < 1_300 }, "long values are cut")
    }

    @Test func consoleShowsALineFeedAsText() {
        #expect(ConsoleReport.value("a\nb\r\u{1B}") == "a\\nb\\r\\u{1B}")
        #expect(ConsoleReport.value(Self.long).hasSuffix("… (19500 more characters)"))
    }

    // MARK: - GitHub annotations

    @Test(arguments: hostile)
    func annotationsAreOneCommandLineEach(_ value: String) {
        let lines = GitHubAnnotations.render(RunResult(flows: [Self.failed(value)], driverName: "d"))
        #expect(lines.count == 1)
        let line = lines[0]
        #expect(!line.unicodeScalars.contains(where: Self.isControl))
        #expect(line.hasPrefix("::error file=specs/moltin/products.json,line=12,title="))
        // The message is everything after the second `::`; a value's `::` stays inside it.
        let message = line.components(separatedBy: "::").dropFirst(2).joined(separator: "::")
        if value.contains("%") { #expect(message.contains("%25")) }
        #expect(line.count < 1_400, "long values are cut")
    }

    @Test func annotationEscapingFollowsTheRunner() {
        #expect(GitHubAnnotations.data("a%b\r\nc\u{0}\u{1B}") == "a%25b%0D%0Ac\\u{0}\\u{1B}")
        #expect(GitHubAnnotations.property("specs/a:b,c.json") == "specs/a%3Ab%2Cc.json")
    }

    @Test func moreThanTenFailuresSayHowManyMore() {
        let flows = (1...13).map { index -> FlowResult in
            var flow = Self.failed("v")
            flow.id = "F-\(index)"
            return flow
        }
        let lines = GitHubAnnotations.render(RunResult(flows: flows, driverName: "d"))
        #expect(lines.count == GitHubAnnotations.shownPerLevel)
        #expect(lines.prefix(9).allSatisfy { $0.hasPrefix("::error file=") })
        let last = lines[9]
        #expect(last.hasPrefix("::error title=4 more failures::"))
        #expect(last.contains("F-10, F-11, F-12, F-13"))
        // Ten or fewer: every one, no summary.
        #expect(GitHubAnnotations.render(RunResult(flows: Array(flows.prefix(10)), driverName: "d")).count == 10)
    }

    // MARK: - Markdown

    @Test func codeSpansOutgrowEveryBacktickRun() {
        #expect(MarkdownText.code("a```b````c") == "`````a```b````c`````")
        #expect(MarkdownText.code("`tick") == "`` `tick ``")
        #expect(MarkdownText.code("a|b", inTable: true) == "`a\\|b`")
        #expect(MarkdownText.code("line\nbreak") == "`line\\nbreak`")
        #expect(MarkdownText.fenced(["```", "x"], info: "diff").hasPrefix("````diff\n"))
    }

    @Test func plainTextEscapesMarkupAndHTML() {
        #expect(MarkdownText.plain("<b>*x*</b> | [l](u) `c` _u_ &amp;") == "\\<b\\>\\*x\\*\\</b\\> \\| \\[l\\](u) \\`c\\` \\_u\\_ \\&amp;")
        #expect(MarkdownText.plain("# h") == "\\# h")
        #expect(MarkdownText.plain("- item") == "\\- item")
        #expect(MarkdownText.plain("12. item") == "12\\. item")
        #expect(MarkdownText.plain("a\nb") == "a\\\\nb")
    }

    @Test(arguments: hostile)
    func markdownKeepsHostileValuesOffTheMarkup(_ value: String) {
        let report = MarkdownReport.render(RunResult(flows: [Self.failed(value)], driverName: "d"))
        let summary = MarkdownReport.summary(RunResult(flows: [Self.failed(value)], driverName: "d"))
        for text in [report, summary] {
            #expect(text.contains("Title \\*emph\\* \\<b\\>bold\\</b\\> \\| pipe"), "a title is plain text, its HTML and emphasis escaped")
            #expect(!text.contains("\n## injected"), "no heading injected")
            #expect(!text.contains("\n::"), "no value starts a line")
            #expect(!text.unicodeScalars.contains { $0 != "\n" && Self.isControl($0) })
        }
        #expect(report.count < 40_000, "long values are cut")
    }

    // MARK: - Mermaid

    @Test func mermaidUsesEntityCodesForWhatBreaksAMessage() {
        #expect(SequenceDiagram.text("GET /a;b#c") == "GET /a#59;b#35;c")
        #expect(SequenceDiagram.text("<br>&x") == "#lt;br#gt;#38;x")
        #expect(SequenceDiagram.text("a\nb\u{1B}") == "a#92;nb#92;u{1B}")
        let diagram = SequenceDiagram.render(Self.failed("v;#")) ?? ""
        #expect(diagram.contains("SDK->>E1: GET /v1/products#59;x#35;y"))
        // Every line of the diagram is one statement: no raw `;` or `#` outside an entity.
        let body = diagram.components(separatedBy: "\n").dropFirst(2).dropLast()
        #expect(body.allSatisfy { $0.replacingOccurrences(of: "#59;", with: "").replacingOccurrences(of: "#35;", with: "").range(of: "[;#]", options: .regularExpression) == nil })
    }
}
