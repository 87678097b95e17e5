import Foundation
import FlowCheckFakeServer
import FlowCheckHarnessHTTP
import FlowCheckSpec
import FlowCheckTestSupport

/// The steps of one flow, in order, against its world and SDK session. Each step goes through
/// four stages: its action is performed, what it left is observed, that is checked (the step's
/// expectations, then the invariants) and the verdict is recorded in the flow's progress. The
/// first failure, harness error or cancellation ends the loop.
struct StepLoop {
    let spec: FlowSpec
    let world: FakeWorld
    let session: any FlowSession
    let clock: ManualClock
    let browser: ScriptedBrowser
    let background: BackgroundCalls
    let progress: FlowExecution.Progress
    /// The primary origin's base URL, which `send` steps' paths are relative to.
    let baseURL: URL
    var judge: InvariantJudge
    /// What a template's `${name}` renders to: `baseURL` and each origin's, then the values
    /// steps capture and the last captured `redirect`.
    var variables: [String: String]
    /// The inode of each store file at the flow's last `storeFiles` check, carried from step
    /// to step like the variables (``ExpectationChecker/storeInodes``).
    var storeInodes: [String: UInt64]?
    /// The forms of the secrets looked for beside the store's files, kept from step to step.
    var storeForms = SecretFormCache()
    /// How many of the server's exchanges the steps so far have taken.
    var cursor = 0
    /// Requests seen while background calls run: which step's window they fall in depends
    /// on timing, so the diagram shows them together once every call is joined.
    var concurrentRequests: [FlowEvent] = []
    /// The SDK's requests of steps taken while background calls ran, judged by the invariants
    /// at the next step with none running: which of those steps a background call's request
    /// fell in depends on timing, and the same flow must fail at the same step on every run.
    var deferredRequests: [RecordedExchange] = []
    /// The invariants the steps those requests came in opted out of: they stay excused.
    var deferredAllowances: Set<Invariant> = []

    /// Why the SDK's dismissal of the browser is not judged in this flow (it opens logins in
    /// the device's own browser, and the provider's documents allow that), or nil.
    let dismissalNotJudged: String?

    init(spec: FlowSpec, world: FakeWorld, session: any FlowSession, clock: ManualClock, browser: ScriptedBrowser, background: BackgroundCalls, progress: FlowExecution.Progress, judge: InvariantJudge, dismissalNotJudged: String? = nil) {
        self.dismissalNotJudged = dismissalNotJudged
        self.spec = spec
        self.world = world
        self.session = session
        self.clock = clock
        self.browser = browser
        self.background = background
        self.progress = progress
        self.judge = judge
        baseURL = world.server.baseURL
        var variables: [String: String] = ["baseURL": baseURL.absoluteString]
        for name in Vocabulary.originVariables(world.server.origins) {
            let origin = String(name.dropFirst("baseURL.".count))
            variables[name] = world.server.baseURLs[origin]?.absoluteString
        }
        self.variables = variables
    }

    /// The flow's clock time the SDK's own waits (`pause(until:)`, a driver's `wait`) may let
    /// pass within one step: one hour, far above any `Retry-After` the fakes send (120 s) or a
    /// backoff a person would sit through. Beyond it the wait is refused and the step fails: a
    /// call still waiting an hour of the flow's time later is hung, as the watchdog would say
    /// of one that waits in real time.
    static let pauseBudget: TimeInterval = 3600

    /// Runs the steps until one fails, the flow breaks or the task is cancelled.
    mutating func run() async {
        for (index, step) in spec.steps.enumerated() {
            // Timed out or interrupted: the verdict is already recorded; no further step runs.
            if Task.isCancelled { return }
            progress.state.withLock { $0.current = step.number }
            // Waits the SDK chooses during this step may let at most so much time pass.
            clock.startPauseWindow(budget: Self.pauseBudget)
            do {
                // What the store held before the step, for a `storeUnchanged` check only.
                let before = step.expect?.checks.contains(.storeUnchanged) == true ? try await session.storeContents() : nil
                guard var action = try await perform(step, at: index) else { return }
                action.storeBefore = before
                let observed = observe(step, after: action)
                let verdict = try await check(step, observed)
                guard record(verdict, at: index) else { return }
            } catch {
                // Whose it is: a DriverError names its party; anything else came from the driver.
                let stop = FlowExecution.located(error, at: .during(step: step.number))
                if step.addedByDerivation, stop.error.party == .driver, case .app(let name, _)? = step.action {
                    // An action the written flow never asks for: a driver without it cannot run
                    // this variant, which is then not run rather than broken.
                    let skip = CheckSkip(step: step.number, line: step.location.line, check: "derived.\(name)",
                                         reason: "the driver cannot perform \(name) (\(stop.error.message)), which this derived variant adds to its flow; the variant was not run to its end")
                    progress.state.withLock { state in
                        guard state.error == nil else { return }
                        state.stepStatuses[index] = .skipped
                        state.skips.append(skip)
                    }
                    return
                }
                progress.state.withLock { state in
                    if state.error == nil { state.error = stop.error }
                }
                return
            }
        }
    }

    // MARK: - Performing

    /// What a step's action did.
    struct PerformedAction {
        /// How the step's call ended, for a foreground app call or an await.
        var outcome: CallOutcome?
        /// The diagram's events of the action itself (the call, a note).
        var events: [FlowEvent] = []
        /// Who makes the step's requests: the SDK, the scripted browser or the spec's own client.
        var actor = FlowEvent.Actor.sdk
        /// For an await: how many exchanges the server had recorded when the call started.
        var windowStart: Int?
        /// The app call's arguments as the SDK received them (variables substituted).
        var arguments: [String: String] = [:]
        /// The store before the action, when a `storeUnchanged` check needs it.
        var storeBefore: [String: String]?
    }

    /// Performs the step's action; nil when the flow ends here with its verdict already
    /// recorded (an await the watchdog cancelled, a store crash the driver cannot arm).
    private mutating func perform(_ step: Step, at index: Int) async throws -> PerformedAction? {
        var action = PerformedAction()
        switch step.action {
        case .app(let name, let arguments)?:
            var values: [String: String] = [:]
            for argument in arguments { values[argument.name] = argument.value.render(variables) }
            let sensitive = arguments.filter { Redactor.isSensitive(field: $0.name) }.compactMap { values[$0.name] }
            progress.state.withLock { $0.secrets += sensitive }
            judge.learn(sensitive)
            action.events.append(.call(step: step.number, name: name))
            let call = AppCall(name: name, arguments: values)
            action.arguments = values
            if let label = step.background {
                // Left running; the step's checks see what happened until it was under way.
                let session = self.session
                await background.start(label, firstExchange: world.server.exchanges.count, waitForHold: world.server.holdArmed) { underway in try await session.performInBackground(call, underway: underway) }
            } else {
                action.outcome = try await session.perform(call)
            }
        case .await(let label)?:
            // Cancelled by the watchdog: the flow is already reported as hung in this step.
            guard let joined = try await background.join(label) else { return nil }
            action.outcome = joined.outcome
            // What the server saw while the call ran, from its start: its requests
            // and any other call's meanwhile.
            action.windowStart = joined.firstExchange
        case .advanceClock(let seconds, let written)?:
            clock.advance(by: TimeInterval(seconds))
            action.events.append(.note(step: step.number, text: "clock +\(written)"))
        case .fault(let fault)?:
            try world.inject(fault)
            action.events.append(.note(step: step.number, text: "fault \(fault.kind)" + (fault.path.map { " on \($0)" } ?? "")))
        case .clearFaults?:
            try world.clearFaults()
            // Released holds are answered on the server's threads: wait until each is
            // recorded, so this step's requests are the same on every run.
            await background.holdsSettled()
            action.events.append(.note(step: step.number, text: "faults cleared"))
        case .release(let label)?:
            if let number = background.holdNumber(of: label) {
                world.server.releaseHold(number: number)
                // Answered on the server's thread: wait until it is recorded, so this step's
                // requests are the same on every run.
                await background.holdSettled(number)
                action.events.append(.note(step: step.number, text: "the request held for \(label) answered"))
            } else {
                action.events.append(.note(step: step.number, text: "nothing held for \(label)"))
            }
        case .crashStore(let point)?:
            switch try await session.armStoreCrash(point) {
            case .armed:
                action.events.append(.note(step: step.number, text: "store crash armed (\(point.rawValue))"))
            case .unsupported(let reason):
                // What follows judges what the crash left: without the crash it would
                // judge nothing, so none of it runs, and none of it passes.
                let rest = spec.steps[index...]
                let skip = CheckSkip(step: step.number, line: step.location.line, check: "crashStore.\(point.rawValue)",
                                     reason: reason + (rest.count > 1 ? "; steps \(step.number + 1)–\(rest.last!.number), which judge what the crash left, were not run" : ""))
                progress.state.withLock { state in
                    guard state.error == nil else { return }
                    state.stepStatuses[index] = .skipped
                    state.skips.append(skip)
                }
                return nil
            }
        case .server(let operation)?:
            try world.perform(operation)
            action.events.append(.note(step: step.number, text: "server \(operation)"))
        case .browser(let operation, let arguments, let transforms)?:
            var values: [String: String] = [:]
            for argument in arguments { values[argument.name] = argument.value.render(variables) }
            action.actor = .browser
            if operation == .tamper { action.events.append(.note(step: step.number, text: "the redirect is tampered with")) }
            try await browser.perform(operation, values, transforms: transforms.map { ScriptedBrowser.Rewrite($0, variables: variables) })
        case .send(let request)?:
            action.actor = .client
            do {
                // The harness's own client, not the SDK's transport: it never follows a redirect.
                _ = try await HarnessHTTPClient().send(try HarnessRequest.make(request, baseURL: baseURL, variables: variables))
            } catch let error as DriverError {
                throw error
            } catch {
                throw DriverError("send: \(error)", party: .harness)
            }
        case nil:
            break
        }
        return action
    }

    // MARK: - Observing

    /// What a step left behind, for its checks and the invariants.
    struct Observed {
        var action: PerformedAction
        /// The action's events, then the requests, pages and outcome the diagram shows.
        var events: [FlowEvent]
        /// Requests recorded since the previous step.
        var fresh: [RecordedExchange]
        /// Requests that belong to the step's call: `fresh`, or everything since a background
        /// call started for its await.
        var window: [RecordedExchange]
        /// Pages the SDK opened since the previous step.
        var opened: [URL]
        /// Whether the SDK dismissed the browser since the previous step.
        var dismissed: Bool
        /// The waits the SDK chose during the step, granted or refused.
        var pauses: [ManualClock.Pause]
    }

    /// Takes what the server and the browser saw since the previous step, and the redirect the
    /// browser captured (the `redirect` variable).
    private mutating func observe(_ step: Step, after action: PerformedAction) -> Observed {
        variables["redirect"] = browser.redirect ?? ""
        let news = browser.takeNews()
        let pauses = clock.takePauses()
        let all = world.server.exchanges
        let fresh = Array(all[min(cursor, all.count)...])
        let window = action.windowStart.map { Array(all[min($0, all.count)...]) } ?? fresh
        cursor = all.count
        var events = action.events
        events += pauses.filter(\.granted).map { .note(step: step.number, text: "the SDK waited \(Self.seconds($0.seconds)) on the flow's clock") }
        let requestEvents = fresh.map { FlowEvent.request(step: step.number, actor: action.actor, method: $0.request.method, path: $0.request.path, status: $0.response.status) }
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
        switch action.outcome {
        case .ok?: events.append(.outcome(step: step.number, text: "ok"))
        case .error(let kind, _)?: events.append(.outcome(step: step.number, text: kind))
        case .crashed?: events.append(.outcome(step: step.number, text: "crashed"))
        case nil: break
        }
        return Observed(action: action, events: events, fresh: fresh, window: window, opened: news.opened, dismissed: news.dismissed, pauses: pauses)
    }

    /// `30 s`, `2.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    // MARK: - Checking

    /// A step's verdict, not yet recorded.
    struct Verdict {
        var events: [FlowEvent]
        /// The expectations' failures, then the invariants'.
        var failures: [CheckFailure]
        var skips: [CheckSkip]
        var optOuts: [InvariantOptOut]
        /// An invariant the step could not judge, and why.
        var notChecked: String?
        /// Values captured from sensitive fields: they join the secrets reports must not show.
        var capturedSecrets: [String]
    }

    /// Checks the step's expectations (reading the store only when a check needs it), then
    /// the invariants; the captured variables carry on to the next step.
    private mutating func check(_ step: Step, _ observed: Observed) async throws -> Verdict {
        var checker = ExpectationChecker(step: step, variables: variables)
        checker.dismissalNotJudged = dismissalNotJudged
        checker.storeInodes = storeInodes
        checker.specFile = spec.file
        let readsStore = step.expect?.checks.contains(where: ExpectationChecker.readsStore) ?? false
        let store = readsStore ? try await session.storeContents() : nil
        var storeFiles: StoreFilesObservation?
        if step.expect?.checks.contains(where: ExpectationChecker.readsStoreFiles) ?? false {
            // The driver says where; the harness measures.
            storeFiles = try await session.storeLocation().map { .measured(try StoreDirectoryFacts.measure($0, secrets: storeSecrets, forms: &storeForms)) } ?? .notFileBacked
        }
        checker.check(step.expect, StepObservation(call: observed.action.outcome, exchanges: observed.window, opened: observed.opened, dismissed: observed.dismissed, page: browser.page, redirect: browser.redirect, store: store, storeBefore: observed.action.storeBefore, storeFiles: storeFiles))
        variables = checker.variables
        storeInodes = checker.storeInodes
        // The invariants, on what the SDK really did and handed back: unmasked.
        let (violations, optOuts, notChecked) = try await judgeInvariants(step, observed)
        // First: a client that waited past its deadline on the flow's clock explains what follows.
        let overdue = world.takeOverdueStalls().map { stall in
            CheckFailure(
                step: step.number, line: step.location.line, check: "request timeout",
                expected: "the SDK to give up on \(stall.method) \(stall.path), which the server never answers, once the flow's clock passed its request timeout (the stall moved it +\(Int(stall.clockAdvance))s)",
                actual: "it was still waiting \(String(format: "%.1f", stall.waited)) s of real time later, while the harness ran: its request timeout does not follow the flow's clock (a wall-clock timer, or none), so the harness ended the stall",
                requirements: step.requirements)
        }
        var waited: TimeInterval = 0
        let refused = observed.pauses.compactMap { pause -> CheckFailure? in
            guard !pause.granted else {
                waited += pause.seconds
                return nil
            }
            return CheckFailure(
                step: step.number, line: step.location.line, check: "wait",
                expected: "the SDK's own waits within one step (a Retry-After honoured, a backoff) to let at most \(Self.seconds(Self.pauseBudget)) of the flow's clock pass: a call still waiting after that is hung",
                actual: "it asked to wait \(Self.seconds(pause.seconds)) more, after \(Self.seconds(waited)) of waits in this step; the flow refused (the clock stayed where it was)",
                requirements: step.requirements)
        }
        return Verdict(events: observed.events, failures: overdue + refused + checker.failures + violations, skips: checker.skips, optOuts: optOuts, notChecked: notChecked, capturedSecrets: checker.capturedSecrets)
    }

    /// Checks the invariants after a step, given the inputs they declare: violations become the
    /// step's failures unless the step opts out of them (`allow`), and every opt-out is
    /// reported, used or not.
    private mutating func judgeInvariants(_ step: Step, _ observed: Observed) async throws -> ([CheckFailure], [InvariantOptOut], String?) {
        // As the step's checks left them, before anything below waits.
        let browserShowing = browser.window.isShowing
        let now = clock.now
        let callsInFlight = background.anyRunning
        guard !judge.enabled.isEmpty else { return ([], [], nil) }
        // A store the SDK cannot read back is the SDK's failure, for its own checks to judge:
        // the invariant then skips the step rather than call it a harness error.
        let store = judge.inputs.contains(.storeContents) ? try? await session.storeContents() : nil
        var files: StoreDirectoryFacts?
        var notChecked: String?
        // While a background call runs, its store write may be under way: a temporary file then
        // is a write in progress, not a leftover. The store is judged at the next quiet step.
        if judge.inputs.contains(.storeFiles) && !callsInFlight {
            if let location = try await session.storeLocation() {
                files = try StoreDirectoryFacts.measure(location, secrets: storeSecrets, forms: &storeForms)
            } else {
                notChecked = "\(Invariant.store.rawValue): the driver's token store is not file-backed (a Keychain or memory), so there are no files to judge"
            }
        }
        let sent = judge.inputs.contains(.sentRequests) ? await session.sentRequests() : nil
        var fresh = observed.fresh
        var allowed = Set(step.allow.map(\.invariant))
        if observed.action.actor == .sdk {
            if callsInFlight {
                // A verifier sent now is a secret from now on, whenever its request is judged.
                judge.learnVerifiers(sent: fresh)
                deferredRequests += fresh
                if !fresh.isEmpty { deferredAllowances.formUnion(allowed) }
                fresh = []
            } else {
                fresh = deferredRequests + fresh
                allowed.formUnion(deferredAllowances)
                deferredRequests = []
                deferredAllowances = []
            }
        }
        let violations = judge.judge(InvariantObservation(
            step: step, actor: observed.action.actor, outcome: observed.action.outcome, arguments: observed.action.arguments, fresh: fresh, window: observed.window,
            opened: observed.opened, sent: sent, browserShowing: browserShowing, store: store, storeFiles: files, issued: world.server.issuedSecrets, now: now))
        let failures = violations.filter { !allowed.contains($0.invariant) }.map { violation in
            CheckFailure(step: step.number, line: step.location.line, check: violation.invariant.rawValue, expected: violation.invariant.statement, actual: violation.detail, values: FailureValues(source: .invariant(violation.invariant.rawValue)))
        }
        let optOuts = step.allow.map { allowance in
            InvariantOptOut(step: step.number, line: allowance.location.line, invariant: allowance.invariant.rawValue, why: allowance.why, used: violations.contains { $0.invariant == allowance.invariant })
        }
        return (failures, optOuts, notChecked)
    }

    /// What a copy of a token left beside the store's files would hold: the fixture's secrets
    /// and every token and code the fake has issued so far.
    private var storeSecrets: [String] {
        spec.fixture.secrets + world.server.issuedSecrets
    }

    // MARK: - Recording

    /// Records the step's verdict in the flow's progress; false when the flow ends here (the
    /// step failed, or the flow is already reported as hung).
    private func record(_ verdict: Verdict, at index: Int) -> Bool {
        let stopped = progress.state.withLock { state -> Bool in
            state.secrets += verdict.capturedSecrets
            // A flow past its time limit is already reported as hung: a late answer
            // must not turn it into a pass.
            guard state.error == nil else { return true }
            state.events += verdict.events
            state.stepStatuses[index] = !verdict.failures.isEmpty ? .failed : verdict.skips.isEmpty ? .passed : .skipped
            state.failures += verdict.failures
            state.skips += verdict.skips
            state.optOuts += verdict.optOuts
            if let notChecked = verdict.notChecked, !state.invariantsNotChecked.contains(notChecked) { state.invariantsNotChecked.append(notChecked) }
            return false
        }
        return !stopped && verdict.failures.isEmpty
    }
}
