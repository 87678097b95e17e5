import FlowCheckProviders
import FlowCheckCoreDriver
import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// Times the committed suite as `flowcheck specs/` runs it: load every spec, derive its variants
/// (docs/derived-variants.md), run every flow and variant through our SDK core, render both
/// reports (in memory: the disk is not what is measured).
struct SuiteBenchmark {
    struct Figure {
        var seconds: Double
        /// CPU seconds of the best run, on all threads.
        var cpuSeconds: Double
        var flows: Int
        /// Of `flows`, the derived variants.
        var derived: Int
        var directory: String

        var line: String { "suite: \(Format.fixed(seconds, 2)) s (\(flows) flows, \(derived) of them derived variants, \(directory)/)" }
        var cpuLine: String { "suite cpu: \(Format.fixed(cpuSeconds, 2)) s" }
    }

    let directory: String
    /// Flows at once (`--jobs`); nil: the runner's default, four times the cores.
    var concurrency: Int? = nil
    /// Timed runs after the warm-up; the best one is reported.
    let runs: Int

    /// - Throws: ``BenchError`` when a spec is invalid or any flow does not pass, in any run.
    func run() async throws(BenchError) -> Figure {
        // The warm-up loads lazily bound symbols, FoundationNetworking's curl and the caches.
        var (flows, derived, _, _) = try await Self.timeOnce(directory, concurrency: concurrency)
        var best = Double.infinity
        var bestCPU = 0.0
        for _ in 0..<max(1, runs) {
            let (count, variants, seconds, cpu) = try await Self.timeOnce(directory, concurrency: concurrency)
            (flows, derived) = (count, variants)
            if seconds < best { (best, bestCPU) = (seconds, cpu) }
        }
        return Figure(seconds: best, cpuSeconds: bestCPU, flows: flows, derived: derived, directory: directory)
    }

    private static func timeOnce(_ directory: String, concurrency: Int?) async throws(BenchError) -> (flows: Int, derived: Int, seconds: Double, cpu: Double) {
        let cpuBefore = ProcessCPU.seconds()
        let start = ContinuousClock.now
        let loaded: SpecLoader.Result
        do {
            loaded = try SpecLoader.standard.load(paths: [directory])
        } catch {
            throw .usage("\(error) (run from the package root, or pass --specs)")
        }
        guard loaded.diagnostics.isEmpty else {
            throw .invalidSpecs("invalid specs in \(directory):\n" + loaded.diagnostics.map(\.description).joined(separator: "\n"))
        }
        guard !loaded.specs.isEmpty else { throw .usage("no specs in \(directory)") }
        let driver = CoreSDKDriver()
        let variants = Deriver.variants(of: loaded.specs, providers: ProviderRegistry.catalog)
        var options = FlowRunner.Options()
        if let concurrency { options.concurrency = concurrency }
        let flows = await FlowRunner(driver: driver, options: options).run(loaded.specs + variants)
        let run = RunResult(flows: flows, driverName: driver.name)
        // As `flowcheck` does: both documents at once.
        async let junit = JUnitReport.render(run)
        async let markdown = MarkdownReport.render(run)
        _ = await (junit, markdown)
        let seconds = Stopwatch.seconds(ContinuousClock.now - start)
        let cpu = ProcessCPU.seconds() - cpuBefore
        try FlowVerdicts.requireAllPassed(flows)
        return (flows.count, variants.count, seconds, cpu)
    }
}

/// The one check every benchmark makes on its flows: a figure for a run where flows failed
/// measures the wrong thing.
enum FlowVerdicts {
    /// - Throws: ``BenchError`` naming the first few flows that did not pass.
    static func requireAllPassed(_ flows: [FlowResult]) throws(BenchError) {
        var tally = Tally()
        flows.forEach { tally.add($0) }
        try tally.requireAllPassed()
    }

    /// Verdicts counted as results stream by, keeping only the first few that did not pass.
    struct Tally {
        private(set) var total = 0
        private var bad = 0
        private var named: [String] = []

        mutating func add(_ flow: FlowResult) {
            total += 1
            guard flow.status != .passed else { return }
            bad += 1
            guard named.count < 5 else { return }
            let why = flow.errorMessage ?? flow.failures.first.map { "step \($0.step): \($0.check): expected \($0.expected), got \($0.actual)" } ?? ""
            named.append("  \(flow.id) \(flow.status.rawValue): \(why)")
        }

        /// - Throws: ``BenchError`` naming the first few flows that did not pass.
        func requireAllPassed() throws(BenchError) {
            guard bad > 0 else { return }
            throw .flowsFailed("\(bad) of \(total) flows did not pass:\n" + named.joined(separator: "\n"))
        }
    }
}
