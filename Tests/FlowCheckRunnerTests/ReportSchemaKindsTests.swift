import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI
import FlowCheckRunner
import FlowCheckSpec

/// The report schema's closed lists are the code's: each `enum` in
/// `reports/flowcheck-report.schema.json` is exactly the cases the report can write, in the
/// code's order, so a new check kind, matcher, status or signal fails here until the published
/// schema names it (a report a validator refuses is the alternative). The derived families and
/// the harness parties are held the same way in DerivedVariantsTests and HarnessBlameTests.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ReportSchemaKindsTests {
    static func schema() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../reports/flowcheck-report.schema.json").standardized
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// The `enum` at `path` (keys of nested objects) in the schema, with JSON null as nil.
    static func list(_ path: [String]) throws -> [String?] {
        var node: Any = try schema()
        for key in path { node = try #require((node as? [String: Any])?[key], "no \(path.joined(separator: ".")) in the report schema") }
        let values = try #require((node as? [String: Any])?["enum"] as? [Any], "\(path.joined(separator: ".")) has no enum")
        return values.map { $0 as? String }
    }

    static func json(_ values: [String?]) -> String {
        "[" + values.map { $0.map { "\"\($0)\"" } ?? "null" }.joined(separator: ", ") + "]"
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let path: [String]
        let code: [String?]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a failure's kind: every check kind, then invariant", path: ["$defs", "failure", "properties", "values", "properties", "kind"], code: CheckKind.keys + ["invariant"]),
        Case(name: "a failure's matcher: none, then every matcher kind", path: ["$defs", "failure", "properties", "values", "properties", "matcher"], code: [nil] + MatcherKind.keys),
        Case(name: "a flow's status", path: ["$defs", "flow", "properties", "status"], code: FlowResult.Status.allCases.map(\.rawValue)),
        Case(name: "the signal that interrupted a run", path: ["properties", "interrupted", "properties", "signal"], code: ProcessSignals.handled.map(InterruptSignal.name(of:))),
    ]

    @Test(arguments: cases)
    func theSchemaListsWhatTheCodeWrites(_ kind: Case) throws {
        let listed = try Self.list(kind.path)
        #expect(listed == kind.code, "reports/flowcheck-report.schema.json \(kind.path.joined(separator: ".")).enum is stale: write \(Self.json(kind.code))")
    }
}
