import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI
import FlowCheckExampleDriver
import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// Another team's SDK under our specs: the example driver's own Moltin client passes every
/// Moltin spec, through the public driver protocol only.
@Suite(.integration, .timeLimit(.minutes(20)))
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
            // Its client keeps the token in memory: the store-file checks cannot be made, and
            // say so (below); everything else must hold.
            // Nor can it crash its store mid-write: the store-crash flows are skipped from their
            // crash on.
            let wanted: FlowResult.Status = ["MLT-STORE-FILES", "MLT-STORE-CRASH", "MLT-STORE-CRASH-RENEW"].contains(result.id) ? .passedWithSkips : .passed
            #expect(result.status == wanted, "\(result.id): \(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    /// A store with no files: its storeFiles checks are skipped with the reason, in every
    /// report, and the flow is never counted as a plain pass.
    @Test func storeFileChecksOnAnInMemoryStoreAreSkippedNotPassed() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "MLT-STORE-FILES" })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .passedWithSkips)
        #expect(result.failures.isEmpty)
        #expect(result.skips.map(\.check) == ["storeFiles.ownerOnly", "storeFiles.noTemporaryFiles", "storeFiles.ownerOnly", "storeFiles.noTemporaryFiles", "storeFiles.replacedByRename", "storeFiles.ownerOnly", "storeFiles.noTemporaryFiles", "storeFiles.replacedByRename"])
        #expect(result.skips.allSatisfy { $0.reason.contains("not file-backed") })
        #expect(result.steps.map(\.status) == [.skipped, .skipped, .passed, .skipped])
        let run = RunResult(flows: [result], driverName: "MiniMoltin")
        #expect(run.passed == 0 && run.passedWithSkips == 1 && run.failed == 0)
        let junit = JUnitReport.render(run)
        #expect(junit.contains("skipped=\"1\""))
        #expect(junit.contains("<skipped message=\"step 1: storeFiles.ownerOnly skipped: the driver&apos;s token store is not file-backed") || junit.contains("<skipped message=\"step 1: storeFiles.ownerOnly skipped: the driver's token store is not file-backed"), "\(junit)")
        let markdown = MarkdownReport.render(run)
        #expect(markdown.contains("0 passed, 1 passed with skipped checks, 0 failed"))
        #expect(markdown.contains("Outcome: ⏭️ passed with skipped checks"))
        #expect(ConsoleReport.line(result).hasPrefix("⏭ MLT-STORE-FILES"))
        #expect(GitHubAnnotations.render(run).first?.hasPrefix("::warning file=") == true)
    }

    /// A driver that cannot interrupt its store: the crash step is skipped with the reason, the
    /// steps that judge what the crash left are not run, and the flow is never a plain pass.
    @Test func aStoreCrashTheDriverCannotMakeIsSkippedNotPassed() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "MLT-STORE-CRASH" })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .passedWithSkips, "\(result.status) \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        #expect(result.failures.isEmpty)
        #expect(result.skips.map(\.check) == ["crashStore.nextWrite"])
        #expect(result.skips.first?.reason == "the driver cannot interrupt its token store's writes; steps 3–6, which judge what the crash left, were not run")
        #expect(result.steps.map(\.status) == [.passed, .skipped, .notRun, .notRun, .notRun, .notRun])
    }

    @Test func theExampleDriverHasNoSharedRenewal() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.id == "MLT-SHARED-RENEWAL" })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        #expect(result.status == .failed, "\(result.status) \(result.errorMessage ?? "")")
    }

    @Test func itSaysSoWhenAskedForAnotherProvider() async throws {
        let spec = try #require(try SpecsEarnTheirPlaceTests.specs().first { $0.provider == .clover })
        let result = await FlowRunner(driver: MiniMoltinDriver()).run(spec)
        // Not run, with the reason: never an error of the harness, never a pass.
        #expect(result.status == .skipped)
        #expect(result.skips.map(\.reason) == ["MiniMoltin speaks Moltin only, not clover"])
        #expect(result.steps.allSatisfy { $0.status == .notRun })
    }
}
