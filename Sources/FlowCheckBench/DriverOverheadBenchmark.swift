import FlowCheckCoreDriver
import FlowCheckProcessDriver
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec

/// What the driver protocol costs: every Moltin flow of the suite, one at a time (so a figure is
/// a flow's own latency, not the machine's parallelism), in process with the SDK core and then
/// through each driver process; and a driver's bare start, `hello` and `stop`, the fixed cost a
/// process per flow adds.
struct DriverOverheadBenchmark {
    struct Figure {
        var name: String
        var flows: Int
        /// Best run's wall time per flow.
        var millisecondsPerFlow: Double
        /// A process's start + hello + stop alone (nil for the in-process driver).
        var startStopMilliseconds: Double?
    }

    let directory: String
    let commands: [String]
    let runs: Int

    func run() async throws(BenchError) -> [Figure] {
        let loaded: SpecLoader.Result
        do {
            loaded = try SpecLoader.standard.load(paths: [directory])
        } catch {
            throw .usage("\(error) (run from the package root, or pass --specs)")
        }
        let specs = loaded.specs.filter { $0.provider == .moltin }
        guard !specs.isEmpty else { throw .usage("no Moltin specs in \(directory)") }
        var figures = [Figure(name: "in process (SDK core)", flows: specs.count, millisecondsPerFlow: try await Self.time(CoreSDKDriver(), specs, runs: runs), startStopMilliseconds: nil)]
        for command in commands {
            let probeStart = ContinuousClock.now
            let driver: ProcessDriver
            do {
                driver = try await ProcessDriver.probe(command: command)
            } catch {
                throw .harness("\(error)")
            }
            let probe = Stopwatch.seconds(ContinuousClock.now - probeStart) * 1000
            figures.append(Figure(name: command, flows: specs.count, millisecondsPerFlow: try await Self.time(driver, specs, runs: runs), startStopMilliseconds: probe))
        }
        return figures
    }

    private static func time(_ driver: any FlowDriver, _ specs: [FlowSpec], runs: Int) async throws(BenchError) -> Double {
        var options = FlowRunner.Options()
        options.concurrency = 1
        let runner = FlowRunner(driver: driver, options: options)
        _ = await runner.run(specs)  // warm-up
        var best = Double.infinity
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            let flows = await runner.run(specs)
            let seconds = Stopwatch.seconds(ContinuousClock.now - start)
            try FlowVerdicts.requireAllPassed(flows)
            best = min(best, seconds)
        }
        return best * 1000 / Double(specs.count)
    }

    static func lines(_ figures: [Figure]) -> [String] {
        guard let base = figures.first else { return [] }
        return figures.map { figure in
            var line = "driver \(figure.name): \(Format.fixed(figure.millisecondsPerFlow, 1)) ms/flow (\(figure.flows) Moltin flows, one at a time)"
            if let startStop = figure.startStopMilliseconds {
                line += "; +\(Format.fixed(figure.millisecondsPerFlow - base.millisecondsPerFlow, 1)) ms/flow over in process; start + hello + stop alone \(Format.fixed(startStop, 1)) ms"
            }
            return line
        }
    }
}
