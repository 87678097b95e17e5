import Foundation
import Testing
import FlowCheckExampleDriver
import FlowCheckRunner
import FlowCheckSpec

/// Another team's SDK under our specs: the example driver's own Moltin client passes every
/// Moltin spec, through the public driver protocol only.
@Suite(.timeLimit(.minutes(5)))
struct ExampleDriverTests {
    @Test func theExampleDriverPassesTheMoltinSpecs() async throws {
        // The Moltin catalogue (MLT-*) but for flows with a stalled server (FLT-STALL, and the
        // stall in MLT-RENEW-FAULTS): they need a request timeout on the flow's clock, which
        // this small client does not have.
        // MLT-SHARED-RENEWAL is left out too: this small client renews per call, with no renewal
        // shared between concurrent callers, and that flow catches it (below).
        let moltin = try SpecsEarnTheirPlaceTests.specs().filter { $0.id.hasPrefix("MLT-") }
        // Every file in specs/moltin, so a Moltin spec that failed to load cannot pass unseen.
        let files = try FileManager.default.contentsOfDirectory(atPath: SpecsEarnTheirPlaceTests.specsFolder + "/moltin").filter { $0.hasSuffix(".json") }
        #expect(moltin.count == files.count)
        let specs = moltin.filter { spec in
            spec.id != "MLT-SHARED-RENEWAL" && !spec.steps.contains { step in
                if case .fault(let fault)? = step.action { return fault.kind == "stall" }
                return false
            }
        }
        #expect(specs.count >= moltin.count - 2, "only the flows with a stall or concurrent calls are left out")
        let results = await FlowRunner(driver: MiniMoltinDriver()).run(specs)
        for result in results {
            #expect(result.status == .passed, "\(result.id): \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    @Test func theExampleDriverHasNoSharedRenewal() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "MLT-SHARED-RENEWAL" })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .failed, "\(result.status) \(result.errorMessage ?? "")")
    }

    @Test func itSaysSoWhenAskedForAnotherProvider() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.provider == .clover })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .error)
        #expect(result.errorMessage == "MiniMoltin speaks Moltin only, not clover")
    }
}
