import Foundation
import FlowCheckCoreDriver
import FlowCheckExplore

/// Times `flowcheck explore --seed 1 --runs N` over every model against our SDK core (issue 23:
/// 2000 flows in under 60 s in release on a 2-core machine). Findings go to a temporary folder
/// and fail the figure: a run that found something measured shrinking, not exploring.
struct ExploreBenchmark {
    struct Figure {
        var seconds: Double
        var cpuSeconds: Double
        var flows: Int
        var unreached: Int

        var line: String { "explore: \(Format.fixed(seconds, 2)) s (\(flows) flows, seed 1, every model; \(unreached) actions or perturbations not reached)" }
        var cpuLine: String { "explore cpu: \(Format.fixed(cpuSeconds, 2)) s" }
    }

    let runs: Int
    var concurrency: Int?

    /// - Throws: ``BenchError`` when explore finds something or cannot run.
    func run() async throws(BenchError) -> Figure {
        let out = NSTemporaryDirectory() + "flowcheck-bench-explore-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = Explorer.Options(seed: 1, runs: runs, outputDirectory: out)
        if let concurrency { options.concurrency = concurrency }
        let cpuBefore = ProcessCPU.seconds()
        let start = ContinuousClock.now
        let summary: Explorer.Summary
        do {
            summary = try await Explorer(driver: CoreSDKDriver(), options: options).run()
        } catch {
            throw .harness("explore: \(error)")
        }
        let seconds = Stopwatch.seconds(ContinuousClock.now - start)
        let cpu = ProcessCPU.seconds() - cpuBefore
        guard summary.findings.isEmpty, summary.harnessErrors.isEmpty else {
            throw .flowsFailed("explore found \(summary.findings.count) and hit \(summary.harnessErrors.count) harness errors: " + (summary.findings.map(\.message) + summary.harnessErrors).prefix(3).joined(separator: "; "))
        }
        return Figure(seconds: seconds, cpuSeconds: cpu, flows: summary.flows, unreached: summary.reach.reduce(0) { $0 + $1.unreached.count })
    }
}
