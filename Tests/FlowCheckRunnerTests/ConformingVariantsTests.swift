import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckRunner
import FlowCheckSpec

/// No false failure: every committed flow passes against each conforming variant of our SDK
/// core (`ConformingVariants`), one small edit each that a real client makes and the documents
/// allow. A check that fails one of them refuses something no requirement refuses.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ConformingVariantsTests {
    @Test(arguments: ConformingVariants.all)
    func everyFlowPasses(_ variant: ConformingVariants.Variant) async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        let results = await FlowRunner(driver: variant.driver).run(specs)
        #expect(results.count == specs.count)
        for result in results where result.status != .passed {
            Issue.record("\(result.id) against \"\(variant.name)\" (\(variant.why)): \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    /// Each variant says why it conforms, and no two share a name.
    @Test func everyVariantSaysWhy() {
        #expect(Set(ConformingVariants.all.map(\.name)).count == ConformingVariants.all.count)
        for variant in ConformingVariants.all {
            #expect(variant.why.count > 20, "\(variant.name): say which passage allows the edit")
        }
        #expect(ConformingVariants.all.count >= 12)
    }
}
