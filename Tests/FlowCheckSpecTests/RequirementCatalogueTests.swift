import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// The requirement catalogue is one list every check cites: its ids are unique and well formed,
/// each has a one-line statement and a source, every invariant's ids are in it, every committed
/// spec cites it, and the loader refuses what it does not hold.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RequirementCatalogueTests {
    static let specsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("specs").path

    @Test func idsAreUniqueAndWellFormed() {
        let ids = RequirementCatalogue.all.map(\.id)
        #expect(Set(ids).count == ids.count, "repeated ids: \(ids.filter { id in ids.filter { $0 == id }.count > 1 })")
        for id in ids {
            #expect(RequirementCatalog.isWellFormed(id), "\(id) is neither SEED-00N-word nor RFCNNNN-S.S")
        }
    }

    @Test func statementsAndSourcesAreOneLine() {
        for requirement in RequirementCatalogue.all {
            #expect(!requirement.statement.isEmpty && !requirement.statement.contains("\n"), "\(requirement.id): the statement must be one line")
            #expect(!requirement.source.isEmpty && !requirement.source.contains("\n"), "\(requirement.id): the source must be one line")
        }
    }

    @Test("seeds come first by seed number, then RFCs by number")
    func catalogueOrder() {
        let ids = RequirementCatalogue.all.map(\.id)
        let firstRFC = ids.firstIndex { $0.hasPrefix("RFC") } ?? ids.count
        #expect(ids[..<firstRFC].allSatisfy { $0.hasPrefix("SEED-") })
        #expect(ids[firstRFC...].allSatisfy { $0.hasPrefix("RFC") })
        let seeds = ids[..<firstRFC].map { $0.split(separator: "-")[1] }
        #expect(seeds == seeds.sorted())
        let rfcs = ids[firstRFC...].map { $0.split(separator: "-")[0] }
        #expect(rfcs == rfcs.sorted())
    }

    @Test("every invariant cites ids the catalogue holds", arguments: Invariant.allCases)
    func invariantRequirementsAreCatalogued(_ invariant: Invariant) {
        #expect(!invariant.requirements.isEmpty)
        for id in invariant.requirements {
            #expect(RequirementCatalogue.requirement(id) != nil, "\(invariant.rawValue) cites \(id), which the catalogue does not hold")
        }
    }

    @Test("well-formed ids", arguments: [
        ("SEED-003-refresh", true), ("SEED-000-full-login", true), ("RFC7636-4.6", true), ("RFC6749-6", true), ("RFC6749-4.1.2.1", true),
        ("SEED-3-refresh", false), ("SEED-003-Refresh", false), ("RFC7636", false), ("RFC7636-4.", false), ("rfc7636-4.6", false), ("RFC 7636 §4.6", false),
    ])
    func wellFormedIDs(_ id: String, _ wellFormed: Bool) {
        #expect(RequirementCatalog.isWellFormed(id) == wellFormed)
    }

    @Test func everyCommittedSpecCitesTheCatalogue() throws {
        let loaded = try SpecLoader.standard.load(paths: [Self.specsFolder])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.description))")
        // Every spec file loaded (a count derived from the folder, so a new spec needs no edit here).
        let files = try SpecLoader.standard.specFiles(in: [Self.specsFolder])
        #expect(!files.isEmpty && loaded.specs.count == files.count, "\(loaded.specs.count) specs from \(files.count) files")
        for spec in loaded.specs {
            #expect(!spec.requirements.isEmpty, "\(spec.id) cites no requirement")
            for id in spec.allRequirements {
                #expect(RequirementCatalogue.requirement(id) != nil, "\(spec.id) cites \(id)")
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var expected: [String]
        var testDescription: String { name }
    }

    /// `SpecLoaderErrorTests.spec` with its flow-level `"requirements": ["SEED-003-auth"]` replaced.
    static func spec(requirements: String?, steps: String = #"[{"app": "products"}]"#) -> String {
        let base = SpecLoaderErrorTests.spec(steps: steps)
        guard let requirements else { return base.replacingOccurrences(of: #", "requirements": ["SEED-003-auth"]"#, with: "") }
        return base.replacingOccurrences(of: #""requirements": ["SEED-003-auth"]"#, with: #""requirements": "# + requirements)
    }

    static let refusals: [Case] = [
        Case(name: "missing", json: spec(requirements: nil), expected: [
            "t.json:1:1: error: missing required key \"requirements\" at $\n  fix: add \"requirements\": [\"SEED-003-auth\", \"RFC6749-4.4\"]",
        ]),
        Case(name: "empty", json: spec(requirements: "[]"), expected: [
            "t.json:4:103: error: an empty \"requirements\" cites nothing at $.requirements\n  fix: cite the seed passage and RFC sections the flow checks, e.g. [\"SEED-003-auth\", \"RFC6749-4.4\"]",
        ]),
        Case(name: "unknown, with a near miss", json: spec(requirements: #"["SEED-003-auht"]"#), expected: [
            "t.json:4:104: error: unknown requirement id \"SEED-003-auht\" at $.requirements[0]\n  fix: did you mean \"SEED-003-auth\"? cite an id of the requirement catalogue (Sources/FlowCheckProviders/RequirementCatalogue.swift; `flowcheck --list --requirements specs/` lists them), or add your own to a flowcheck.requirements.json beside your specs",
        ]),
        Case(name: "unknown, nothing near", json: spec(requirements: #"["SEED-009-nothing-like-it"]"#), expected: [
            "t.json:4:104: error: unknown requirement id \"SEED-009-nothing-like-it\" at $.requirements[0]\n  fix: cite an id of the requirement catalogue (Sources/FlowCheckProviders/RequirementCatalogue.swift; `flowcheck --list --requirements specs/` lists them), or add your own to a flowcheck.requirements.json beside your specs",
        ]),
        Case(name: "twice", json: spec(requirements: #"["SEED-003-auth", "SEED-003-auth"]"#), expected: [
            "t.json:4:121: error: requirement \"SEED-003-auth\" is cited twice at $.requirements[1]\n  fix: remove the repeat",
        ]),
        Case(name: "not a string", json: spec(requirements: "[7]"), expected: [
            "t.json:4:104: error: expected a requirement id, found a number at $.requirements[0]\n  fix: write it as \"RFC7636-4.6\"",
        ]),
        Case(name: "a step's unknown id", json: spec(requirements: #"["SEED-003-auth"]"#, steps: #"[{"app": "products", "requirements": ["RFC7636-4.7"]}]"#), expected: [
            "t.json:7:50: error: unknown requirement id \"RFC7636-4.7\" at $.steps[0].requirements[0]\n  fix: did you mean \"RFC7636-4.1\"? cite an id of the requirement catalogue (Sources/FlowCheckProviders/RequirementCatalogue.swift; `flowcheck --list --requirements specs/` lists them), or add your own to a flowcheck.requirements.json beside your specs",
        ]),
        Case(name: "a step's empty list", json: spec(requirements: #"["SEED-003-auth"]"#, steps: #"[{"app": "products", "requirements": []}]"#), expected: [
            "t.json:7:49: error: an empty \"requirements\" cites nothing at $.steps[0].requirements\n  fix: cite at least one id, or remove the key (the step then cites the flow's)",
        ]),
    ]

    @Test(arguments: refusals)
    func loaderRefuses(_ testCase: Case) {
        switch SpecLoader.standard.decode(Array(testCase.json.utf8), file: "t.json") {
        case .valid:
            Issue.record("expected diagnostics, the spec loaded")
        case .invalid(let diagnostics):
            #expect(diagnostics.map(\.description) == testCase.expected)
        }
    }

    @Test func flowAndStepIdsLoad() throws {
        let json = Self.spec(requirements: #"["SEED-003-auth", "RFC6749-4.4"]"#, steps: #"[{"app": "products", "requirements": ["RFC6750-2.1", "SEED-003-auth"]}, {"app": "products"}]"#)
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("expected a valid spec")
            return
        }
        #expect(spec.requirements == ["SEED-003-auth", "RFC6749-4.4"])
        #expect(spec.steps.map(\.requirements) == [["RFC6750-2.1", "SEED-003-auth"], []])
        #expect(spec.allRequirements == ["SEED-003-auth", "RFC6749-4.4", "RFC6750-2.1"])
    }

    @Test("a loader is handed its catalogue: an id it was not given is unknown")
    func loaderKnowsOnlyItsCatalogue() {
        let loader = SpecLoader(providers: ProviderRegistry.catalog, requirements: RequirementCatalog(["SEED-003-bearer"]))
        guard case .invalid(let diagnostics) = loader.decode(Array(Self.spec(requirements: #"["SEED-003-auth"]"#).utf8), file: "t.json") else {
            Issue.record("expected SEED-003-auth to be unknown to a loader without it")
            return
        }
        #expect(diagnostics.map(\.title) == ["unknown requirement id \"SEED-003-auth\""])
    }

    @Test func schemaPublishesTheCatalogueIds() throws {
        let data = Data(SpecSchema.text(providers: ProviderRegistry.catalog, requirements: RequirementCatalogue.ids).utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let required = try #require(root["required"] as? [String])
        #expect(required.contains("requirements"))
        let defs = try #require(root["$defs"] as? [String: Any])
        let list = try #require(defs["requirements"] as? [String: Any])
        let items = try #require(list["items"] as? [String: Any])
        #expect(items["enum"] as? [String] == RequirementCatalogue.all.map(\.id))
        #expect(list["minItems"] as? Int == 1)
    }

    /// The example a spec without requirements is given cites its own provider's seed, never
    /// the Moltin tutorial's (whatever else is wrong with the spec).
    @Test(arguments: [("clever", "[\"SEED-004-redirect\", \"RFC6749-4.1.3\"]"), ("clover", "[\"SEED-000-full-login\", \"RFC6749-4.1.3\"]"), ("braintree", "[\"SEED-002-connect-url\", \"RFC6749-4.1.3\"]"), ("moltin", "[\"SEED-003-auth\", \"RFC6749-4.4\"]")])
    func theMissingRequirementsExampleIsTheProvidersOwn(provider: String, example: String) throws {
        let json = Self.spec(requirements: nil).replacingOccurrences(of: "\"moltin\"", with: "\"\(provider)\"")
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("expected diagnostics, the spec loaded")
            return
        }
        let missing = try #require(diagnostics.first { $0.title == "missing required key \"requirements\"" }, "\(diagnostics)")
        #expect(missing.fix == "add \"requirements\": \(example)")
    }

    /// A seed passage of another provider is a warning naming both seeds; an id an invariant
    /// cites (generalised to every provider) and the spec's own seed are not.
    @Test func anotherProvidersSeedPassageIsAWarning() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("specs/clever/denied.json"), encoding: .utf8)
        func warnings(adding ids: String) throws -> [String] {
            let json = text.replacingOccurrences(of: #""requirements": ["#, with: #""requirements": ["# + ids + ", ")
            #expect(json != text)
            guard case .valid(let spec) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
                Issue.record("expected a valid spec")
                return []
            }
            return spec.warnings.map(\.title)
        }
        #expect(try warnings(adding: #""SEED-003-auth""#) == ["requirement \"SEED-003-auth\" is a passage of seed 003, not of the clever spec's (seed 004)"])
        #expect(try warnings(adding: #""SEED-002-dismiss""#).isEmpty, "an invariant cites it for every provider")
    }
}
