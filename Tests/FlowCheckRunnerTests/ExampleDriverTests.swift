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
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { spec in
            spec.id.hasPrefix("MLT-") && !spec.steps.contains { step in
                if case .fault(let fault)? = step.action { return fault.kind == "stall" }
                return false
            }
        }
        #expect(specs.count == 11)
        let results = await FlowRunner(driver: MiniMoltinDriver()).run(specs)
        for result in results {
            #expect(result.status == .passed, "\(result.id): \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    @Test func itSaysSoWhenAskedForAnotherProvider() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.provider == .clover })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .error)
        #expect(result.errorMessage == "MiniMoltin speaks Moltin only, not clover")
    }
}
