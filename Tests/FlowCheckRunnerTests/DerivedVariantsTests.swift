import Foundation
import FlowCheckCoreDriver
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec
import FlowCheckTestLanes
import Testing

/// The variants derived from the committed flows (docs/derived-variants.md): stable, passed by
/// our SDK core and by conforming variants of it, failed by the broken ones they were written
/// for, and accounted for in the family × provider table.
@Suite(.integration, .timeLimit(.minutes(20)))
struct DerivedVariantsTests {
    static func derived() throws -> (specs: [FlowSpec], variants: [FlowSpec]) {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        return (specs, Deriver.variants(of: specs, providers: ProviderRegistry.catalog))
    }

    @Test func theSameSpecsGiveTheSameVariantsInTheSameOrder() throws {
        let first = try Self.derived().variants
        let second = try Self.derived().variants
        #expect(first.map(\.id) == second.map(\.id))
        #expect(Set(first.map(\.id)).count == first.count, "every derived id is unique")
        #expect(first.count > 500, "\(first.count) variants")
        for variant in first {
            #expect(variant.id.contains("~"), "\(variant.id)")
            #expect(variant.derivation.map { !$0.rule.requirements.isEmpty } == true, "\(variant.id) cites its rule's requirements")
        }
    }

    @Test func everyVariantPassesAgainstTheSDKCore() async throws {
        let variants = try Self.derived().variants
        for result in await FlowRunner(driver: CoreSDKDriver()).run(variants) where result.status != .passed {
            Issue.record("\(result.id): \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    /// No false failure from a rule: the conforming variants that touch what the families attack
    /// (the redirect's state, the authorize URL, the requests' encoding, a Retry-After waited out)
    /// pass every derived variant too.
    @Test(arguments: ConformingVariants.all.filter { ["a 64-character state in standard base64 (+, / and =)", "the authorize URL's scheme in capitals", "header names in lower case", "form spaces as %20", "Moltin gives up at once on a Retry-After and leaves the retry to the app"].contains($0.name) })
    func everyVariantPassesAgainstAConformingSDK(_ conforming: ConformingVariants.Variant) async throws {
        let variants = try Self.derived().variants
        for result in await FlowRunner(driver: conforming.driver).run(variants) where result.status != .passed {
            Issue.record("\(result.id) against \"\(conforming.name)\": \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    /// Every reshape a provider lists for an answer is tried on that answer by some committed
    /// flow: two answers listing the same reshape (Clover's token and refresh) each get it.
    @Test func everyListedReshapeOfEveryAnswerIsDerived() throws {
        let (_, variants) = try Self.derived()
        for provider in ProviderRegistry.catalog.all {
            for answer in provider.derivation.answers {
                let slug = answer.path.split(separator: "/").joined(separator: "-")
                for shape in answer.equivalent {
                    #expect(variants.contains { $0.provider == provider.id && $0.id.hasSuffix("~answer.\(slug).\(shape.fault)") },
                            "\(provider.id): \(answer.path) \(shape.fault) is derived by no flow")
                }
            }
        }
    }

    @Test func everyEmptyCellOfTheTableSaysWhy() throws {
        let (specs, variants) = try Self.derived()
        let table = DerivedCoverage(results: [], specs: specs + variants, providers: ProviderRegistry.catalog)
        for row in table.rows {
            for (provider, cell) in zip(table.providers, row.cells) {
                if case .none(let reason) = cell { #expect(reason.count > 20, "\(row.family) × \(provider): \(reason)") }
            }
        }
        // Every family derives something for every provider it applies to.
        for provider in ProviderRegistry.catalog.all {
            for family in DerivedFamily.allCases where provider.derivation.notApplicable[family] == nil {
                #expect(variants.contains { $0.provider == provider.id && $0.derivation?.family == family }, "\(family) derives nothing for \(provider.id)")
            }
        }
    }

    /// A team's driver without the logout a variant adds (the example in docs/swift.md performs four
    /// Moltin actions): those variants are not run, with the reason, never a harness error and
    /// never a pass; the run still passes.
    @Test func aDriverWithoutTheAddedActionLeavesTheVariantNotRun() async throws {
        struct NoSuchAction: Error, CustomStringConvertible { var description: String { "my SDK has no action deleteToken" } }
        let driver = BrokenVariants.overriding("no Delete Token") { call, _, _ in
            if call.name == "deleteToken" { throw NoSuchAction() }
            return nil
        }
        // The families that add a logout (an answer-shape variant adds no action).
        let variants = try Self.derived().variants.filter { $0.derivation?.parent == "MLT-AUTH" && [.interleave, .storeCrash].contains($0.derivation?.family) }
        #expect(variants.contains { $0.derivation?.family == .interleave })
        for result in await FlowRunner(driver: driver).run(variants) {
            #expect(result.status == .passedWithSkips, "\(result.id): \(result.status) \(result.errorMessage ?? "")")
            #expect(result.skips.contains { $0.check == "derived.deleteToken" && $0.reason.contains("my SDK has no action deleteToken") }, "\(result.id): \(result.skips)")
        }
    }

    @Test func aFlowOptsOutOfAFamilyWithItsReason() throws {
        var (specs, _) = try Self.derived()
        let index = try #require(specs.firstIndex { $0.id == "CLE-LOGIN" })
        specs[index].notDerived = [DerivedOptOut(family: .tamper, why: "a test opts this flow out", location: SourceLocation(line: 1, column: 1))]
        let variants = Deriver.variants(of: specs, providers: ProviderRegistry.catalog)
        #expect(!variants.contains { $0.derivation?.parent == "CLE-LOGIN" && $0.derivation?.family == .tamper })
        #expect(variants.contains { $0.derivation?.parent == "CLE-LOGIN" && $0.derivation?.family == .answer }, "the other families stay")
        #expect(variants.contains { $0.derivation?.parent == "CLE-STATE-FRESH" })
    }

    /// The report schema's `derived.family` lists exactly the families: the one declaration
    /// (`DerivedFamily`) and the published schema cannot drift apart.
    @Test func theReportSchemaNamesEveryFamily() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../reports/flowcheck-report.schema.json").standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        let listed = "\"family\": {\"enum\": [" + DerivedFamily.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]}"
        #expect(text.contains(listed), "update reports/flowcheck-report.schema.json: \(listed)")
    }
}
