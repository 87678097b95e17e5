import Foundation
import FlowCheckProviders
import FlowCheckCoreDriver
import FlowCheckFakeServer
import FlowCheckReports
import FlowCheckRunner
import FlowCheckServe
import FlowCheckSpec

/// The `flowcheck` command as a library: parse, load, run, report, and decide the exit code.
/// It never prints, exits or reads the environment itself: the executable hands it sinks for
/// text and a description of where it runs.
public struct FlowCheckCommand: Sendable {
    /// Where console text goes. The executable prints it; tests collect it.
    public struct Console: Sendable {
        public var out: @Sendable (String) -> Void
        public var err: @Sendable (String) -> Void
        /// A transient line (the live progress on a terminal); nil when there is no terminal.
        public var progress: (@Sendable (String) -> Void)?

        public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, progress: (@Sendable (String) -> Void)? = nil) {
            self.out = out
            self.err = err
            self.progress = progress
        }
    }

    /// What the executable knows about where it runs (only the entry point reads the process
    /// environment).
    public struct Environment: Sendable {
        /// `GITHUB_ACTIONS=true`: print workflow annotations.
        public var githubActions: Bool
        /// `GITHUB_STEP_SUMMARY`: a file to append the Markdown summary to.
        public var stepSummaryPath: String?
        /// Colour is allowed (a terminal, and no `NO_COLOR`).
        public var colour: Bool
        /// The wall clock, for `serve` only: flows run on a virtual clock.
        public var now: @Sendable () -> Date
        /// The first SIGINT or SIGTERM: it stops a run (no flow starts after it, running
        /// flows are cancelled, the reports say so) and ends `serve`.
        public var interrupt: InterruptSignal

        public init(githubActions: Bool = false, stepSummaryPath: String? = nil, colour: Bool = false, now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 0) }, interrupt: InterruptSignal = InterruptSignal()) {
            self.githubActions = githubActions
            self.stepSummaryPath = stepSummaryPath
            self.colour = colour
            self.now = now
            self.interrupt = interrupt
        }
    }

    /// Exit codes, as docs/reports.md documents them.
    public enum ExitCode: Int32, Sendable {
        case passed = 0
        case failed = 1
        case usageOrInvalidSpec = 2
        case harnessFailure = 3
        /// Stopped by SIGINT (128 + 2), as a shell reports a process Ctrl-C ended.
        case interrupted = 130
        /// Stopped by SIGTERM (128 + 15).
        case terminated = 143
        /// Stopped by SIGHUP (128 + 1): the terminal closed, or a supervisor hung up.
        case hungUp = 129

        /// The code of a run a signal stopped: 128 + the signal, as a shell reports it.
        static func stopped(by signal: Int32) -> ExitCode {
            switch signal {
            case SIGTERM: return .terminated
            case SIGHUP: return .hungUp
            default: return .interrupted
            }
        }
    }

    public let driver: any FlowDriver
    /// Told of every secret each flow's fake issued (tokens, codes), for tests that scan what
    /// the command printed and wrote for them; see ``FlowRunner/Options/issuedSecretsObserver``.
    var issuedSecretsObserver: (@Sendable ([String]) -> Void)?

    public init(driver: any FlowDriver = CoreSDKDriver()) {
        self.driver = driver
    }

    /// Runs the command line `arguments` (without the program name).
    public func run(_ arguments: [String], console: Console, environment: Environment = Environment()) async -> ExitCode {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments)
            if !options.help && !options.version { try OptionChecks.check(options) }
        } catch {
            // A value quoted back (a provider name, a path) may hold control or invisible
            // characters: shown escaped, as everywhere else the tool prints user text.
            // The mistake, then the synopsis: the whole help (a hundred lines) would push the
            // one line that matters off the screen.
            console.err("flowcheck: " + ControlCharacters.escaped("\(error)") + "\n\n\(CommandLineOptions.synopsis)\n\n`flowcheck --help` describes every option.")
            return .usageOrInvalidSpec
        }
        if options.help {
            console.out(CommandLineOptions.usage)
            return .passed
        }
        if options.version {
            console.out("flowcheck \(ToolVersion.current)")
            return .passed
        }
        // What the command will write, checked before it starts: never found out after a run.
        do {
            try OptionChecks.checkOutputs(options)
        } catch {
            console.err("flowcheck: \(error)")
            return .usageOrInvalidSpec
        }
        switch options.command {
        case .serve:
            environment.interrupt.handle()
            return await serve(options, console: console, environment: environment)
        case .validate: return validate(options, console: console, environment: environment)
        case .run:
            return await runFlows(options, arguments: arguments, console: console, environment: environment)
        case .explore: return await explore(options.explore, console: console)
        case .matrix: return await matrix(options, console: console, environment: environment)
        case .schema:
            // Printed whole, with no trailing line of its own: the committed file is this output.
            console.out(String(SpecSchema.text(providers: ProviderRegistry.catalog, requirements: RequirementCatalogue.ids).dropLast()))
            return .passed
        }
    }

    /// Every spec under `paths`; nil (said on the console) when a path does not exist.
    static func load(_ paths: [String], console: Console) -> SpecLoader.Result? {
        do {
            return try SpecLoader.standard.load(paths: paths)
        } catch {
            console.err("flowcheck: \(error)")
            return nil
        }
    }

    // MARK: - validate

    private func validate(_ options: CommandLineOptions, console: Console, environment: Environment) -> ExitCode {
        guard let loaded = Self.load(options.paths, console: console) else { return .usageOrInvalidSpec }
        let invalid = Self.invalidSpecs(loaded)
        report(invalid: invalid, console: console, environment: environment)
        reportWarnings(loaded, console: console)
        let total = loaded.specs.count + invalid.count
        console.out("\(loaded.specs.count) of \(total) spec\(total == 1 ? "" : "s") valid")
        if total == 0 {
            console.err("flowcheck: no spec files (*.json) found in \(options.paths.joined(separator: " "))")
            return .usageOrInvalidSpec
        }
        return invalid.isEmpty ? .passed : .usageOrInvalidSpec
    }

    private func report(invalid: [InvalidSpec], console: Console, environment: Environment) {
        for spec in invalid {
            console.err(ConsoleReport.invalid(spec))
        }
        if environment.githubActions {
            for line in GitHubAnnotations.render(invalid: invalid) { console.out(line) }
        }
    }

    /// The loader's warnings, on stderr: they never fail a run.
    private func reportWarnings(_ loaded: SpecLoader.Result, console: Console) {
        for warning in loaded.warnings { console.err(ControlCharacters.escaped(warning.description)) }
    }

    // MARK: - run

    /// - Parameter arguments: the command line as given, for the baseline's header.
    private func runFlows(_ options: CommandLineOptions, arguments: [String], console: Console, environment: Environment) async -> ExitCode {
        guard let loaded = Self.load(options.paths, console: console) else { return .usageOrInvalidSpec }
        reportWarnings(loaded, console: console)
        let baseline: Baseline?
        switch Self.loadBaseline(options.baselinePath, loaded: loaded) {
        case .success(let read): baseline = read
        case .failure(let problem):
            console.err("flowcheck: " + ControlCharacters.escaped(problem.description))
            return .usageOrInvalidSpec
        }
        let baselined = baseline?.reasons ?? [:]
        let startedAt = environment.now()
        let json = options.format == .json
        var specs = loaded.specs
        var leftOut: [JSONReport.SkippedFlow] = []
        // The variants derived from the written flows (docs/derived-variants.md) go with their
        // flow: they run when it does, or when --filter names them.
        let variants = options.noDerived ? [] : Deriver.variants(of: loaded.specs, providers: ProviderRegistry.catalog)
        var namedVariants: [FlowSpec] = []
        if let pattern = options.filter, let regex = try? LinearRegex(pattern) {
            var kept: [FlowSpec] = []
            for spec in specs + variants {
                switch regex.search(spec.id) {
                case .found: spec.derivation == nil ? kept.append(spec) : namedVariants.append(spec)
                case .notFound: break
                case .gaveUp(let steps):
                    console.err("flowcheck: --filter \(pattern) gave up on the id \(spec.id) after \(steps) steps")
                    return .usageOrInvalidSpec
                }
            }
            leftOut += Self.left(specs, kept: kept, .filter(pattern: pattern))
            specs = kept
            if specs.isEmpty && namedVariants.isEmpty && loaded.invalidFiles.isEmpty {
                console.err("flowcheck: no flow id matches --filter \(pattern)")
                return .usageOrInvalidSpec
            }
        }
        if let shard = options.shard {
            let kept = Self.shard(specs, index: shard.index, count: shard.count)
            leftOut += Self.left(specs, kept: kept, .shard(index: shard.index, count: shard.count))
            specs = kept
        }
        let selected = Set(specs.map(\.id))
        let named = Set(namedVariants.map(\.id))
        let running = variants.filter { selected.contains($0.derivation?.parent ?? "") || named.contains($0.id) }
        specs += running
        let skipped = leftOut.count
        let invalid = Self.invalidSpecs(loaded)
        if options.list {
            report(invalid: invalid, console: console, environment: Environment())
            if options.requirements {
                // The written flows, as the report's matrix has them: a derived variant covers
                // its rule's requirements in the derived table, not here.
                console.out(ControlCharacters.escaped(MarkdownReport.coverage(CoverageMatrix(requirements: Self.catalogue(with: loaded.teamRequirements), specs: specs.filter { $0.derivation == nil }))))
                return invalid.isEmpty ? .passed : .usageOrInvalidSpec
            }
            for spec in specs where options.derived == (spec.derivation != nil) {
                if let derivation = spec.derivation {
                    console.out(ControlCharacters.escaped("\(spec.id)  \(derivation.rule.id)  \(derivation.description)"))
                    continue
                }
                let redactor = Redactor(secrets: spec.fixture.secrets)
                console.out(ControlCharacters.escaped(redactor.scrub("\(spec.id)  \(spec.title)  (\(spec.file))")))
            }
            return invalid.isEmpty ? .passed : .usageOrInvalidSpec
        }
        if loaded.specs.isEmpty && invalid.isEmpty {
            console.err("flowcheck: no spec files (*.json) found in \(options.paths.joined(separator: " "))")
            return .usageOrInvalidSpec
        }
        for spec in invalid { console.err(ConsoleReport.invalid(spec)) }

        // From here a signal stops the run cleanly, the driver's hello probe included (it can
        // take a driver's whole hello deadline); before (while loading) it exits at once.
        environment.interrupt.handle()
        let driver: any FlowDriver
        let driverName = options.drivers.first?.name ?? options.drivers.first?.command ?? "driver"
        // A signal during the probe: no flow runs, and the reports say every one was not run.
        var interruptedBeforeRun: Int32?
        switch await resolveUnlessInterrupted(options.drivers.first, interrupt: environment.interrupt) {
        case .resolved(.success(let chosen)): driver = chosen
        case .resolved(.failure(let problem)):
            // Still a run: every selected flow is a harness error naming the cause, in every
            // report and the JSON document, so CI shows why nothing was checked (exit 3).
            console.err("flowcheck: " + ControlCharacters.escaped(problem.description))
            driver = UnstartableDriver(name: driverName, problem: problem.description)
        case .interrupted(let signal):
            interruptedBeforeRun = signal
            driver = UnstartableDriver(name: driverName, problem: "interrupted by \(InterruptSignal.name(of: signal)) while the driver was started")
        case .cancelled:
            interruptedBeforeRun = SIGINT
            driver = UnstartableDriver(name: driverName, problem: "cancelled while the driver was started")
        }
        var runnerOptions = FlowRunner.Options()
        runnerOptions.concurrency = options.jobs ?? Self.defaultJobs(for: driver)
        // Said only when --jobs asked for more: the default (4 × cores) is no one's request.
        if driver.sharesProcessState, let jobs = options.jobs, jobs > 1 {
            console.err("flowcheck: " + ControlCharacters.escaped("the driver \(driver.name) keeps process-wide state (sharesProcessState), so its flows run one at a time, not \(runnerOptions.concurrency) at once"))
        }
        runnerOptions.issuedSecretsObserver = issuedSecretsObserver
        let total = specs.count
        let done = Locked(0)
        let colour = environment.colour
        let progress = json ? nil : console.progress
        progress?("[0/\(total)] running")
        // Temporary report files a killed run left behind go before anything is written.
        for path in [options.junitPath, options.markdownPath] { ReportWriter.removeStaleTemporaryFiles(for: path) }
        let runner = FlowRunner(driver: driver, options: runnerOptions)
        let onFinish: @Sendable (FlowResult) -> Void = { flow in
            let finished = done.withLock { count in
                count += 1
                return count
            }
            if json { return }
            progress?("")
            // A derived variant is named only when it did not pass; the closing line counts them.
            // Flows not run are listed after the run, one line per reason (ConsoleReport.notRun).
            if flow.status != .skipped, flow.derivation == nil || flow.status != .passed {
                console.out(ConsoleReport.line(flow, colour: colour, baselined: RunResult.baselineReason(flow, baselined: baselined)))
            }
            if finished < total { progress?("[\(finished)/\(total)] running") }
        }
        let flows: [FlowResult]
        let signal: Int32?
        if let interruptedBeforeRun {
            (flows, signal) = ([], interruptedBeforeRun)
        } else {
            (flows, signal) = await Self.runUntilInterrupted(runner, specs, interrupt: environment.interrupt, onFinish: onFinish)
        }
        progress?("")
        let interruption = signal.map { signal in
            let finished = Set(flows.map(\.id))
            return RunInterruption(signal: InterruptSignal.name(of: signal), notRun: specs.map(\.id).filter { !finished.contains($0) })
        }
        let run = RunResult(flows: flows, invalidSpecs: invalid, driverName: driver.name, interruption: interruption, baselined: baselined)

        var reportFailed = false
        // A run of fewer flows than the reports at the default paths hold (one spec, --filter,
        // --shard, --no-derived) never replaces them: the committed full report stays as it is.
        var (junitPath, markdownPath) = (options.junitPath, options.markdownPath)
        // An interrupted run is part of one too: its reports go beside the full run's.
        if let subset = SubsetReports.redirect(junit: junitPath, markdown: markdownPath, chosen: options.chosenReports, files: Set(loaded.specs.map(\.file) + loaded.invalidFiles), narrowed: options.filter != nil || options.shard != nil || options.noDerived, interrupted: interruption != nil) {
            (junitPath, markdownPath) = (subset.junit, subset.markdown)
            console.err("flowcheck: " + ControlCharacters.escaped(subset.sentence))
        }
        // The two documents are rendered at once: each is a pass over every flow of the run.
        let (noDerived, writtenSpecs) = (options.noDerived, loaded.specs)
        async let junit = JUnitReport.render(run)
        let catalogue = Self.catalogue(with: loaded.teamRequirements)
        async let markdown = MarkdownReport.render(run, coverage: CoverageMatrix(requirements: catalogue, results: flows.filter { $0.derivation == nil }), derived: noDerived ? nil : DerivedCoverage(results: flows, specs: writtenSpecs, providers: ProviderRegistry.catalog))
        for (path, text, name) in [(junitPath, await junit, "junit.xml"), (markdownPath, await markdown, "flowcheck.md")] {
            do {
                try ReportWriter.write(text, to: path, defaultName: name)
            } catch {
                console.err("flowcheck: \(error)")
                reportFailed = true
            }
        }
        if let path = options.writeBaselinePath {
            let failures = flows.filter { $0.status == .failed }.map { (id: $0.id, reason: $0.failures.first?.message ?? "failed") }
            do {
                // The whole command as given (driver, filter, shard and all), so running it again
                // reproduces the baseline.
                try ReportWriter.write(Baseline.render(failures, command: (["flowcheck"] + arguments).map(Self.shellQuoted).joined(separator: " ")), to: path, defaultName: "baseline.txt")
            } catch {
                console.err("flowcheck: --write-baseline: \(error)")
                reportFailed = true
            }
        }
        if let summaryPath = environment.stepSummaryPath {
            do {
                try ReportWriter.append(MarkdownReport.summary(run) + "\n", to: summaryPath)
            } catch {
                console.err("flowcheck: GITHUB_STEP_SUMMARY: \(error)")
                reportFailed = true
            }
        }
        if environment.githubActions {
            // With --format json, stdout carries the document alone: the runner reads
            // workflow commands from stderr too.
            for line in GitHubAnnotations.render(run) { json ? console.err(line) : console.out(line) }
        }
        // A baselined failure is counted on its own, never as a failure.
        let failed = run.newFailures + run.errors + invalid.count
        // Counted as the step summary and the reports count them: a flow that passed with checks
        // skipped (a store with no files) is never a plain pass, a flow the driver cannot run is
        // not run, and flows --filter or --shard left out are said apart.
        // Not run: flows the driver cannot run, and those an interruption kept from finishing.
        let notRun = run.skipped + (interruption?.notRun.count ?? 0)
        let derivedCount = flows.filter { $0.derivation != nil }.count
        let derivedPassed = flows.filter { $0.derivation != nil && $0.status == .passed }.count
        let closing = "\(run.passed) passed, \(failed) failed" + (run.baselinedFailures > 0 ? ", \(run.baselinedFailures) baselined" : "")
            + (run.passedWithSkips > 0 ? ", \(run.passedWithSkips) passed with skipped checks" : "") + (notRun > 0 ? ", \(notRun) not run" : "")
            + (skipped > 0 ? ", \(skipped) left out by \(options.filter != nil && options.shard != nil ? "--filter and --shard" : options.filter != nil ? "--filter" : "--shard")" : "")
            + (derivedCount > 0 ? " (\(derivedCount) of them derived variants, \(derivedPassed) passed)" : "")
        if !json {
            for line in ConsoleReport.notRun(flows, colour: colour) { console.out(line) }
        }
        for id in run.unexpectedlyPassing {
            let line = baseline?.entries.first { $0.id == id }?.line ?? 0
            let text = "\(id): unexpectedly passing: remove it from the baseline (\(options.baselinePath ?? ""):\(line))"
            json ? console.err(ControlCharacters.escaped(text)) : console.out(ControlCharacters.escaped(text))
        }
        if json {
            console.out(JSONReport.render(run, startedAt: startedAt, skipped: leftOut))
            console.err(closing)
        } else {
            if let shard = options.shard { console.out("Shard \(shard.index)/\(shard.count): \(total) of \(total + skipped) flows") }
            if !reportFailed { console.out("Reports: \(junitPath), \(markdownPath)") }
            if !invalid.isEmpty { console.out("\(invalid.count) invalid spec\(invalid.count == 1 ? "" : "s") (see above)") }
            console.out(closing)
        }
        if let interruption, let signal {
            console.err("flowcheck: " + ControlCharacters.escaped(interruption.sentence(listing: 10)))
            return .stopped(by: signal)
        }

        if reportFailed || run.errors > 0 { return .harnessFailure }
        // A driver that can run none of the selected flows checked nothing: never a pass.
        if !flows.isEmpty && run.skipped == flows.count {
            console.err("flowcheck: " + ControlCharacters.escaped("the driver \(driver.name) can run none of the \(flows.count) selected flows (each says why above); select flows of the providers and actions it has"))
            return .usageOrInvalidSpec
        }
        if !invalid.isEmpty { return .usageOrInvalidSpec }
        if run.newFailures > 0 { return .failed }
        return options.strictBaseline && !run.unexpectedlyPassing.isEmpty ? .failed : .passed
    }

    /// `--baseline`'s file, read and checked against every loaded spec's id (before `--filter`
    /// and `--shard`, so a slice still knows every id). When some spec files are invalid, an id
    /// may be one of theirs: unknown ids are then let through (the run exits 2 for the specs).
    static func loadBaseline(_ path: String?, loaded: SpecLoader.Result) -> Result<Baseline?, Baseline.Problem> {
        guard let path else { return .success(nil) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(Baseline.Problem(file: path, line: 0, message: "cannot read the --baseline file (a missing file or a folder?)"))
        }
        do {
            let baseline = try Baseline.parse(String(decoding: data, as: UTF8.self), file: path)
            // Flow ids, and invariant ids (a rule known to be broken in every flow).
            if loaded.invalidFiles.isEmpty { try baseline.check(knownIDs: loaded.specs.map(\.id) + Deriver.variants(of: loaded.specs, providers: ProviderRegistry.catalog).map(\.id) + Invariant.allCases.map(\.rawValue)) }
            return .success(baseline)
        } catch {
            return .failure(error)
        }
    }

    /// How long an interrupted run waits for its cancelled flows to end before it reports
    /// without them: 3 s, so Ctrl-C ends `flowcheck` within seconds whatever a driver blocks.
    /// A flow whose driver blocks a thread for good (an in-process `perform` stuck on the main
    /// queue) never ends, and must not keep the reports unwritten and the process alive; a
    /// driver process still stopping then is killed with its group as the process exits.
    static let windDown: Duration = .seconds(3)

    /// Runs `specs` until they finish or `interrupt` is delivered: then no flow starts, the
    /// running ones are cancelled, and the finished ones come back with the signal. Flows
    /// still running ``windDown`` after the signal are left behind (their driver is blocked)
    /// and count as not run; nothing they report later reaches `onFinish`.
    static func runUntilInterrupted(_ runner: FlowRunner, _ specs: [FlowSpec], interrupt: InterruptSignal, windDown: Duration = windDown, onFinish: @escaping @Sendable (FlowResult) -> Void) async -> ([FlowResult], Int32?) {
        // The finished flows as they finish, for a run that is left behind.
        let finished = Locked<(results: [FlowResult], closed: Bool)>(([], false))
        let report: @Sendable (FlowResult) -> Void = { result in
            let open = finished.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.results.append(result)
                return true
            }
            if open { onFinish(result) }
        }
        let run = Task { await runner.run(specs, onFinish: report) }
        enum Ended: Sendable {
            case flows([FlowResult])
            case signal(Int32)
            case windDownPassed
        }
        let first = FirstOf<Ended>()
        let watch = Task {
            // nil: the wait was cancelled because the run ended first.
            if let number = await interrupt.wait() { first.settle(.signal(number)) }
        }
        Task { first.settle(.flows(await run.value)) }
        switch await first.value() {
        case .flows(let flows):
            watch.cancel()
            return (flows, nil)
        case .windDownPassed:
            return ([], nil)
        case .signal(let number):
            run.cancel()
            let ending = FirstOf<Ended>()
            Task { ending.settle(.flows(await run.value)) }
            // On a thread of its own: a pool the blocked flows hold cannot delay it.
            let seconds = Double(windDown.components.seconds) + Double(windDown.components.attoseconds) / 1e18
            let timer = Thread {
                Thread.sleep(forTimeInterval: seconds)
                ending.settle(.windDownPassed)
            }
            timer.name = "flowcheck wind-down"
            timer.start()
            if case .flows(let flows) = await ending.value() {
                finished.withLock { $0.closed = true }
                return (flows, number)
            }
            // Left behind: the flows that finished, in the order of the specs.
            let results = finished.withLock { state -> [FlowResult] in
                state.closed = true
                return state.results
            }
            let order = Dictionary(specs.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            return (results.sorted { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }, number)
        }
    }

    /// The flows of `specs` not in `kept`, as the JSON report lists them.
    private static func left(_ specs: [FlowSpec], kept: [FlowSpec], _ reason: JSONReport.SkippedFlow.Reason) -> [JSONReport.SkippedFlow] {
        let keptIDs = Set(kept.map(\.id))
        return specs.filter { !keptIDs.contains($0.id) }.map { JSONReport.SkippedFlow(id: $0.id, file: $0.file, reason: reason) }
    }

    /// The `index`-th of `count` slices (1-based): flows sorted by id, dealt round-robin, so the
    /// slices together hold every flow exactly once and each run gets the same slice.
    static func shard(_ specs: [FlowSpec], index: Int, count: Int) -> [FlowSpec] {
        specs.sorted { NaturalOrder.precedes($0.id, $1.id) }.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    static func invalidSpecs(_ loaded: SpecLoader.Result) -> [InvalidSpec] {
        loaded.invalidFiles.map { file in
            InvalidSpec(file: file, diagnostics: loaded.diagnostics.filter { $0.file == file })
        }
    }

    /// FlowCheck's requirement catalogue, then a team's own (its file named in each source).
    static func catalogue(with team: [TeamRequirement]) -> [Requirement] {
        RequirementCatalogue.all + team.map { Requirement($0.id, $0.statement, source: "\($0.source) (\($0.file))") }
    }

    /// `word` as a POSIX shell reads it back: as it is when it is plain, else in single quotes.
    public static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "-_./=:,@%+".unicodeScalars.contains(scalar)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    // MARK: - serve

    private func serve(_ options: CommandLineOptions, console: Console, environment: Environment) async -> ExitCode {
        let fixtures: [(Provider, any ProviderFixture)]
        do {
            if let path = options.fixturePath {
                guard let data = FileManager.default.contents(atPath: path) else {
                    console.err("flowcheck: cannot read the fixture file \(path)")
                    return .usageOrInvalidSpec
                }
                fixtures = try SpecLoader.standard.decodeFixtures(Array(data), file: path)
            } else {
                fixtures = try SpecLoader.standard.decodeFixtures(Array(FakeProviderHost.defaultFixtureJSON.utf8), file: "(default fixture)")
            }
        } catch {
            console.err(ControlCharacters.escaped("\(error)"))
            return .usageOrInvalidSpec
        }
        // A virtual clock started at the wall time, which only the control API moves: a person
        // can put the fakes past a token's expiry as a spec's advanceClock step does.
        let clock = ServeClock(start: environment.now())
        // Every stdout line goes through the queue: a stdout nobody reads costs dropped lines,
        // never a blocked connection or an unanswered Ctrl-C.
        // Every line the queue holds goes out in one write: a write a line cost a system call
        // per request, and fell behind a busy client even into a file.
        let logQueue = LogQueue(writeLines: { console.out($0.joined(separator: "\n")) })
        let host = FakeProviderHost(
            fixtures: fixtures, now: { clock.now },
            options: FakeProviderHost.Options(keepExchanges: options.keepExchanges, maxConnections: options.maxConnections),
            log: { logQueue.enqueue($0) })
        host.advanceClock = { clock.advance(by: $0) }
        // Every port checked before any is bound: room for all of them after --port, and the
        // control port not among them.
        let needed = host.portsNeeded
        if options.port != 0 {
            let last = options.port + needed - 1
            guard last <= 65_535 else {
                console.err("flowcheck: --port \(options.port) leaves room for \(65_536 - options.port) ports, and the providers served need \(needed) (\(options.port) to \(last)); give a first port of at most \(65_536 - needed)")
                return .usageOrInvalidSpec
            }
            if options.controlPort != 0, (options.port...last).contains(options.controlPort) {
                console.err("flowcheck: --control-port \(options.controlPort) is one of the providers' ports (\(options.port) to \(last), from --port); give one outside them")
                return .usageOrInvalidSpec
            }
        }
        let control = ServeControl(host: host, clock: clock)
        let endpoints: [FakeProviderHost.Endpoint]
        let controlURL: URL
        do {
            endpoints = try host.start(firstPort: options.port, host: options.host)
            controlURL = try control.start(port: options.controlPort, maxConnections: host.maxConnectionsPerPort)
        } catch {
            host.stop()
            logQueue.finish(within: Self.serveLogDrainSeconds)
            console.err("flowcheck: could not start the fake providers: \(error)")
            return .harnessFailure
        }
        defer {
            control.stop()
            host.stop()
        }
        if !FakeProviderHost.isLoopbackHost(options.host) {
            console.err("flowcheck: warning: --host \(options.host) lets any client that can reach this machine use the fakes, which accept any client and hold the fixture's test secrets (the control API stays on 127.0.0.1)")
        }
        for endpoint in endpoints {
            logQueue.enqueue("\(endpoint.provider.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(endpoint.baseURL.absoluteString)")
            // A provider's other origins (Clover's login pages), one line each.
            for (name, url) in endpoint.baseURLs.sorted(by: { $0.key < $1.key }) where url != endpoint.baseURL {
                logQueue.enqueue("\("  \(name)".padding(toLength: 10, withPad: " ", startingAt: 0)) \(url.absoluteString)")
            }
        }
        logQueue.enqueue("\("control".padding(toLength: 10, withPad: " ", startingAt: 0)) \(controlURL.absoluteString)")
        var readyDocument: Data?
        if let path = options.readyFile {
            do {
                let document = ServeReadyFile.document(endpoints: endpoints, control: controlURL)
                try ServeReadyFile.write(document, to: path)
                readyDocument = document
            } catch {
                console.err("flowcheck: the ready file: \(error)")
                logQueue.finish(within: Self.serveLogDrainSeconds)
                return .harnessFailure
            }
        }
        logQueue.enqueue("Serving \(endpoints.count) fake provider\(endpoints.count == 1 ? "" : "s") on \(options.host); virtual clock at \(ISO8601DateFormatter().string(from: clock.now)) (moved only by the control API); Ctrl-C stops.")
        _ = await environment.interrupt.wait()
        control.stop()
        host.stop()
        // Stopped: the file no longer says where to find a server, so a script that waits for it
        // never reads a stale one. Only ours: another serve may have written the path since.
        if let path = options.readyFile, let readyDocument { ServeReadyFile.remove(path, ifStill: readyDocument) }
        logQueue.enqueue("Stopped.")
        // Bounded: with stdout blocked for good, serve still ends.
        logQueue.finish(within: Self.serveLogDrainSeconds)
        return .passed
    }

    /// How long `serve` waits, once stopped, for its log to reach stdout.
    static let serveLogDrainSeconds: TimeInterval = 1
}

/// The first of several outcomes, awaited by one task: whichever source settles first wins,
/// later ones are dropped. Settling needs no cooperative thread (a timer thread may do it).
final class FirstOf<Value: Sendable>: Sendable {
    private let state = Locked<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    func settle(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
