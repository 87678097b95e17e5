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

    let count: Int
    /// Flows at once; nil for the runner's default (the core count).
    var concurrency: Int?
    /// Flows per `FlowRunner.run` call; nil for one call with all of them, as `flowcheck` runs a
    /// suite. Smaller chunks keep only one chunk's specs and results alive, so peak memory shows
    /// what a flow leaves behind rather than what a caller keeps.
    var chunk: Int?

    /// Generates each chunk's flows (untimed), then times the runs.
    /// - Throws: ``BenchError`` unless every flow passes.
    func run() async throws(BenchError) -> Figure {
        var options = FlowRunner.Options()
        if let concurrency { options.concurrency = max(1, concurrency) }
        let runner = FlowRunner(driver: CoreSDKDriver(), options: options)
        let size = max(1, min(chunk ?? count, count))
        var seconds = 0.0
        var cpuSeconds = 0.0
        var ran = 0
        for start in stride(from: 1, through: count, by: size) {
            let specs = try GeneratedFlows.make(start..<min(start + size, count + 1))
            let cpuBefore = ProcessCPU.seconds()
            let (flows, elapsed) = await Stopwatch.time { await runner.run(specs) }
            cpuSeconds += ProcessCPU.seconds() - cpuBefore
            seconds += elapsed
            try FlowVerdicts.requireAllPassed(flows)
            ran += flows.count
        }
        return Figure(count: ran, seconds: seconds, cpuSeconds: cpuSeconds)
    }
}
