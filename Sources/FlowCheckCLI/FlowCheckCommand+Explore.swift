import FlowCheckReports
import Foundation
import FlowCheckExplore
import FlowCheckRunner
import FlowCheckSpec

/// `flowcheck explore`'s options.
public struct ExploreOptions: Sendable, Equatable {
    /// The providers to explore; empty: every provider with a model.
    public var providers: [String] = []
    /// Nil: a random seed, printed so the run can be replayed.
    public var seed: UInt64?
    public var runs = 200
    public var steps = 12
    public var out = "reports/explore"
    public var jobs: Int?
    /// `--budget`: no flow starts after this many seconds.
    public var budgetSeconds: Int?
    /// `--reach`: where the reach table (Markdown) is written.
    public var reachTable: String?

    /// The defaults.
    public init() {}
}

extension FlowCheckCommand {
    /// Runs `explore` and prints what it found: exit 0 nothing, 1 a finding, 3 a harness error.
    func explore(_ options: ExploreOptions, console: Console) async -> ExitCode {
        let seed = options.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let models = options.providers.isEmpty ? ExploreModels.all : ExploreModels.all.filter { options.providers.contains($0.provider.rawValue) }
        var settings = Explorer.Options(seed: seed, runs: options.runs, maxSteps: options.steps, models: models, outputDirectory: options.out)
        if let jobs = options.jobs { settings.concurrency = jobs }
        // A time budget is wall time by nature: the one clock explore reads.
        if let seconds = options.budgetSeconds { settings.deadline = ContinuousClock.now + .seconds(seconds) }
        let providers = models.map(\.provider.rawValue).joined(separator: ", ")
        console.out("explore: seed \(seed), \(options.runs) flows of at most \(options.steps) steps (\(providers))")
        if options.seed == nil {
            console.out("  replay: flowcheck explore --seed \(seed) --runs \(options.runs) --steps \(options.steps)" + options.providers.map { " --provider \($0)" }.joined())
        }
        let summary: Explorer.Summary
        do {
            summary = try await Explorer(driver: driver, options: settings).run()
        } catch {
            console.err("flowcheck: explore: \(error)")
            return .harnessFailure
        }
        for finding in summary.findings {
            console.out("✘ \(finding.id)  \(finding.stepCount) steps (shrunk from \(finding.originalStepCount))  \(finding.file)")
            console.out("    \(ControlCharacters.escaped(finding.message))")
            if !finding.confirmed { console.out("    (the written spec did not fail the same way when run again: a flaky flow)") }
        }
        for error in summary.harnessErrors { console.err("! harness error: \(ControlCharacters.escaped(error))") }
        if !summary.findings.isEmpty {
            console.out("Replay: flowcheck \(options.out)")
        }
        for reach in summary.reach {
            let reached = reach.counts.count - reach.unreached.count
            let states = reach.states.filter { $0.flows > 0 }.count
            console.out("reach: \(reach.provider) \(reached) of \(reach.counts.count) actions and perturbations, \(states) of \(reach.states.count) model states" + (reach.unreached.isEmpty ? "" : "; not reached: " + reach.unreached.joined(separator: ", ")))
        }
        if let path = options.reachTable {
            do {
                try ReportWriter.write(Self.reachTable(summary.reach), to: path, defaultName: "reach.md")
                console.out("Reach table: \(path)")
            } catch {
                console.err("flowcheck: explore: the reach table: \(error)")
                return .harnessFailure
            }
        }
        console.out("\(summary.flows) flows, \(summary.failedFlows) failed, \(summary.findings.count) finding\(summary.findings.count == 1 ? "" : "s")" + (summary.harnessErrors.isEmpty ? "" : ", \(summary.harnessErrors.count) harness errors"))
        if !summary.harnessErrors.isEmpty { return .harnessFailure }
        return summary.findings.isEmpty ? .passed : .failed
    }
}

extension FlowCheckCommand {
    /// The reach as Markdown: a table per model, each action or perturbation with the number of
    /// generated flows that reached it.
    static func reachTable(_ reach: [Explorer.Reach]) -> String {
        var out = "# What explore reached\n"
        for model in reach {
            out += "\n## \(model.provider)\n\n| action or perturbation | flows |\n|---|---|\n"
            for count in model.counts { out += "| `\(count.name)` | \(count.flows == 0 ? "**0**" : String(count.flows)) |\n" }
            guard !model.states.isEmpty else { continue }
            out += "\n| model state | flows |\n|---|---|\n"
            for count in model.states { out += "| `\(count.name)` | \(count.flows == 0 ? "**0**" : String(count.flows)) |\n" }
        }
        return out
    }
}
