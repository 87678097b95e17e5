import Foundation
import FlowCheckTestLanes
import Testing

/// `flowcheck --list --requirements` prints the coverage matrix without running anything; a run
/// ends its Markdown report with the same matrix and carries the ids in JUnit `<properties>`
/// that the Jenkins xUnit schema accepts.
@Suite(.integration, .timeLimit(.minutes(20)))
struct RequirementMatrixBinaryTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The schema the JUnit report is written for (Jenkins xUnit's, MIT), kept in `reports/`.
    static let junitSchema = packageRoot.appendingPathComponent("reports/junit-10.xsd")
    static let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"].first(where: FileManager.default.isExecutableFile(atPath:))

    /// A spec citing `requirements`, with one step citing `stepRequirements` of its own.
    static func spec(id: String, requirements: [String], stepRequirements: [String]) -> String {
        func list(_ ids: [String]) -> String { "[" + ids.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        return FlowCheckBinaryTests.spec(id: id)
            .replacingOccurrences(of: #""requirements": ["SEED-003-bearer"]"#, with: #""requirements": "# + list(requirements))
            .replacingOccurrences(of: #""expect": {"store""#, with: #""requirements": "# + list(stepRequirements) + #", "expect": {"store""#)
    }

    @Test func listRequirementsPrintsTheMatrixWithoutRunning() async throws {
        let root = try FlowCheckBinaryTests.workspace([
            "a.json": Self.spec(id: "E2E-ONE", requirements: ["SEED-003-bearer"], stepRequirements: ["SEED-003-auth"]),
            "b.json": Self.spec(id: "E2E-TWO", requirements: ["SEED-003-bearer", "RFC6750-2.1"], stepRequirements: ["RFC6749-4.4"]),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await FlowCheckBinaryTests.run(["--list", "--requirements", "specs"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports").path), "listing must not run flows or write reports")
        let rows = run.stdout.split(separator: "\n").filter { $0.hasPrefix("| SEED-") || $0.hasPrefix("| RFC") }
        // Every catalogue id exactly once, seeds first.
        let ids = rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.count >= 40)
        #expect(ids.first == "SEED-000-full-login")
        let row = { (id: String) in rows.first { $0.hasPrefix("| \(id) |") }.map(String.init) ?? "" }
        #expect(row("SEED-003-bearer").contains("[E2E-ONE](#e2e-one), [E2E-TWO](#e2e-two) |"))
        #expect(row("SEED-003-auth").contains("[E2E-ONE](#e2e-one) |"))
        #expect(row("RFC6749-4.4").contains("[E2E-TWO](#e2e-two) |"))
        #expect(row("RFC6749-10.3").contains("INV-LEAK"), "invariants cite requirements too")
        #expect(row("RFC8252-8.12").contains("**uncovered**"))
        let uncovered = rows.filter { $0.contains("**uncovered**") }.count
        #expect(run.stdout.contains("\(ids.count - uncovered) of \(ids.count) requirements covered"))
        #expect(!run.stdout.contains("✅"), "nothing ran, so nothing has a verdict")
    }

    @Test func requirementsWithoutListIsAUsageError() async throws {
        let root = try FlowCheckBinaryTests.workspace(["a.json": FlowCheckBinaryTests.spec(id: "E2E-ONE")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await FlowCheckBinaryTests.run(["--requirements", "specs"], in: root)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("flowcheck: --requirements goes with --list"))
    }

    @Test(.enabled(if: xmllint != nil && FileManager.default.fileExists(atPath: junitSchema.path), "needs xmllint"))
    func aRunCarriesTheIdsInSchemaValidJUnitAndEndsTheMarkdownWithTheMatrix() async throws {
        let root = try FlowCheckBinaryTests.workspace([
            "a.json": Self.spec(id: "E2E-ONE", requirements: ["SEED-003-bearer"], stepRequirements: ["SEED-003-auth"]),
            "b.json": Self.spec(id: "E2E-FAIL", requirements: ["RFC6750-2.1"], stepRequirements: ["RFC6749-4.4"]).replacingOccurrences(of: #""productCount": "2""#, with: #""productCount": "9""#),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await FlowCheckBinaryTests.run(["specs"], in: root)
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        let junit = root.appendingPathComponent("reports/junit.xml")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<properties>\n      <property name=\"E2E-ONE requirements\" value=\"SEED-003-bearer, SEED-003-auth\"/>\n    </properties>"))
        let lint = try await ChildProcess.launch("xmllint", executable: URL(fileURLWithPath: try #require(Self.xmllint)), arguments: ["--noout", "--schema", Self.junitSchema.path, junit.path])
        defer { lint.kill() }
        let status = try await lint.exitStatus()
        #expect(status == 0, "xmllint: \(lint.stderr.text)")

        let markdown = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        let matrix = try #require(markdown.components(separatedBy: "## Requirements coverage\n").last)
        #expect(matrix.contains("| SEED-003-bearer |") && matrix.contains("[E2E-ONE](#e2e-one) ✅ |"))
        // The failure is in the step with no ids of its own, so it cites the flow's.
        #expect(matrix.contains("| RFC6750-2.1 |") && matrix.contains("[E2E-FAIL](#e2e-fail) ❌ |"))
        #expect(matrix.contains("| RFC6749-4.4 |") && matrix.contains("[E2E-FAIL](#e2e-fail) ➖ |"))
        #expect(markdown.contains("  cites:    RFC6750-2.1\n"))
    }
}
