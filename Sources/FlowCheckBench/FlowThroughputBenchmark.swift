import Foundation
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

    /// Generates the flows (untimed), then times one run of all of them.
    /// - Throws: ``BenchError`` unless every flow passes.
    func run() async throws(BenchError) -> Figure {
        let specs = try GeneratedFlows.make(count)
        let cpuBefore = ProcessCPU.seconds()
        let (flows, seconds) = await Stopwatch.time {
            await FlowRunner(driver: CoreSDKDriver(), options: ProcessInfo.processInfo.environment["BENCH_JOBS"].flatMap(Int.init).map { FlowRunner.Options(concurrency: $0) } ?? FlowRunner.Options()).run(specs)
        }
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore
        try FlowVerdicts.requireAllPassed(flows)
        return Figure(count: flows.count, seconds: seconds, cpuSeconds: cpuSeconds)
    }
}
