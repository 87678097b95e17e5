import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// The JSON report's content, and that it keeps to the published schema's keys.
@Suite(.fast, .timeLimit(.minutes(20)))
struct JSONReportTests {
    static func document() throws -> [String: Any] {
        var run = ReportGoldenTests.sample
        run.invalidSpecs = [InvalidSpec(file: "specs/bad.json", diagnostics: [SpecDiagnostic(file: "specs/bad.json", location: .init(line: 3, column: 5), path: "$.tite", title: "unknown key \"tite\"", fix: "did you mean \"title\"?")])]
        // A baseline expecting the failed flow, and one flow that now passes.
        run.baselined = [run.flows[1].id: "known debt", run.flows[0].id: "fixed since"]
        run.flows[1].failures[0].values = FailureValues(source: .check(.result), matcher: .equals, expected: .string("a"), actual: .masked(characters: 12))
        let text = JSONReport.render(run, startedAt: Date(timeIntervalSince1970: 1_700_000_000), skipped: [.init(id: "MLT-X", file: "specs/x.json", reason: .filter(pattern: "AUTH")), .init(id: "MLT-Y", file: "specs/y.json", reason: .shard(index: 1, count: 3))])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func carriesVersionsStartDurationsSkipsValuesAndDiagnostics() throws {
        let root = try Self.document()
        #expect(root["formatVersion"] as? Int == JSONReport.formatVersion)
        #expect((root["tool"] as? [String: Any])?["version"] as? String == ToolVersion.current)
        #expect(root["startedAt"] as? String == "2023-11-14T22:13:20Z")
        let flows = try #require(root["flows"] as? [[String: Any]])
        #expect(flows.map { $0["durationSeconds"] as? Double } == [0.012, 1.5, 0])
        let skipped = try #require(root["skippedFlows"] as? [[String: Any]])
        #expect(skipped.map { $0["reason"] as? String } == ["filter", "shard"])
        #expect(skipped.first?["detail"] as? String == "its id does not match --filter AUTH")
        #expect(flows.map { $0["baselined"] as? String } == [nil, "known debt", nil])
        #expect((root["summary"] as? [String: Any])?["baselined"] as? Int == 1)
        #expect(root["unexpectedlyPassing"] as? [String] == [ReportGoldenTests.sample.flows[0].id])
        let values = try #require((flows[1]["failures"] as? [[String: Any]])?.first?["values"] as? [String: Any])
        #expect(values["kind"] as? String == "result")
        #expect(values["matcher"] as? String == "equals")
        #expect((values["expected"] as? [String: Any])?["value"] as? String == "a")
        #expect((values["actual"] as? [String: Any])?["type"] as? String == "masked")
        let invalid = try #require((root["invalidSpecs"] as? [[String: Any]])?.first)
        let diagnostic = try #require((invalid["diagnostics"] as? [[String: Any]])?.first)
        #expect(diagnostic["line"] as? Int == 3 && diagnostic["column"] as? Int == 5 && diagnostic["path"] as? String == "$.tite")
        #expect(diagnostic["fix"] as? String == "did you mean \"title\"?")
    }

    /// Every key the report writes is a property the committed schema declares (it refuses
    /// others), so the schema cannot fall behind the code unnoticed.
    @Test func everyKeyIsInThePublishedSchema() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../reports/flowcheck-report.schema.json").standardized
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var declared: Set<String> = []
        func collect(_ node: Any) {
            if let object = node as? [String: Any] {
                if let properties = object["properties"] as? [String: Any] { declared.formUnion(properties.keys) }
                object.values.forEach(collect)
            } else if let array = node as? [Any] { array.forEach(collect) }
        }
        collect(schema)
        var written: Set<String> = []
        func keys(_ node: Any) {
            if let object = node as? [String: Any] { written.formUnion(object.keys); object.values.forEach(keys) } else if let array = node as? [Any] { array.forEach(keys) }
        }
        keys(try Self.document())
        #expect(written.subtracting(declared).isEmpty, "keys the schema does not declare: \(written.subtracting(declared).sorted())")
    }
}
