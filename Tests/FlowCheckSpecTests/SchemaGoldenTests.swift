import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// `specs/flowcheck.schema.json` is `flowcheck schema`'s output, committed: generated from the
/// provider registry and the check kinds, so it cannot drift from what the loader accepts.
/// Re-record on purpose only: `FLOWCHECK_RECORD_GOLDEN=1 swift test --filter SchemaGoldenTests`
/// (a recording run fails, so it never passes silently), or `swift run flowcheck schema >
/// specs/flowcheck.schema.json`.
@Suite(.fast, .timeLimit(.minutes(20)))
struct SchemaGoldenTests {
    static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("specs/flowcheck.schema.json")

    @Test("the committed schema is the generated one")
    func committedSchemaIsGenerated() throws {
        let generated = SpecSchema.text(providers: ProviderRegistry.catalog, requirements: RequirementCatalogue.ids)
        if ProcessInfo.processInfo.environment["FLOWCHECK_RECORD_GOLDEN"] == "1" {
            try generated.write(to: Self.committed, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(Self.committed.path); run again without FLOWCHECK_RECORD_GOLDEN")
            return
        }
        let onDisk = try String(contentsOf: Self.committed, encoding: .utf8)
        #expect(onDisk == generated, "specs/flowcheck.schema.json is out of date: run `swift run flowcheck schema > specs/flowcheck.schema.json`")
    }

    @Test("the generated schema is JSON that Foundation reads, with every provider and check kind in it")
    func generatedSchemaNamesEveryKind() throws {
        let data = Data(SpecSchema.text(providers: ProviderRegistry.catalog, requirements: RequirementCatalogue.ids).utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let defs = try #require(root["$defs"] as? [String: Any])
        for id in ProviderRegistry.catalog.ids.map(\.rawValue) {
            #expect(defs["step_\(id)"] != nil && defs["expect_\(id)"] != nil && defs["fixture_\(id)"] != nil, "\(id)")
            let expect = try #require(defs["expect_\(id)"] as? [String: Any])
            #expect(Set(((expect["properties"] as? [String: Any]) ?? [:]).keys) == Set(CheckKind.keys))
        }
        let matcher = try #require(defs["matcher"] as? [String: Any])
        let object = try #require((matcher["oneOf"] as? [[String: Any]])?.last)
        #expect(Set(((object["properties"] as? [String: Any]) ?? [:]).keys) == Set(Matcher.keys))
        let request = try #require(defs["request"] as? [String: Any])
        #expect(Set(((request["properties"] as? [String: Any]) ?? [:]).keys) == Set(RequestCheckKind.keys))
        let url = try #require(defs["url"] as? [String: Any])
        #expect(Set(((url["properties"] as? [String: Any]) ?? [:]).keys) == Set(URLCheckKind.keys))
        let browser = try #require(defs["browserExpectation"] as? [String: Any])
        #expect(Set(((browser["properties"] as? [String: Any]) ?? [:]).keys) == Set(BrowserCheckKind.keys))
    }

    @Test("rendering escapes what JSON needs escaped and keeps key order")
    func renderingIsJSON() throws {
        let node = SchemaNode.object([.init("b", .string("quote \" backslash \\ line\nfeed \u{01}")), .init("a", .array([.integer(1), .bool(true)]))])
        let text = node.rendered()
        #expect(text == "{\n  \"b\": \"quote \\\" backslash \\\\ line\\nfeed \\u0001\",\n  \"a\": [1, true]\n}")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["b"] as? String == "quote \" backslash \\ line\nfeed \u{01}")
    }
}
