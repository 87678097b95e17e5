import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCoreDriver
import FlowCheckExplore
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec

/// A broken SDK with the provider explore should find its defect through.
struct BrokenCase: Sendable, CustomTestStringConvertible {
    let name: String
    let driver: any FlowDriver
    let provider: String
    /// The budget that finds it with seed 7: small and fixed, so the test stays deterministic
    /// and short (Clover's margin needs a refresh just inside it, which comes later).
    var runs = 120
    /// The longest shrunk finding accepted.
    var maxSteps = 8
    var testDescription: String { name }
}

private let brokenCases: [BrokenCase] = [
    BrokenCase(name: "Refresh Token on an empty store re-authenticates", driver: ExploreBrokenSDKs.moltinRefreshOnEmptyStoreReauths, provider: "moltin"),
    BrokenCase(name: "stale in-memory token after Delete Token and Auth", driver: ExploreBrokenSDKs.moltinStaleTokenAfterDelete, provider: "moltin"),
    BrokenCase(name: "credentials remembered once", driver: ExploreBrokenSDKs.moltinCredentialsRememberedOnce, provider: "moltin", runs: 400),
    BrokenCase(name: "Clover No OAuth: updateToken notifies before its write", driver: ExploreBrokenSDKs.cloverUpdateTokenNotifiesBeforeSave, provider: "clover", runs: 1500, maxSteps: 10),
]

private let specsFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("specs").path

private func temporaryFolder() -> String {
    NSTemporaryDirectory() + "flowcheck-explore-\(UUID().uuidString)"
}

private func models(_ provider: String) -> [AnyProviderModel] {
    ExploreModels.all.filter { $0.provider.rawValue == provider }
}

@Suite(.integration, .timeLimit(.minutes(20)))
struct ExploreBrokenSDKTests {
    @Test("The committed specs do not catch it", arguments: brokenCases)
    func committedSpecsMissIt(_ broken: BrokenCase) async throws {
        let specs = try SpecLoader.standard.load(paths: [specsFolder]).specs
        #expect(specs.count > 40)
        let results = await FlowRunner(driver: broken.driver).run(specs)
        let caught = results.filter { $0.status == .failed || $0.status == .error }.map(\.id)
        #expect(caught.isEmpty, "already caught by \(caught)")
    }

    @Test("Explore finds it, shrinks it to at most 8 steps (10 for a No OAuth flow, whose app logs in in 4), and the written spec fails the same way", arguments: brokenCases)
    func exploreFindsIt(_ broken: BrokenCase) async throws {
        let out = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let summary = try await Explorer(driver: broken.driver, options: .init(seed: 7, runs: broken.runs, models: models(broken.provider), outputDirectory: out)).run()
        let finding = try #require(summary.findings.first, "explore found nothing in \(summary.flows) flows")
        #expect(finding.stepCount <= broken.maxSteps, "shrunk to \(finding.stepCount) steps")
        #expect(finding.confirmed)
        // The written file is an ordinary spec: loaded and run as `flowcheck DIR` would.
        let loaded = try SpecLoader.standard.load(paths: [out])
        #expect(loaded.diagnostics.isEmpty)
        let spec = try #require(loaded.specs.first { $0.id == finding.id })
        let result = await FlowRunner(driver: broken.driver).run(spec)
        #expect(result.status == .failed)
        #expect(result.failures.first?.message == finding.message)
        // And our SDK core passes it: the finding is the defect, not the model.
        let core = await FlowRunner(driver: CoreSDKDriver()).run(spec)
        #expect(core.status == .passed, "our core fails the finding: \(core.failures.map(\.message)) \(core.harnessError?.message ?? "")\n\((try? String(contentsOfFile: spec.file, encoding: .utf8)) ?? spec.file)")
    }
}

@Suite(.integration, .timeLimit(.minutes(20)))
struct ExploreTests {
    /// A small, fixed budget: the long explorations are `flowcheck explore` in CI's own step
    /// and `flowcheck-bench`, never a test.
    @Test("Our SDK core: a hundred explored flows, a quarter for each model, find nothing")
    func coreFindsNothing() async throws {
        let out = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let summary = try await Explorer(driver: CoreSDKDriver(), options: .init(seed: 11, runs: 100, outputDirectory: out)).run()
        #expect(summary.findings.isEmpty, "\(summary.findings.map(\.message))")
        #expect(summary.failedFlows == 0)
        #expect(summary.harnessErrors.isEmpty)
        #expect(summary.flowsPerProvider == ["moltin": 25, "clover": 25, "clever": 25, "braintree": 25])
    }

    /// Issue 23's reach: with the generator steered toward what earlier flows have not
    /// reached, 2000 flows of seed 1 reach every action and perturbation of every model (every
    /// fault on every path, every tamper of the derived catalogue, every clock boundary).
    @Test("2000 flows of seed 1 reach every action and perturbation of every model, the same way twice")
    func everythingIsReached() {
        let explorer = Explorer(driver: CoreSDKDriver(), options: .init(seed: 1, runs: 2000))
        let reach = explorer.reach(planning: 2000)
        #expect(reach.map(\.provider) == ExploreModels.all.map(\.provider.rawValue))
        for model in reach {
            #expect(model.counts.count > 20, "\(model.provider): \(model.counts.count) names")
            #expect(model.unreached.isEmpty, "\(model.provider) never reached \(model.unreached)")
            // And every model state each model names (the stored token where the clock
            // stands, the login in progress, what is armed).
            #expect(model.states.count >= 10, "\(model.provider): \(model.states.count) states")
            let unvisited = model.states.filter { $0.flows == 0 }.map(\.name)
            #expect(unvisited.isEmpty, "\(model.provider) never passed through \(unvisited)")
        }
        #expect(reach == explorer.reach(planning: 2000))
    }

    @Test("A budget already spent starts no flow")
    func spentBudgetStartsNothing() async throws {
        let out = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = Explorer.Options(seed: 5, runs: 50, outputDirectory: out)
        options.deadline = ContinuousClock.now - .seconds(1)
        let summary = try await Explorer(driver: CoreSDKDriver(), options: options).run()
        #expect(summary.flows == 0)
        #expect(summary.flowsPerProvider.isEmpty)
        #expect(summary.reach.allSatisfy { $0.counts.allSatisfy { $0.flows == 0 } })
    }

    /// The seeds fix no refresh margin (MLT-EXPIRY-EDGE, CLV-FULL-4): an SDK that renews at
    /// expiry, or 2 or 5 minutes before it, conforms, and explore must find nothing in it.
    @Test("A conforming SDK with another refresh margin: explore finds nothing", arguments: [0.0, 120.0, 300.0])
    func anotherMarginConforms(_ margin: Double) async throws {
        let out = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let driver = CoreSDKDriver(name: "margin \(margin)", cloverRefreshMargin: margin, moltinRefreshMargin: margin)
        let summary = try await Explorer(driver: driver, options: .init(seed: 1, runs: 300, models: models("moltin") + models("clover"), outputDirectory: out)).run()
        #expect(summary.findings.isEmpty, "\(summary.findings.map(\.message))")
        #expect(summary.failedFlows == 0)
    }

    @Test("The same seed gives byte-identical spec files and the same summary")
    func sameSeedSameResult() async throws {
        let first = temporaryFolder(), second = temporaryFolder()
        defer { for folder in [first, second] { try? FileManager.default.removeItem(atPath: folder) } }
        func explore(_ out: String) async throws -> Explorer.Summary {
            try await Explorer(driver: ExploreBrokenSDKs.moltinStaleTokenAfterDelete, options: .init(seed: 3, runs: 300, models: models("moltin"), outputDirectory: out, concurrency: 2)).run()
        }
        let a = try await explore(first), b = try await explore(second)
        #expect(!a.findings.isEmpty)
        #expect(a.findings.map(\.message) == b.findings.map(\.message))
        #expect(a.findings.map(\.stepCount) == b.findings.map(\.stepCount))
        #expect(a.failedFlows == b.failedFlows)
        let files = try FileManager.default.contentsOfDirectory(atPath: first).sorted()
        #expect(files == (try FileManager.default.contentsOfDirectory(atPath: second).sorted()))
        for file in files {
            #expect(FileManager.default.contents(atPath: first + "/" + file) == FileManager.default.contents(atPath: second + "/" + file), "\(file) differs")
        }
        // Generation itself: the same seed and index, the same text; another seed, other flows.
        let explorer = Explorer(driver: CoreSDKDriver(), options: .init(seed: 3))
        #expect(explorer.specText(index: 5) == Explorer(driver: CoreSDKDriver(), options: .init(seed: 3)).specText(index: 5))
        #expect(explorer.specText(index: 5) != Explorer(driver: CoreSDKDriver(), options: .init(seed: 4)).specText(index: 5))
    }

    @Test("Every generated flow is a valid spec", arguments: [1, 2, 3])
    func generatedSpecsAreValid(_ seed: Int) {
        let explorer = Explorer(driver: CoreSDKDriver(), options: .init(seed: UInt64(seed), maxSteps: 20))
        for index in 0..<100 {
            let text = explorer.specText(index: index)
            guard case .valid = SpecLoader.standard.decode(Array(text.utf8), file: "gen.json") else {
                Issue.record("flow \(index) of seed \(seed) is not a valid spec:\n\(text)")
                return
            }
        }
    }
}
