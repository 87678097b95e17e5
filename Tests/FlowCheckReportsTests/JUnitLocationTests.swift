import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FlowCheckTestLanes
import Testing
@testable import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// Where GitHub's JUnit actions put each failure, by their own lookups re-implemented here.
///
/// - mikepenz/action-junit-report: the file is the testcase's `file`, else the failure's, else
///   the testsuite's; the line the testcase's `line`, else the failure's, else the testsuite's;
///   with no line, it searches the failure's (or error's) text for ` <anything>FILE<anything>:N`
///   and takes the LAST match's number (1 when none).
/// - EnricoMi/publish-unit-test-result-action: only the testcase's `file` and `line`
///   attributes. junit-10.xsd (what CI validates against) allows neither on `testcase`, so that
///   action cannot place our failures on a line; see ``enricoMiFindsNoLine()``.
@Suite(.fast, .timeLimit(.minutes(20)))
struct JUnitLocationTests {
    struct Placed: Equatable { var file: String?; var line: Int? }

    /// mikepenz/action-junit-report's `resolveFileAndLine`, over our XML.
    static func mikepenz(_ testcase: XMLElement) -> Placed {
        let suite = testcase.parent as? XMLElement
        let result = (testcase.elements(forName: "failure") + testcase.elements(forName: "error")).first
        let file = testcase.attribute(forName: "file")?.stringValue ?? result?.attribute(forName: "file")?.stringValue ?? suite?.attribute(forName: "file")?.stringValue
        let line = testcase.attribute(forName: "line")?.stringValue ?? result?.attribute(forName: "line")?.stringValue ?? suite?.attribute(forName: "line")?.stringValue
        if let file, let line, let number = Int(line) { return Placed(file: file, line: number) }
        guard let file else { return Placed(file: nil, line: 1) }
        let trace = (result?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let escaped = NSRegularExpression.escapedPattern(for: file)
        // JavaScript's `.` stops at line ends; `[^ ]` does not.
        let regex = try! NSRegularExpression(pattern: " [^ ]*\(escaped)[^\\n\\r]*?:\\d+")
        let matches = regex.matches(in: trace, range: NSRange(trace.startIndex..., in: trace))
        guard let last = matches.last, let range = Range(last.range, in: trace) else { return Placed(file: file, line: 1) }
        return Placed(file: file, line: Int(trace[range].split(separator: ":").last ?? "") ?? -1)
    }

    /// EnricoMi/publish-unit-test-result-action: the testcase's own attributes only.
    static func enricoMi(_ testcase: XMLElement) -> Placed {
        Placed(file: testcase.attribute(forName: "file")?.stringValue, line: testcase.attribute(forName: "line")?.stringValue.flatMap { Int($0) })
    }

    static func testcases(_ run: RunResult) throws -> [XMLElement] {
        let document = try XMLDocument(data: Data(JUnitReport.render(run).utf8))
        return try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
    }

    /// Failures at different steps, and values that hold a location of their own.
    static let run: RunResult = {
        func flow(_ id: String, file: String, failures: [(Int, Int, String)]) -> FlowResult {
            FlowResult(id: id, title: id, summary: nil, file: file, provider: "moltin", seed: "s", passage: "p", decisions: [], steps: [], status: .failed,
                       failures: failures.map { CheckFailure(step: $0.0, line: $0.1, check: "result.x", expected: "equals \"\($0.2)\"", actual: "\"\($0.2)\"") },
                       errorMessage: nil, transcript: [], duration: 0)
        }
        let first = SpecDiagnostic(file: "specs/bad.json", location: .init(line: 3, column: 5), path: "$.tilte", title: "unknown key \"tilte\"", fix: "did you mean \"title\"? see specs/bad.json:40")
        let second = SpecDiagnostic(file: "specs/bad.json", location: .init(line: 17, column: 2), path: "$.steps", title: "missing steps", fix: "add steps")
        return RunResult(flows: [
            flow("A", file: "specs/a.json", failures: [(2, 14, "plain")]),
            flow("B", file: "specs/b.json", failures: [(3, 21, "x specs/b.json:999 y"), (3, 21, "z")]),
            flow("C", file: "specs/c.json", failures: [(1, 8, "v\n specs/c.json:77"), (4, 30, "w")]),
        ], invalidSpecs: [InvalidSpec(file: "specs/bad.json", diagnostics: [first, second])], driverName: "d")
    }()

    @Test func mikepenzPlacesEachFailureOnItsFailingStepsLine() throws {
        let placed = try Self.testcases(Self.run).map(Self.mikepenz)
        #expect(placed == [
            Placed(file: "specs/a.json", line: 14), Placed(file: "specs/b.json", line: 21), Placed(file: "specs/c.json", line: 8),
            Placed(file: "specs/bad.json", line: 3),
        ])
    }

    @Test func messagesStartWithTheLocation() throws {
        for testcase in try Self.testcases(Self.run) {
            let result = try #require((testcase.elements(forName: "failure") + testcase.elements(forName: "error")).first)
            let file = try #require((testcase.parent as? XMLElement)?.attribute(forName: "file")?.stringValue)
            #expect(result.attribute(forName: "message")?.stringValue?.hasPrefix("\(file):") == true)
            #expect(result.stringValue?.hasPrefix("\(file):") == true)
        }
    }

    /// The schema CI validates against has no `file` or `line` on `testcase`, so this action
    /// gets neither from us: recorded here so a change to either side is noticed.
    /// The schema, kept in the repository (`reports/junit-10.xsd`).
    static let junitSchema: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("reports/junit-10.xsd")

    @Test
    func enricoMiFindsNoLine() throws {
        #expect(try Self.testcases(Self.run).map(Self.enricoMi).allSatisfy { $0 == Placed(file: nil, line: nil) })
        let xsd = try String(contentsOf: Self.junitSchema, encoding: .utf8)
        let testcase = try #require(xsd.range(of: "<xs:element name=\"testcase\">")).upperBound
        let end = try #require(xsd.range(of: "</xs:element>", range: testcase..<xsd.endIndex)).lowerBound
        #expect(!xsd[testcase..<end].contains("name=\"line\"") && !xsd[testcase..<end].contains("name=\"file\""))
    }
}
