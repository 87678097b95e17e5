import FlowCheckCoreDriver
import FlowCheckRunner

/// Flows per second over many small generated flows: the per-flow cost of the runner (a fresh
/// server, store and SDK per flow) without the variety of the suite.
struct FlowThroughputBenchmark {
    struct Figure {
        var count: Int
        var seconds: Double
        /// CPU seconds the process used meanwhile, on all threads.
        var cpuSeconds: Double

        var perSecond: Double { Double(count) / seconds }
        var line: String { "flows/s (\(count) generated): \(Format.whole(perSecond)) flows/s" }
        var cpuLine: String { "cpu per flow (\(count) generated): \(Format.fixed(cpuSeconds / Double(count) * 1000, 2)) ms" }
    }

    /// What one more flow costs, between each two counts measured in a row (100 and 1,000 with
    /// `--flows 100,1000`): the difference of their times over the difference of their counts,
    /// so what every run pays once (threads, caches, the first server) drops out.
    static func marginalLines(_ figures: [Figure]) -> [String] {
        zip(figures, figures.dropFirst()).compactMap { small, large in
            guard large.count > small.count else { return nil }
            let flows = Double(large.count - small.count)
            let wall = (large.seconds - small.seconds) / flows * 1000
            let cpu = (large.cpuSeconds - small.cpuSeconds) / flows * 1000
            return "marginal per flow (\(small.count) to \(large.count) generated): \(Format.fixed(wall, 2)) ms wall, \(Format.fixed(cpu, 2)) ms cpu"
        }
    }

    let count: Int
    /// Flows at once; nil for the runner's default (four times the cores).
    var concurrency: Int?

    /// Streams the flows through the runner: each spec is made from text just before it runs
    /// (so loading is timed, as in `flowcheck`) and each result is checked and dropped as it
    /// arrives. Peak memory then shows what the harness costs per flow and whether flows leak,
    /// not how much a caller that keeps 10,000 results holds.
    /// - Throws: ``BenchError`` unless every flow passes.
    func run() async throws(BenchError) -> Figure {
        var options = FlowRunner.Options()
        if let concurrency { options.concurrency = max(1, concurrency) }
        let runner = FlowRunner(driver: CoreSDKDriver(), options: options)
        try GeneratedFlows.checkTemplate()
        var verdicts = FlowVerdicts.Tally()
        let cpuBefore = ProcessCPU.seconds()
        let (_, seconds) = await Stopwatch.time {
            await runner.stream((1...max(1, count)).lazy.compactMap(GeneratedFlows.spec)) { verdicts.add($0) }
        }
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore
        try verdicts.requireAllPassed()
        guard verdicts.total == max(1, count) else {
            throw .harness("\(verdicts.total) of \(count) generated flows ran")
        }
        return Figure(count: verdicts.total, seconds: seconds, cpuSeconds: cpuSeconds)
    }
}
