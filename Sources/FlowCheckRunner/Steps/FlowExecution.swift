import Foundation
import FlowCheckFakeServer
import FlowCheckHarnessHTTP
import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// Runs one flow: a fresh fake server, clock, store folder and SDK session; the steps in order;
/// then everything torn down, whatever happened.
struct FlowExecution: Sendable {
    let spec: FlowSpec
    let driver: any FlowDriver
    let timeLimit: Duration
    let watchdog: Watchdog
    let issuedSecretsObserver: (@Sendable ([String]) -> Void)?
    let providers: [any ProviderKit]
    var invariants: Set<Invariant> = Set(Invariant.allCases)
    var masking = true

    /// What the steps have got to so far; shared with the time-limit watchdog, which reports a
    /// hung flow with the step it hung in.
    private final class Progress: @unchecked Sendable {
        let state = Locked(State())
        struct State {
            var stepStatuses: [StepResult.Status] = []
            var failures: [CheckFailure] = []
            var errorMessage: String?
            var secrets: [String] = []
            var current = 0
            var skips: [CheckSkip] = []
            var events: [FlowEvent] = []
            var optOuts: [InvariantOptOut] = []
            var invariantsNotChecked: [String] = []
        }
    }

    /// The flow's result; `interrupted` when the task running it was cancelled before the
    /// flow finished (its result then says so and judges nothing beyond the steps it ran).
    func run() async -> (result: FlowResult, interrupted: Bool) {
        let started = ContinuousClock.now
        if let reason = await driver.unsupportedReason(for: spec) {
            return (skippedResult(reason), false)
        }
        let progress = Progress()
        progress.state.withLock { $0.stepStatuses = Array(repeating: .notRun, count: spec.steps.count) }
        let clock = ManualClock()
        let window = BrowserWindow()
        let browser = ScriptedBrowser(window: window)
        var world: FakeWorld?
        var storage: URL?
        var session: (any FlowSession)?
        let background = BackgroundCalls()
        var interrupted = false
        do {
            world = try FakeWorld(spec: spec, providers: providers, clock: clock, onHold: { background.requestHeld() }, onHoldEnd: { background.holdEnded() })
            storage = try Self.makeStorageDirectory()
            let context = DriverContext(flowID: spec.id, provider: spec.provider, baseURL: world!.server.baseURL, baseURLs: world!.server.baseURLs, clock: clock, storageDirectory: storage!, browser: window)
            session = try await driver.makeSession(for: context)
            let limit = timeLimit
            let kit = try providers.registeredKit(for: spec.provider)
            let persona = world!.server.provider
            let judge = InvariantJudge(provider: .init(
                fixtureSecrets: spec.fixture.secrets, serverOnlySecrets: spec.fixture.serverOnlySecrets, actions: kit.actions,
                origin: { persona.origin(serving: $0) }, origins: Set(world!.server.baseURLs.values.map(Self.origin)), accessTokenExpiry: { persona.accessTokenExpiry($0) }
            ), enabled: invariants)
            let ending = await Self.withTimeLimit(limit, watchdog: watchdog, progress: { progress.state.withLock { $0.current } }) { [spec, world, session] in
                await Self.runSteps(spec: spec, world: world!, session: session!, clock: clock, browser: browser, background: background, progress: progress, judge: judge)
            } onTimeout: {
                // Recorded before the steps are cancelled, so a late answer cannot overwrite it.
                progress.state.withLock { state in
                    state.errorMessage = "the flow made no progress for \(limit.components.seconds) s of real time (it hung in step \(state.current)); the virtual clock never needs real waiting, so an SDK call or the server is stuck"
                }
            }
            if case .cancelled = ending {
                interrupted = true
                progress.state.withLock { $0.errorMessage = "the run was interrupted before this flow finished (it was in step \($0.current))" }
            }
        } catch {
            progress.state.withLock { $0.errorMessage = "\(error)" }
        }
        // A background call still running now was never joined (the flow stopped early, or
        // hung): cancelled, never waited for; the server's stop below ends any request it holds.
        let unjoined = background.cancelAll()
        if !unjoined.isEmpty {
            progress.state.withLock { state in
                if state.errorMessage == nil, state.failures.isEmpty {
                    state.errorMessage = "the background call\(unjoined.count == 1 ? "" : "s") \(unjoined.map { "\"\($0)\"" }.joined(separator: ", ")) had not ended when the flow ended, and \(unjoined.count == 1 ? "was" : "were") cancelled"
                }
            }
        }
        if let problem = await session?.finish() {
            progress.state.withLock { state in
                if state.errorMessage == nil { state.errorMessage = problem }
            }
        }
        let log = await session?.log() ?? []
        await session?.close()
        browser.close()
        let exchanges = world?.server.exchanges ?? []
        let issued = world?.server.issuedSecrets ?? []
        issuedSecretsObserver?(issued)
        let origin = world?.server.baseURL.absoluteString
        // The other origins (Clover's web host), for the report's placeholders.
        let otherOrigins = (world?.server.origins.dropFirst() ?? []).compactMap { name in world?.server.baseURLs[name].map { (name, $0.absoluteString) } }
        world?.stop()
        if let storage { try? FileManager.default.removeItem(at: storage) }
        let elapsed = ContinuousClock.now - started
        let state = progress.state.withLock { $0 }
        return (buildResult(state: state, exchanges: exchanges, issuedSecrets: issued, origin: origin, otherOrigins: otherOrigins, elapsed: elapsed, log: log), interrupted)
    }

    private static func runSteps(spec: FlowSpec, world: FakeWorld, session: any FlowSession, clock: ManualClock, browser: ScriptedBrowser, background: BackgroundCalls, progress: Progress, judge: InvariantJudge) async {
        var judge = judge
        let baseURL = world.server.baseURL
        var variables: [String: String] = ["baseURL": baseURL.absoluteString]
        var storeInodes: [String: UInt64]?
        for name in Vocabulary.originVariables(world.server.origins) {
            let origin = String(name.dropFirst("baseURL.".count))
            variables[name] = world.server.baseURLs[origin]?.absoluteString
        }
        var cursor = 0
        // Requests seen while background calls run: which step's window they fall in depends
        // on timing, so the diagram shows them together once every call is joined.
        var concurrentRequests: [FlowEvent] = []
        for (index, step) in spec.steps.enumerated() {
            // Timed out or interrupted: the verdict is already recorded; no further step runs.
            if Task.isCancelled { return }
            progress.state.withLock { $0.current = step.number }
            var outcome: CallOutcome?
            var events: [FlowEvent] = []
            var actor = FlowEvent.Actor.sdk
            var windowStart: Int?
            var callArguments: [String: String] = [:]
            do {
                switch step.action {
                case .app(let name, let arguments)?:
                    var values: [String: String] = [:]
                    for argument in arguments { values[argument.name] = argument.value.render(variables) }
                    let sensitive = arguments.filter { Redactor.isSensitive(field: $0.name) }.compactMap { values[$0.name] }
                    progress.state.withLock { $0.secrets += sensitive }
                    judge.learn(sensitive)
                    events.append(.call(step: step.number, name: name))
                    let call = AppCall(name: name, arguments: values)
                    callArguments = values
                    if let label = step.background {
                        // Left running; the step's checks see what happened until it was under way.
                        await background.start(label, firstExchange: world.server.exchanges.count, waitForHold: world.server.holdArmed) { try await session.perform(call) }
                    } else {
                        outcome = try await session.perform(call)
                    }
                case .await(let label)?:
                    // Cancelled by the watchdog: the flow is already reported as hung in this step.
                    guard let joined = try await background.join(label) else { return }
                    outcome = joined.outcome
                    // What the server saw while the call ran, from its start: its requests
                    // and any other call's meanwhile.
                    windowStart = joined.firstExchange
                case .advanceClock(let seconds, let written)?:
                    clock.advance(by: TimeInterval(seconds))
                    events.append(.note(step: step.number, text: "clock +\(written)"))
                case .fault(let fault)?:
                    try world.inject(fault)
                    events.append(.note(step: step.number, text: "fault \(fault.kind)" + (fault.path.map { " on \($0)" } ?? "")))
                case .clearFaults?:
                    try world.clearFaults()
                    // Released holds are answered on the server's threads: wait until each is
                    // recorded, so this step's requests are the same on every run.
                    await background.holdsSettled()
                    events.append(.note(step: step.number, text: "faults cleared"))
                case .crashStore(let point)?:
                    switch try await session.armStoreCrash(point) {
                    case .armed:
                        events.append(.note(step: step.number, text: "store crash armed (\(point.rawValue))"))
                    case .unsupported(let reason):
                        // What follows judges what the crash left: without the crash it would
                        // judge nothing, so none of it runs, and none of it passes.
                        let rest = spec.steps[index...]
                        let skip = CheckSkip(step: step.number, line: step.location.line, check: "crashStore.\(point.rawValue)",
                                             reason: reason + (rest.count > 1 ? "; steps \(step.number + 1)–\(rest.last!.number), which judge what the crash left, were not run" : ""))
                        progress.state.withLock { state in
                            guard state.errorMessage == nil else { return }
                            state.stepStatuses[index] = .skipped
                            state.skips.append(skip)
                        }
                        return
                    }
                case .server(let operation)?:
                    try world.perform(operation)
                    events.append(.note(step: step.number, text: "server \(operation)"))
                case .browser(let operation, let arguments, let transforms)?:
                    var values: [String: String] = [:]
                    for argument in arguments { values[argument.name] = argument.value.render(variables) }
                    actor = .browser
                    if operation == .tamper { events.append(.note(step: step.number, text: "the redirect is tampered with")) }
                    try await browser.perform(operation, values, transforms: transforms.map { ScriptedBrowser.Rewrite($0, variables: variables) })
                case .send(let request)?:
                    actor = .client
                    do {
                        // The harness's own client, not the SDK's transport: it never follows a redirect.
                        _ = try await HarnessHTTPClient().send(try HarnessRequest.make(request, baseURL: baseURL, variables: variables))
                    } catch let error as DriverError {
                        throw error
                    } catch {
                        throw DriverError("send: \(error)")
                    }
                case nil:
                    break
                }
                variables["redirect"] = browser.redirect ?? ""
                let news = browser.takeNews()
                let all = world.server.exchanges
                let fresh = Array(all[min(cursor, all.count)...])
                let window = windowStart.map { Array(all[min($0, all.count)...]) } ?? fresh
                cursor = all.count
                let requestEvents = fresh.map { FlowEvent.request(step: step.number, actor: actor, method: $0.request.method, path: $0.request.path, status: $0.response.status) }
                if background.anyRunning {
                    concurrentRequests += requestEvents
                } else {
                    events += concurrentRequests + requestEvents
                    concurrentRequests = []
                }
                events += news.opened.map { .opened(step: step.number, path: $0.path) }
                if news.dismissed { events.append(.dismissed(step: step.number)) }
                if case .browser(let operation, _, _)? = step.action, operation != .tamper, let redirect = browser.redirect,
                   let components = URLComponents(string: redirect) {
                    events.append(.redirect(step: step.number, target: "\(components.scheme ?? ""):\(components.host.map { "//\($0)" } ?? "")\(components.path)"))
                }
                switch outcome {
                case .ok?: events.append(.outcome(step: step.number, text: "ok"))
                case .error(let kind, _)?: events.append(.outcome(step: step.number, text: kind))
                case .crashed?: events.append(.outcome(step: step.number, text: "crashed"))
                case nil: break
                }
                var checker = ExpectationChecker(step: step, variables: variables)
                checker.storeInodes = storeInodes
                checker.specFile = spec.file
                let readsStore = step.expect?.checks.contains(where: ExpectationChecker.readsStore) ?? false
                let store = readsStore ? try await session.storeContents() : nil
                var storeFiles: StoreFilesObservation?
                if step.expect?.checks.contains(where: ExpectationChecker.readsStoreFiles) ?? false {
                    // The driver says where; the harness measures.
                    storeFiles = try await session.storeLocation().map { .measured(try StoreDirectoryFacts.measure($0)) } ?? .notFileBacked
                }
                checker.check(step.expect, StepObservation(call: outcome, exchanges: window, opened: news.opened, dismissed: news.dismissed, page: browser.page, redirect: browser.redirect, store: store, storeFiles: storeFiles))
                variables = checker.variables
                storeInodes = checker.storeInodes
                var failures = checker.failures
                // The invariants, on what the SDK really did and handed back: unmasked.
                let (violations, optOuts, notChecked) = try await Self.judgeInvariants(
                    &judge, step: step, actor: actor, outcome: outcome, arguments: callArguments, fresh: fresh, window: window, opened: news.opened,
                    browserShowing: browser.window.isShowing, session: session, world: world, now: clock.now, callsInFlight: background.anyRunning)
                failures += violations
                let skips = checker.skips
                let captured = checker.capturedSecrets
                let stopped = progress.state.withLock { state -> Bool in
                    state.secrets += captured
                    // A flow past its time limit is already reported as hung: a late answer
                    // must not turn it into a pass.
                    guard state.errorMessage == nil else { return true }
                    state.events += events
                    state.stepStatuses[index] = !failures.isEmpty ? .failed : skips.isEmpty ? .passed : .skipped
                    state.failures += failures
                    state.skips += skips
                    state.optOuts += optOuts
                    if let notChecked, !state.invariantsNotChecked.contains(notChecked) { state.invariantsNotChecked.append(notChecked) }
                    return false
                }
                if stopped || !failures.isEmpty { return }
            } catch {
                progress.state.withLock { state in
                    if state.errorMessage == nil { state.errorMessage = "step \(step.number): \(error)" }
                }
                return
            }
        }
    }

    /// Checks the invariants after a step: violations become the step's failures unless the
    /// step opts out of them (`allow`), and every opt-out is reported, used or not.
    private static func judgeInvariants(
        _ judge: inout InvariantJudge, step: Step, actor: FlowEvent.Actor, outcome: CallOutcome?, arguments: [String: String], fresh: [RecordedExchange], window: [RecordedExchange],
        opened: [URL], browserShowing: Bool, session: any FlowSession, world: FakeWorld, now: Date, callsInFlight: Bool = false
    ) async throws -> ([CheckFailure], [InvariantOptOut], String?) {
        guard !judge.enabled.isEmpty else { return ([], [], nil) }
        // A store the SDK cannot read back is the SDK's failure, for its own checks to judge:
        // the invariant then skips the step rather than call it a harness error.
        let store = judge.enabled.contains(.keep) ? try? await session.storeContents() : nil
        var files: StoreDirectoryFacts?
        var notChecked: String?
        // While a background call runs, its store write may be under way: a temporary file then
        // is a write in progress, not a leftover. The store is judged at the next quiet step.
        if judge.enabled.contains(.store) && !callsInFlight {
            if let location = try await session.storeLocation() {
                files = try StoreDirectoryFacts.measure(location)
            } else {
                notChecked = "\(Invariant.store.rawValue): the driver's token store is not file-backed (a Keychain or memory), so there are no files to judge"
            }
        }
        let sent = judge.enabled.contains(.origin) ? await session.sentRequests() : nil
        let violations = judge.judge(InvariantObservation(
            step: step, actor: actor, outcome: outcome, arguments: arguments, fresh: fresh, window: window, opened: opened, sent: sent, browserShowing: browserShowing,
            store: store, storeFiles: files, issued: world.server.issuedSecrets, now: now))
        let allowed = Set(step.allow.map(\.invariant))
        let failures = violations.filter { !allowed.contains($0.invariant) }.map { violation in
            CheckFailure(step: step.number, line: step.location.line, check: violation.invariant.rawValue, expected: violation.invariant.statement, actual: violation.detail, values: FailureValues(source: .invariant(violation.invariant.rawValue)))
        }
        let optOuts = step.allow.map { allowance in
            InvariantOptOut(step: step.number, line: allowance.location.line, invariant: allowance.invariant.rawValue, why: allowance.why, used: violations.contains { $0.invariant == allowance.invariant })
        }
        return (failures, optOuts, notChecked)
    }

    /// `scheme://host:port` of a URL, as the judge compares origins.
    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }

    /// How a time-limited body ended.
    enum Ending: Sendable {
        case finished
        case timedOut
        /// The task running the flow was cancelled (the run was interrupted).
        case cancelled
    }

    /// Runs `body`, giving up after `limit` of real time (then `onTimeout` runs) or when the
    /// calling task is cancelled; either way `body` is cancelled and left behind (a hung call
    /// may never come back). The watchdog settles the wait from its own thread, so a body that
    /// holds every cooperative thread cannot keep the time limit from being recorded.
    static func withTimeLimit(_ limit: Duration, watchdog: Watchdog, progress: @escaping @Sendable () -> Int = { 0 }, _ body: @escaping @Sendable () async -> Void, onTimeout: @escaping @Sendable () -> Void) async -> Ending {
        let ending = Locked<Ending?>(nil)
        let work = Locked<Task<Void, Never>?>(nil)
        let armed = Locked<Watchdog.Armed?>(nil)
        let resume = Locked<CheckedContinuation<Void, Never>?>(nil)
        /// The first ending wins; it cancels the others and resumes the waiter exactly once.
        @Sendable func settle(_ how: Ending) {
            guard ending.withLock({ current in defer { if current == nil { current = how } }; return current == nil }) else { return }
            if case .timedOut = how { onTimeout() }
            armed.withLock { $0 }?.disarm()
            if case .finished = how {} else { work.withLock { $0 }?.cancel() }
            resume.withLock { continuation in defer { continuation = nil }; return continuation }?.resume()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                resume.withLock { $0 = continuation }
                // Settled already (cancelled before the wait began): nothing else will resume it.
                if ending.withLock({ $0 }) != nil {
                    resume.withLock { continuation in defer { continuation = nil }; return continuation }?.resume()
                    return
                }
                work.withLock { $0 = Task { await body(); settle(.finished) } }
                armed.withLock { $0 = watchdog.arm(limit, progress: progress) { settle(.timedOut) } }
                // Settled while starting: the new watch would otherwise run for the whole limit,
                // and work started after a cancellation would go on uncancelled.
                if ending.withLock({ $0 }) != nil {
                    armed.withLock { $0 }?.disarm()
                    work.withLock { $0 }?.cancel()
                }
            }
        } onCancel: {
            settle(.cancelled)
        }
        return ending.withLock { $0 } ?? .finished
    }

    private static func makeStorageDirectory() throws -> URL {
        let url = storageRoot.appendingPathComponent("flowcheck-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// Where flows keep their token stores: the SDK's store fsyncs every write (as it must on a
    /// device), and on a disk-backed /tmp those flushes, and the discards when the folder is
    /// removed, were most of a flow's real time. Memory-backed /dev/shm (Linux) keeps the same
    /// code path at no I/O cost; elsewhere, or without it, the temporary directory.
    static let storageRoot: URL = {
        #if os(Linux)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           access("/dev/shm", W_OK | X_OK) == 0 {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        #endif
        return FileManager.default.temporaryDirectory
    }()

    /// A flow the driver cannot run: every step not run, the one reason as its skip.
    private func skippedResult(_ reason: String) -> FlowResult {
        var state = Progress.State()
        state.stepStatuses = Array(repeating: .notRun, count: spec.steps.count)
        state.skips = [CheckSkip(step: spec.steps.first?.number ?? 1, line: spec.steps.first?.location.line ?? 1, check: "flow", reason: reason)]
        var result = buildResult(state: state, exchanges: [], issuedSecrets: [], origin: nil, elapsed: .zero)
        result.status = .skipped
        return result
    }

    private func buildResult(state: Progress.State, exchanges: [RecordedExchange], issuedSecrets: [String], origin: String?, otherOrigins: [(String, String)] = [], elapsed: Duration, log: [String] = []) -> FlowResult {
        var redactor = Redactor(secrets: masking ? spec.fixture.secrets + issuedSecrets + state.secrets : [])
        let kit = providers.kit(for: spec.provider)
        if let origin { redactor.addOrigin(origin, as: "{\(spec.provider.rawValue)}") }
        for (name, other) in otherOrigins { redactor.addOrigin(other, as: "{\(spec.provider.rawValue)-\(name)}") }
        let steps = spec.steps.enumerated().map { index, step in
            StepResult(
                number: step.number,
                line: step.location.line,
                action: StepNarrative.action(step.action, actions: kit?.actions ?? [], background: step.background).map(redactor.scrub),
                checks: StepNarrative.checks(step.expect, isAppStep: step.endsACall).map(redactor.scrub),
                note: step.note.map(redactor.scrub),
                status: state.stepStatuses[index]
            )
        }
        let failures = state.failures.map { failure in
            CheckFailure(step: failure.step, line: failure.line, check: redactor.scrub(failure.check), expected: redactor.scrub(failure.expected), actual: redactor.scrub(failure.actual), values: failure.values?.scrubbed(redactor.scrub))
        }
        let status: FlowResult.Status = state.errorMessage != nil ? .error : !failures.isEmpty ? .failed : state.skips.isEmpty ? .passed : .passedWithSkips
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return FlowResult(
            id: spec.id, title: redactor.scrub(spec.title), summary: spec.summary.map(redactor.scrub), file: spec.file,
            provider: spec.provider.rawValue, seed: spec.source.seed, passage: redactor.scrub(spec.source.passage),
            decisions: spec.decisions.map(redactor.scrub), steps: steps, status: status, failures: failures,
            errorMessage: state.errorMessage.map(redactor.scrub),
            // The driver's own log (an out-of-process driver's stderr) closes the transcript.
            transcript: exchanges.map { redactor.scrub(Transcript.render($0)) } + (log.isEmpty ? [] : [redactor.scrub("driver log (stderr):\n" + log.map { "  " + $0 }.joined(separator: "\n"))]),
            duration: seconds,
            events: state.events.map { $0.scrubbed(redactor) }, providerTitle: kit?.title,
            skips: state.skips.map { CheckSkip(step: $0.step, line: $0.line, check: redactor.scrub($0.check), reason: redactor.scrub($0.reason)) },
            optOuts: state.optOuts.map { InvariantOptOut(step: $0.step, line: $0.line, invariant: $0.invariant, why: redactor.scrub($0.why), used: $0.used) },
            invariantsNotChecked: state.invariantsNotChecked
        )
    }
}
