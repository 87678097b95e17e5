import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSpec

/// Each invariant earns its place: a broken SDK that every committed spec's own expectations
/// let pass, and every other invariant too, fails a flow with that invariant's id at the step
/// where the defect shows.
///
/// Where no committed flow walks the defect's path, the flow is one of `InvariantFlows/`:
/// steps with expectations that say nothing of what the invariant judges.
@Suite(.integration, .timeLimit(.minutes(20)))
struct InvariantsCatchTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let invariant: Invariant
        let driver: any FlowDriver
        /// A committed flow id, or the name of a file in `InvariantFlows/`.
        let flow: String
        /// The step the invariant fails.
        let step: Int
        var testDescription: String { "\(invariant.rawValue): \(driver.name)" }
    }

    static let cases: [Case] = [
        Case(invariant: .leak, driver: InvariantBrokenVariants.errorQuotesRequest, flow: "MLT-BADAUTH", step: 1),
        Case(invariant: .expired, driver: InvariantBrokenVariants.bearerOnEverything, flow: "MLT-EXPIRY-EDGE", step: 4),
        Case(invariant: .secretWire, driver: InvariantBrokenVariants.appSecretAfterUpdate, flow: "CLV-NONE-2", step: 8),
        Case(invariant: .keep, driver: InvariantBrokenVariants.logoutOnMerchant5xx, flow: "keep-merchant-5xx", step: 5),
        Case(invariant: .dismiss, driver: InvariantBrokenVariants.noDismissOnRefusedCode, flow: "dismiss-refused-code", step: 4),
        Case(invariant: .store, driver: InvariantBrokenVariants.deleteKeepsBackup, flow: "MLT-DELETE", step: 2),
        Case(invariant: .random, driver: InvariantBrokenVariants.counterPrefixedNonces, flow: "CLE-STATE-FRESH", step: 2),
        Case(invariant: .origin, driver: InvariantBrokenVariants.telemetryBeacon, flow: "MLT-PRODUCTS", step: 2),
        Case(invariant: .retryAfter, driver: InvariantBrokenVariants.retriesAtOnce, flow: "MLT-RATELIMIT", step: 3),
    ]

    static let flowsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("InvariantFlows")

    /// The committed specs and the invariant flows.
    static func allSpecs() throws -> [FlowSpec] {
        let loaded = try SpecLoader.standard.load(paths: [SpecsEarnTheirPlaceTests.specsFolder, flowsFolder.path])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        return loaded.specs
    }

    static func run(_ specs: [FlowSpec], _ driver: any FlowDriver, invariants: Set<Invariant>) async -> [FlowResult] {
        var options = FlowRunner.Options()
        options.invariants = invariants
        return await FlowRunner(driver: driver, options: options).run(specs)
    }

    @Test(arguments: cases)
    func onlyThisInvariantCatchesIt(_ c: Case) async throws {
        let specs = try Self.allSpecs()
        let flowSpec = try #require(specs.first { $0.id == c.flow || URL(fileURLWithPath: $0.file).deletingPathExtension().lastPathComponent == c.flow }, "no flow \(c.flow)")
        // Every other invariant, and every hand-written expectation of every flow, let it pass.
        let others = Set(Invariant.allCases).subtracting([c.invariant])
        for result in await Self.run(specs, c.driver, invariants: others) {
            #expect(result.status == .passed || result.status == .passedWithSkips, "\(result.id) caught \(c.driver.name) without \(c.invariant.rawValue): \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
        // The invariant fails the flow, at the step the defect shows.
        let caught = try #require(await Self.run([flowSpec], c.driver, invariants: [c.invariant]).first)
        #expect(caught.status == .failed, "\(caught.id): \(caught.errorMessage ?? "passed")")
        let failure = try #require(caught.failures.first)
        #expect(failure.check == c.invariant.rawValue, "\(failure.message)")
        #expect(failure.step == c.step, "\(failure.message)")
        #expect(failure.line == flowSpec.steps[c.step - 1].location.line)
    }

    @Test func everyInvariantHasItsBrokenSDK() {
        #expect(Set(Self.cases.map(\.invariant)) == Set(Invariant.allCases))
    }

    @Test func originCatchesALookalikeLoopbackHost() async throws {
        let specs = try Self.allSpecs().filter { $0.id == "INV-ORIGIN-LOOKALIKE" }
        let result = try #require(await Self.run(specs, InvariantBrokenVariants.lookalikeLoopback, invariants: [.origin]).first)
        let failure = try #require(result.failures.first { $0.check == Invariant.origin.rawValue })
        #expect(failure.step == 1)
        #expect(failure.actual.contains("127.0.0.1.connect.example.com"))
        let clean = try #require(await Self.run(specs, CoreSDKDriver(), invariants: Set(Invariant.allCases)).first)
        #expect(clean.status == .passed, "\(clean.failures.map(\.message))")
    }

    @Test func theInvariantFlowsPassAgainstTheSDKCore() async throws {
        let loaded = try SpecLoader.standard.load(paths: [Self.flowsFolder.path])
        #expect(loaded.specs.count == 3)
        for result in await FlowRunner(driver: CoreSDKDriver()).run(loaded.specs) {
            #expect(result.status == .passed, "\(result.id): \(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        }
    }

    /// Masking is for display: the verdicts are the same without it, and a secret in an error
    /// message fails the flow whether or not the report then masks it.
    @Test func maskingChangesNoVerdict() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        var unmasked = FlowRunner.Options()
        unmasked.masking = false
        for driver in [CoreSDKDriver() as any FlowDriver, InvariantBrokenVariants.errorQuotesRequest] {
            let masked = await FlowRunner(driver: driver).run(specs)
            let plain = await FlowRunner(driver: driver, options: unmasked).run(specs)
            #expect(masked.map { "\($0.id) \($0.status)" } == plain.map { "\($0.id) \($0.status)" }, "\(driver.name)")
            #expect(masked.map { $0.failures.map(\.check) } == plain.map { $0.failures.map(\.check) }, "\(driver.name)")
        }
        let leaked = await FlowRunner(driver: InvariantBrokenVariants.errorQuotesRequest).run(specs.filter { $0.id == "MLT-BADAUTH" })
        let failure = try #require(leaked.first?.failures.first)
        #expect(failure.check == "INV-LEAK")
        #expect(!failure.actual.contains("sk-"), "the report masks the leaked secret: \(failure.actual)")
        #expect(failure.actual.contains("‹redacted›"))
    }

    @Test func optOutsAreReported() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "CLV-NONE-1" }
        let result = try #require(await FlowRunner(driver: CoreSDKDriver()).run(specs).first)
        #expect(result.status == .passed)
        #expect(result.optOuts.map(\.invariant) == ["INV-EXPIRED"])
        #expect(result.optOuts.first?.used == true, "the SDK does send the expired token the app gave it")
        #expect(result.optOuts.first?.why.contains("No OAuth") == true)
    }

    @Test func notCheckedInvariantsSayWhy() async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs().filter { $0.id == "MLT-AUTH" }
        // The tutorial's client keeps its token in memory; the SDK core's store is a folder.
        let memory = try #require(await FlowRunner(driver: TutorialMoltinDriver()).run(specs).first)
        let files = try #require(await FlowRunner(driver: CoreSDKDriver()).run(specs).first)
        #expect(memory.invariantsNotChecked.contains { $0.hasPrefix("INV-STORE") && $0.contains("not file-backed") }, "\(memory.invariantsNotChecked)")
        #expect(files.invariantsNotChecked.isEmpty)
    }
}
