import FlowCheckCoreDriver
import FlowCheckExampleDriver
import FlowCheckProcessDriver
import FlowCheckProviders
import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec
import Foundation

extension FlowCheckCommand {
    /// A driver that could not be started or did not greet in time.
    struct DriverProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// The driver a `--driver` choice names: the command's own when none, an in-process one for
    /// `builtin:core` and `builtin:example`, else a driver process, probed for its `hello`.
    /// ``resolve(_:traceDirectory:)``, or the signal that came first: a signal while a driver
    /// is probed for its hello ends the wait at once (the probe is cancelled).
    func resolveUnlessInterrupted(_ choice: CommandLineOptions.DriverChoice?, interrupt: InterruptSignal) async -> Resolution {
        await withTaskGroup(of: Resolution.self) { group -> Resolution in
            group.addTask { .resolved(await self.resolve(choice)) }
            group.addTask { await interrupt.wait().map(Resolution.interrupted) ?? .cancelled }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
    }

    func resolve(_ choice: CommandLineOptions.DriverChoice?, traceDirectory: String? = nil) async -> Result<any FlowDriver, DriverProblem> {
        guard let choice else { return .success(driver) }
        switch choice.command {
        case "builtin:core": return .success(CoreSDKDriver())
        case "builtin:example": return .success(MiniMoltinDriver())
        default:
            do {
                return .success(try await ProcessDriver.probe(command: choice.command, label: choice.name, traceDirectory: traceDirectory.map { URL(fileURLWithPath: $0) }))
            } catch {
                return .failure(DriverProblem(description: "--driver\(choice.name.map { " " + $0 } ?? ""): \(error)"))
            }
        }
    }

    /// How probing a driver ended: with it (or why not), or with a signal first.
    enum Resolution: Sendable {
        case resolved(Result<any FlowDriver, DriverProblem>)
        case interrupted(Int32)
        case cancelled
    }

    /// `flowcheck matrix`: every selected flow through every driver, one table.
    func matrix(_ options: CommandLineOptions, console: Console, environment: Environment) async -> ExitCode {
        guard let loaded = Self.load(options.paths, console: console) else { return .usageOrInvalidSpec }
        let invalid = Self.invalidSpecs(loaded)
        for spec in invalid { console.err(ConsoleReport.invalid(spec)) }
        var specs = loaded.specs
        if let pattern = options.filter, let regex = try? LinearRegex(pattern) {
            specs = specs.filter { spec in
                if case .found = regex.search(spec.id) { return true }
                return false
            }
        }
        if specs.isEmpty {
            console.err("flowcheck: no flow to run in \(options.paths.joined(separator: " "))\(options.filter.map { " matching --filter \($0)" } ?? "")")
            return .usageOrInvalidSpec
        }
        var columns: [ConformanceMatrix.Column] = []
        environment.interrupt.handle()
        for choice in options.drivers {
            let name = choice.name ?? choice.command
            let driver: any FlowDriver
            let resolution = await resolveUnlessInterrupted(choice, interrupt: environment.interrupt)
            let resolved: Result<any FlowDriver, DriverProblem>
            switch resolution {
            case .resolved(let result): resolved = result
            case .interrupted(let signal):
                console.err("flowcheck: matrix interrupted by \(InterruptSignal.name(of: signal)) while starting \(name); nothing written")
                return .stopped(by: signal)
            case .cancelled:
                return .interrupted
            }
            switch resolved {
            case .success(let resolved): driver = resolved
            case .failure(let problem):
                // Its column says so, flow by flow; the other drivers' columns still stand.
                console.err("flowcheck: " + ControlCharacters.escaped(problem.description))
                driver = UnstartableDriver(name: choice.command, problem: problem.description)
            }
            var runnerOptions = FlowRunner.Options()
            runnerOptions.concurrency = options.jobs ?? Self.defaultJobs(for: driver)
            let runner = FlowRunner(driver: driver, options: runnerOptions)
            let (flows, signal) = await Self.runUntilInterrupted(runner, specs, interrupt: environment.interrupt) { _ in }
            if let signal {
                console.err("flowcheck: matrix interrupted by \(InterruptSignal.name(of: signal)) while running \(name); nothing written")
                return .stopped(by: signal)
            }
            let column = ConformanceMatrix.Column(name: name, command: choice.command, driver: driver.name, results: flows)
            console.out(ControlCharacters.escaped("\(name) (\(driver.name)): \(column.summary)"))
            columns.append(column)
        }
        let matrix = ConformanceMatrix(flows: specs.map { ($0.id, $0.title) }, columns: columns)
        var failed = false
        // A matrix of part of the suite never replaces the committed full one.
        var (markdownPath, jsonPath) = (options.markdownPath, options.matrixJSONPath)
        if let subset = SubsetReports.matrixRedirect(markdown: markdownPath, json: jsonPath, chosen: options.chosenReports, files: Set(loaded.specs.map(\.file) + loaded.invalidFiles), narrowed: options.filter != nil) {
            (markdownPath, jsonPath) = (subset.markdown, subset.json)
            console.err("flowcheck: " + ControlCharacters.escaped(subset.sentence))
        }
        for (path, text, name) in [(markdownPath, matrix.markdown, "matrix.md"), (jsonPath, matrix.json(startedAt: environment.now()), "matrix.json")] {
            do {
                try ReportWriter.write(text, to: path, defaultName: name)
            } catch {
                console.err("flowcheck: \(error)")
                failed = true
            }
        }
        if failed { return .harnessFailure }
        console.out("Matrix: \(markdownPath), \(jsonPath)")
        return invalid.isEmpty ? .passed : .usageOrInvalidSpec
    }
}

/// A driver process that did not start or greet: every flow is a harness error saying why.
struct UnstartableDriver: FlowDriver {
    let name: String
    let problem: String

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        throw DriverError(problem, party: .driverProtocol)
    }
}

extension FlowCheckCommand {
    /// Flows at once when `--jobs` is not given: the runner's default in process, and one more
    /// than the cores for a driver process. Each flow there is a process of its own, and at
    /// twice the cores their threads crowded each other enough to change which of two
    /// concurrent calls of a client with no shared renewal (authlib on MLT-SHARED-RENEWAL)
    /// found the token expired first: the same run's verdict changed from run to run.
    static func defaultJobs(for driver: any FlowDriver) -> Int {
        driver is ProcessDriver ? ProcessInfo.processInfo.activeProcessorCount + 1 : FlowRunner.Options.defaultConcurrency
    }
}
