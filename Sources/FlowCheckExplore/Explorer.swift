import Foundation
import FlowCheckProviders
import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec
import FlowCheckTestSupport

/// Generates random flows from provider models, runs them against a driver, and shrinks each
/// distinct failure to a small ordinary spec written to a folder.
///
/// Every flow is built as spec text and loaded with `SpecLoader.standard`, so an explored flow
/// is exactly what `flowcheck DIR` runs. Flow `n` of seed `s` depends only on `s` and `n`, and
/// findings are handled in flow order, so the same seed gives the same flows, files and summary.
public struct Explorer: Sendable {
    /// What to explore, and how much.
    public struct Options: Sendable {
        public var seed: UInt64
        /// Flows to generate in all, dealt to the models in turn.
        public var runs: Int
        /// Most actions in one flow.
        public var maxSteps: Int
        /// The models to draw flows from.
        public var models: [AnyProviderModel]
        /// Where the shrunk specs are written.
        public var outputDirectory: String
        /// Flows run at once.
        public var concurrency: Int
        /// Flows the shrinking of one finding may run.
        public var shrinkBudget: Int
        /// No flow starts after this instant (`--budget`): the run ends with the flows started
        /// by then, whatever `runs` says. Nil: `runs` alone bounds it.
        public var deadline: ContinuousClock.Instant?

        /// Options for `runs` flows of seed `seed` from `models` (every model by default).
        public init(seed: UInt64, runs: Int = 200, maxSteps: Int = 12, models: [AnyProviderModel] = ExploreModels.all, outputDirectory: String = "reports/explore", concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, shrinkBudget: Int = 400) {
            self.seed = seed
            self.runs = runs
            self.maxSteps = maxSteps
            self.models = models
            self.outputDirectory = outputDirectory
            self.concurrency = max(1, concurrency)
            self.shrinkBudget = shrinkBudget
        }
    }

    /// A failure explore found and shrank.
    public struct Finding: Sendable, Equatable {
        /// The spec file written (under the output folder).
        public var file: String
        public var id: String
        /// Steps of the shrunk spec.
        public var stepCount: Int
        /// Steps of the flow as first generated.
        public var originalStepCount: Int
        /// The first failed check of the shrunk spec, as `flowcheck` prints it.
        public var message: String
        /// The step that failed in the shrunk spec.
        public var step: Int
        /// Whether the written file, loaded back from disk and run, failed with the same message.
        public var confirmed: Bool
    }

    /// What a whole exploration found.
    public struct Summary: Sendable, Equatable {
        public var flows: Int
        /// Flows per provider, in model order.
        public var flowsPerProvider: [String: Int]
        /// Generated flows that failed (before deduplication).
        public var failedFlows: Int
        public var findings: [Finding]
        /// Flows the harness could not run, with why (a harness failure, never a finding).
        public var harnessErrors: [String]
        /// What the generated flows reached, model by model.
        public var reach: [Reach] = []
    }

    /// Every action and perturbation of one model, with how many generated flows reached it
    /// (used it at least once where it applied).
    public struct Reach: Sendable, Equatable {
        public struct Count: Sendable, Equatable {
            public var name: String
            public var flows: Int
        }
        public var provider: String
        public var counts: [Count]
        /// The model states the flows passed through, each with how many flows did.
        public var states: [Count] = []
        /// The names no generated flow reached.
        public var unreached: [String] { counts.filter { $0.flows == 0 }.map(\.name) }
    }

    /// Something explore itself cannot go on from.
    public struct ExploreError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public let driver: any FlowDriver
    public let options: Options

    /// An explorer running flows through `driver`.
    public init(driver: any FlowDriver, options: Options) {
        self.driver = driver
        self.options = options
    }

    /// The id of flow `index`: `EXP-MLT-<seed>-<index>`.
    public func flowID(model: AnyProviderModel, index: Int) -> String {
        "EXP-\(model.idPrefix)-\(options.seed)-\(index)"
    }

    /// Plans in flow order, each model steered toward what its earlier flows have not reached
    /// (``ProviderModel/generate(using:maxSteps:toward:)``): flow `index`'s plan depends on the
    /// seed and the plans before it, so the same seed gives the same flows.
    struct Planner {
        let options: Options
        private(set) var next = 0
        /// Per provider: each action's or perturbation's name, and the flows that reached it.
        private(set) var reached: [String: [String: Int]] = [:]
        /// Per provider: each model state's name, and the flows that passed through it.
        private(set) var visited: [String: [String: Int]] = [:]

        init(options: Options) {
            self.options = options
        }

        /// The next flow's model and plan.
        mutating func plan() -> (index: Int, model: AnyProviderModel, plan: OpaquePlan) {
            let index = next
            next += 1
            let model = options.models[index % options.models.count]
            let counts = reached[model.provider.rawValue] ?? [:]
            let unreached = Set(model.reachNames.filter { counts[$0] == nil })
            var random = SplitMix64.forFlow(seed: options.seed, index: index)
            let plan = model.generateBox(&random, options.maxSteps, unreached)
            for name in model.reachBox(plan) { reached[model.provider.rawValue, default: [:]][name, default: 0] += 1 }
            for name in model.statesBox(plan) { visited[model.provider.rawValue, default: [:]][name, default: 0] += 1 }
            return (index, model, plan)
        }

        /// The reach so far, model by model, every name the model has included.
        var reach: [Reach] {
            options.models.map { model in
                let counts = reached[model.provider.rawValue] ?? [:]
                let states = visited[model.provider.rawValue] ?? [:]
                return Reach(provider: model.provider.rawValue, counts: model.reachNames.map { Reach.Count(name: $0, flows: counts[$0] ?? 0) },
                             states: model.stateNames.map { Reach.Count(name: $0, flows: states[$0] ?? 0) })
            }
        }
    }

    /// The plan of flow `index` (planning the flows before it, which steer it).
    func plan(index: Int) -> (AnyProviderModel, OpaquePlan) {
        var planner = Planner(options: options)
        while true {
            let (number, model, plan) = planner.plan()
            if number == index { return (model, plan) }
        }
    }

    /// What the first `flows` flows reach, planned and not run (the reach a run of that many
    /// flows reports).
    public func reach(planning flows: Int) -> [Reach] {
        var planner = Planner(options: options)
        for _ in 0..<flows { _ = planner.plan() }
        return planner.reach
    }

    /// The spec text of flow `index` as generated (before any shrinking).
    public func specText(index: Int) -> String {
        let (model, plan) = plan(index: index)
        return model.renderBox(plan, flowID(model: model, index: index)).spec.pretty() + "\n"
    }

    /// Runs the exploration.
    /// - Throws: ``ExploreError`` when a model renders a spec the loader refuses (a bug in the
    ///   model, never the SDK's), or a finding cannot be written.
    public func run() async throws(ExploreError) -> Summary {
        guard !options.models.isEmpty else { throw ExploreError(description: "no provider model to explore") }
        var runnerOptions = FlowRunner.Options(concurrency: options.concurrency)
        runnerOptions.providers = ProviderRegistry.kits
        let runner = FlowRunner(driver: driver, options: runnerOptions)

        // Specs are made as the runner asks for them; a spec the loader refuses stops the run,
        // and none is made past the deadline.
        var invalid: String?
        var started = 0
        let deadline = options.deadline
        var planner = Planner(options: options)
        // The plans of flows still running or failed, for shrinking (a passed one is dropped).
        var plans: [Int: OpaquePlan] = [:]
        let specs = (0..<options.runs).lazy.prefix { _ in deadline.map { ContinuousClock.now < $0 } ?? true }.compactMap { _ -> FlowSpec? in
            let (index, model, plan) = planner.plan()
            started = index + 1
            plans[index] = plan
            let id = self.flowID(model: model, index: index)
            let text = model.renderBox(plan, id).spec.pretty()
            switch SpecLoader.standard.decode(Array(text.utf8), file: "\(id).json") {
            case .valid(let spec): return spec
            case .invalid(let problems):
                if invalid == nil { invalid = "the \(model.provider.rawValue) model wrote an invalid spec \(id): \(problems.map(\.description).joined(separator: "; "))\n\(text)" }
                return nil
            }
        }
        var failed: [(index: Int, result: FlowResult)] = []
        var errors: [(Int, String)] = []
        await runner.stream(specs) { result in
            guard let index = Self.index(of: result.id) else { return }
            if result.status != .failed { plans[index] = nil }
            switch result.status {
            case .failed: failed.append((index, result))
            case .error: errors.append((index, "\(result.id): \(result.errorMessage ?? "harness error")"))
            case .passed, .passedWithSkips, .skipped: break
            }
        }
        if let problem = invalid { throw ExploreError(description: problem) }
        failed.sort { $0.index < $1.index }
        errors.sort { $0.0 < $1.0 }

        var findings: [Finding] = []
        var seen = Set<String>()
        for (index, result) in failed {
            guard let signature = Self.signature(of: result), !seen.contains(signature) else { continue }
            seen.insert(signature)
            guard let plan = plans[index] else { continue }
            findings.append(try await shrink(index: index, plan: plan, signature: signature, runner: runner))
        }
        var perProvider: [String: Int] = [:]
        for index in 0..<started { perProvider[options.models[index % options.models.count].provider.rawValue, default: 0] += 1 }
        return Summary(flows: started, flowsPerProvider: perProvider, failedFlows: failed.count, findings: findings, harnessErrors: errors.map(\.1), reach: planner.reach)
    }

    /// What makes two failures the same: the failed check (up to its first `:`, so an invariant
    /// is named by its id) and the action of the step it failed in.
    static func signature(of result: FlowResult) -> String? {
        guard let failure = result.failures.first else { return nil }
        let check = failure.check.split(separator: ":", maxSplits: 1).first.map(String.init) ?? failure.check
        let action = result.steps.first { $0.number == failure.step }?.action ?? "(no action)"
        return "\(check) @ \(Self.actionName(action))"
    }

    /// The first words of a step's narrative (e.g. `The app calls products`), without values.
    private static func actionName(_ narrative: String) -> String {
        narrative.split(separator: " ").prefix(4).joined(separator: " ")
    }

    private static func index(of id: String) -> Int? {
        id.split(separator: "-").last.flatMap { Int($0) }
    }

    /// Shrinks flow `index` while it keeps failing with `signature`, writes it and confirms it.
    private func shrink(index: Int, plan original: OpaquePlan, signature: String, runner: FlowRunner) async throws(ExploreError) -> Finding {
        let model = options.models[index % options.models.count]
        let id = flowID(model: model, index: index)
        var current = original
        var budget = options.shrinkBudget
        var improved = true
        while improved, budget > 0 {
            improved = false
            for candidate in model.shrinkSteps(current) {
                guard budget > 0 else { break }
                budget -= 1
                if await failsAlike(model.renderBox(candidate, id), signature: signature, runner: runner) != nil {
                    current = candidate
                    improved = true
                    break
                }
            }
        }
        let rendered = model.renderBox(current, id)
        let text = rendered.spec.pretty() + "\n"
        let directory = options.outputDirectory
        let file = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/\(id).json"
        do {
            // The tool's one writer: parent folders made, the file replaced whole, the cause in words.
            try ReportWriter.write(text, to: file, defaultName: "\(id).json")
        } catch {
            throw ExploreError(description: "\(error)")
        }
        // The shrunk failure as it ran in memory, then again from the file, as `flowcheck` would.
        let inMemory = await failsAlike(rendered, signature: signature, runner: runner)
        var fromDisk: CheckFailure?
        if case .valid(let spec) = SpecLoader.standard.load(file: file) {
            let result = await runner.run(spec)
            if result.status == .failed { fromDisk = result.failures.first }
        }
        let shown = fromDisk ?? inMemory
        return Finding(
            file: file, id: id, stepCount: rendered.stepCount, originalStepCount: model.renderBox(original, id).stepCount,
            message: shown?.message ?? "(the shrunk spec no longer fails)", step: shown?.step ?? 0,
            confirmed: fromDisk != nil && fromDisk?.message == inMemory?.message
        )
    }

    /// The first failure of the rendered flow when it fails with `signature`, else nil.
    private func failsAlike(_ rendered: RenderedFlow, signature: String, runner: FlowRunner) async -> CheckFailure? {
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(rendered.spec.pretty().utf8), file: "shrink.json") else { return nil }
        let result = await runner.run(spec)
        guard result.status == .failed, Self.signature(of: result) == signature else { return nil }
        return result.failures.first
    }
}
