import Foundation
import Testing
@testable import FlowCheckSpec

/// The published JSON Schema (specs/flowcheck.schema.json) and the loader must not drift: every
/// word the loader accepts is in the schema, and nothing more. CI also validates every spec
/// against the schema with an independent validator (Python's jsonschema).
struct SchemaAgreementTests {
    nonisolated(unsafe) static let schema: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("specs/flowcheck.schema.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }()

    static func node(_ path: String...) -> Any? {
        var current: Any? = schema
        for key in path {
            if let index = Int(key), let array = current as? [Any] { current = array.indices.contains(index) ? array[index] : nil } else { current = (current as? [String: Any])?[key] }
        }
        return current
    }

    static func definition(_ name: String) -> [String: Any] { (node("$defs", name) as? [String: Any]) ?? [:] }

    static func propertyNames(_ object: [String: Any]) -> Set<String> { Set(((object["properties"] as? [String: Any]) ?? [:]).keys) }

    static func variants(_ provider: Provider) -> [[String: Any]] { (definition("step_\(provider.rawValue)")["oneOf"] as? [[String: Any]]) ?? [] }

    static func const(_ variant: [String: Any], _ key: String) -> String? {
        ((variant["properties"] as? [String: Any])?[key] as? [String: Any])?["const"] as? String
    }

    @Test func schemaIsThere() {
        #expect(Self.schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func providersAgree() {
        let providers = (Self.node("properties", "provider", "enum") as? [String]) ?? []
        #expect(Set(providers) == Set(Provider.allCases.map(\.rawValue)))
    }

    @Test(arguments: Provider.allCases)
    func appActionsAndArgumentsAgree(_ provider: Provider) {
        var fromSchema: [String: (required: Set<String>, all: Set<String>)] = [:]
        for variant in Self.variants(provider) {
            guard let name = Self.const(variant, "app") else { continue }
            let with = ((variant["properties"] as? [String: Any])?["with"] as? [String: Any]) ?? [:]
            fromSchema[name] = (Set((with["required"] as? [String]) ?? []), Self.propertyNames(with))
        }
        let signatures = Vocabulary.actions(for: provider)
        #expect(Set(fromSchema.keys) == Set(signatures.map(\.name)))
        for signature in signatures {
            #expect(fromSchema[signature.name]?.required == Set(signature.required), "\(signature.name) required")
            #expect(fromSchema[signature.name]?.all == Set(signature.required + signature.optional), "\(signature.name) arguments")
        }
    }

    @Test(arguments: Provider.allCases)
    func stepKindsAndStoreFieldsAgree(_ provider: Provider) {
        let keys = Self.variants(provider).reduce(into: Set<String>()) { $0.formUnion(Self.propertyNames($1)) }
        #expect(keys == Set(SpecDecoder.stepKeys))
        let browser = Set(Self.variants(provider).compactMap { Self.const($0, "browser") })
        #expect(browser == Set(Vocabulary.browserOperations.map(\.name)))
        let store = (((Self.definition("expect_\(provider.rawValue)")["properties"] as? [String: Any])?["store"] as? [String: Any])?["propertyNames"] as? [String: Any])?["enum"] as? [String] ?? []
        #expect(Set(store) == Set(Vocabulary.storeFields(for: provider)))
        #expect(Self.propertyNames(Self.definition("expect_\(provider.rawValue)")) == Set(CheckKind.keys))
    }

    @Test func vocabulariesAgree() {
        let expect = Self.definition("expect_moltin")
        let errorKinds = ((((expect["properties"] as? [String: Any])?["error"] as? [String: Any])?["properties"] as? [String: Any])?["kind"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(errorKinds ?? []) == Set(Vocabulary.errorKinds))
        let fault = Self.variants(.moltin).first { Self.propertyNames($0).contains("fault") }
        let faults = ((((fault?["properties"] as? [String: Any])?["fault"] as? [String: Any])?["properties"] as? [String: Any])?["kind"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(faults ?? []) == Set(Vocabulary.faultKinds))
        let matcher = ((Self.definition("matcher")["oneOf"] as? [[String: Any]])?.last) ?? [:]
        #expect(Self.propertyNames(matcher) == Set(Matcher.keys))
        let matcherKinds = ((Self.definition("matcher")["oneOf"] as? [[String: Any]])?.last?["oneOf"] as? [[String: Any]] ?? []).compactMap { ($0["required"] as? [String])?.first }
        #expect(Set(matcherKinds) == Set(MatcherKind.keys))
        #expect(Self.propertyNames(Self.definition("request")) == Set(RequestCheckKind.keys))
        #expect(Self.propertyNames(Self.definition("url")) == Set(URLCheckKind.keys))
        #expect(Self.propertyNames(Self.definition("browserExpectation")) == Set(BrowserCheckKind.keys))
        let error = ((expect["properties"] as? [String: Any])?["error"] as? [String: Any]) ?? [:]
        #expect(Self.propertyNames(error) == Set(ErrorCheckKind.keys))
        #expect(Set(((Self.node("properties") as? [String: Any]) ?? [:]).keys) == Set(SpecDecoder.topKeys))
    }

    @Test func everySpecNamesTheSchema() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("specs").path
        for file in try SpecLoader().specFiles(in: [folder]) {
            let root = try JSONReader.parse(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
            let schema = root.members?.first { $0.key == "$schema" }?.value.scalarText
            #expect(schema == "../flowcheck.schema.json", "\(file) does not name the schema")
        }
    }
}
