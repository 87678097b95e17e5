import Foundation
import FlowCheckFakeServer
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
    final class Progress: Sendable {
        let state = Locked(State())
        struct State {
            var stepStatuses: [StepResult.Status] = []
            var failures: [CheckFailure] = []
            /// Why the flow could not be judged; the first one recorded stands, except that a
            /// driver's protocol break replaces what was blamed on the SDK meanwhile.
            var error: HarnessError?
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
            world = try FakeWorld(spec: spec, providers: providers, clock: clock, onHold: { background.requestHeld($0) }, onHoldEnd: { background.holdEnded($0) })
            storage = try Self.makeStorageDirectory()
            let activity = ActivityMeter()
            let mask = FlowMask(fixture: masking ? spec.fixture.secrets : [], server: masking ? world!.server : nil, progress: progress)
            let context = DriverContext(flowID: spec.id, provider: spec.provider, baseURL: world!.server.baseURL, baseURLs: world!.server.baseURLs, clock: clock, storageDirectory: storage!, browser: window, activity: activity, mask: { mask.apply($0) })
            let firstStep = spec.steps.first?.number ?? 1
            do {
                session = try await driver.makeSession(for: context)
            } catch {
                // The driver's part, whatever it threw: a process's protocol break names itself.
                throw Self.located(error, at: .before(step: firstStep), starting: true)
            }
            let limit = timeLimit
            let kit = try providers.registeredKit(for: spec.provider)
            let persona = world!.server.provider
            // An SDK that opens logins in the device's own browser cannot close it: where the
            // provider's documents allow that browser, dismissal is not judged, and says why.
            var judged = invariants
            var dismissalNotJudged: String?
            if let allowed = kit.externalBrowser, await session!.opensExternalBrowser() {
                let reason = "the driver opens logins in the device's own browser (externalBrowser), which no app can close; \(allowed)"
                dismissalNotJudged = reason
                if judged.remove(.dismiss) != nil {
                    progress.state.withLock { $0.invariantsNotChecked.append("\(Invariant.dismiss.rawValue): \(reason)") }
                }
            }
            let judge = InvariantJudge(provider: .init(
                fixtureSecrets: spec.fixture.secrets, serverOnlySecrets: spec.fixture.serverOnlySecrets, actions: kit.actions,
                origin: { persona.origin(serving: $0) }, origins: Set(world!.server.baseURLs.values.map(Self.origin)), accessTokenExpiry: { persona.accessTokenExpiry($0) }
            ), enabled: judged)
            // Progress is anything the flow does: a step begun, a byte the fake read or an
            // answer it wrote, a driver's line. Only a flow where none of them moves is hung.
            let server = world!.server
            let moved: @Sendable () -> Int = { progress.state.withLock { $0.current } &+ server.activity &+ activity.value &+ window.opened.count }
            let ending = await Self.withTimeLimit(limit, watchdog: watchdog, progress: moved) { [spec, world, session, dismissalNotJudged] in
                await Self.runSteps(spec: spec, world: world!, session: session!, clock: clock, browser: browser, background: background, progress: progress, judge: judge, dismissalNotJudged: dismissalNotJudged)
            } onTimeout: { [spec] why in
                // Recorded before the steps are cancelled, so a late answer cannot overwrite it.
                progress.state.withLock { state in
                    let step = spec.steps.first { $0.number == state.current }
                    // An app call or an await that never came back is the SDK's (through its
                    // driver); a browser or send step waits on the harness's own client.
                    let waitsOnTheSDK: Bool
                    let awaited: String
                    switch step?.action {
                    case .app(let name, _)?:
                        waitsOnTheSDK = step?.background == nil
                        awaited = waitsOnTheSDK ? "the SDK's call \(name) never returned" : "the SDK's call \(name) never got under way"
                    case .await(let label)?:
                        waitsOnTheSDK = true
                        awaited = "the background call \"\(label)\" never ended"
                    case .browser?, .send?, .advanceClock?, .fault?, .clearFaults?, .release?, .crashStore?, .server?, nil:
                        waitsOnTheSDK = false
                        awaited = "the step never finished"
                    }
                    state.error = HarnessError(
                        party: waitsOnTheSDK ? .sdk : .harness,
                        message: Self.hungMessage(why, limit: limit, step: state.current, awaited: awaited),
                        place: .during(step: state.current))
                }
            }
            if case .cancelled = ending {
                interrupted = true
                progress.state.withLock { state in
                    if state.error == nil { state.error = HarnessError(party: .harness, message: "the run was interrupted before this flow finished (it was in step \(state.current))", place: .during(step: state.current)) }
                }
            }
        } catch let stop as FlowStop {
            progress.state.withLock { $0.error = stop.error }
        } catch {
            // Setting up the world: the harness's own trouble, unless the error names a party.
            let party = (error as? DriverError)?.party ?? .harness
            progress.state.withLock { $0.error = HarnessError(party: party, message: "\(error)", place: .before(step: spec.steps.first?.number ?? 1)) }
        }
        // A background call still running now was never joined (the flow stopped early, or
        // hung): cancelled, never waited for; the server's stop below ends any request it holds.
        let unjoined = background.cancelAll()
        if !unjoined.isEmpty {
            progress.state.withLock { state in
                // A flow that stopped on a skip (a step the driver cannot perform) left its calls
                // behind for that reason, not the SDK's.
                if state.error == nil, state.failures.isEmpty, state.skips.isEmpty {
                    state.error = HarnessError(party: .sdk, message: "the background call\(unjoined.count == 1 ? "" : "s") \(unjoined.map { "\"\($0)\"" }.joined(separator: ", ")) had not ended when the flow ended, and \(unjoined.count == 1 ? "was" : "were") cancelled", place: .after(step: state.current))
                }
            }
        }
        if let problem = await session?.finish() {
            progress.state.withLock { state in
                let error = HarnessError(party: problem.party, message: problem.description, place: .after(step: max(state.current, spec.steps.first?.number ?? 1)))
                if problem.voidsTheFlow {
                    // A driver that broke the protocol: what the flow found since (a page "the
                    // SDK never opened", a check that saw nothing) is not the SDK's to answer
                    // for. The protocol error is the verdict; a harness error of another party
                    // (the spec, the harness) stands.
                    if state.error == nil || state.error?.party == .sdk {
                        state.error = error
                        state.failures = []
                        // Its checks are void: not judged, so not marked failed either.
                        state.stepStatuses = state.stepStatuses.map { $0 == .failed ? .notRun : $0 }
                    }
                } else if state.error == nil {
                    state.error = error
                }
            }
        }
        // Cut short by the run's interruption however it showed: a driver process stopped
        // before its hello throws, rather than ending the steps as cancelled. A flow that did
        // not pass while the run was being interrupted is not judged: it is listed as not run.
        if !interrupted, Task.isCancelled, progress.state.withLock({ $0.error != nil || !$0.failures.isEmpty }) {
            interrupted = true
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
        // Stopping waits for the server's threads to end: on a thread of its own, so the
        // cooperative pool (two threads here) runs other flows meanwhile rather than idle.
        if let world {
            do {
                try await offThePool("stopping the flow's fake server") { world.stop() }
            } catch {
                world.stop()
            }
        }
        if let storage { try? FileManager.default.removeItem(at: storage) }
        let elapsed = ContinuousClock.now - started
        let state = progress.state.withLock { $0 }
        return (buildResult(state: state, exchanges: exchanges, issuedSecrets: issued, origin: origin, otherOrigins: otherOrigins, elapsed: elapsed, log: log), interrupted)
    }

    private static func runSteps(spec: FlowSpec, world: FakeWorld, session: any FlowSession, clock: ManualClock, browser: ScriptedBrowser, background: BackgroundCalls, progress: Progress, judge: InvariantJudge, dismissalNotJudged: String?) async {
        var steps = StepLoop(spec: spec, world: world, session: session, clock: clock, browser: browser, background: background, progress: progress, judge: judge, dismissalNotJudged: dismissalNotJudged)
        await steps.run()
    }

    /// `scheme://host:port` of a URL, as the judge compares origins.
    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }

    /// How a time-limited body ended.
    enum Ending: Sendable {
        case finished
        case timedOut(Watchdog.Firing)
        /// The task running the flow was cancelled (the run was interrupted).
        case cancelled
    }

    /// Runs `body`, giving up after `limit` of real time (then `onTimeout` runs) or when the
    /// calling task is cancelled; either way `body` is cancelled and left behind (a hung call
    /// may never come back). The watchdog settles the wait from its own thread, so a body that
    /// holds every cooperative thread cannot keep the time limit from being recorded.
    /// What a flow's watchdog saw, in words: stuck, moving for ever, or never able to run.
    static func hungMessage(_ why: Watchdog.Firing, limit: Duration, step: Int, awaited: String) -> String {
        let seconds = limit.components.seconds
        switch why {
        case .still:
            return "the flow made no progress for \(seconds) s of real time (it hung in step \(step)); \(awaited): no step began, the fake server read and wrote nothing, the driver said nothing and the browser opened nothing, while the harness itself kept running; the virtual clock never needs real waiting, so an SDK call or the server is stuck"
        case .keptMoving:
            return "the flow kept the server or driver busy for \(Watchdog.progressLimits) limits of \(seconds) s of real time without finishing (it was in step \(step)); \(awaited): a loop of requests or messages that never ends"
        case .starved(let rounds):
            return "the flow made no progress (it was in step \(step)) and the harness itself could not run either, \(rounds) times in a row over limits of \(seconds) s; \(awaited): something holds every thread of the task pool (a synchronous call that never returns)"
        }
    }

    static func withTimeLimit(_ limit: Duration, watchdog: Watchdog, progress: @escaping @Sendable () -> Int = { 0 }, _ body: @escaping @Sendable () async -> Void, onTimeout: @escaping @Sendable (Watchdog.Firing) -> Void) async -> Ending {
        let ending = Locked<Ending?>(nil)
        let work = Locked<Task<Void, Never>?>(nil)
        let armed = Locked<Watchdog.Armed?>(nil)
        let resume = Locked<CheckedContinuation<Void, Never>?>(nil)
        /// The first ending wins; it cancels the others and resumes the waiter exactly once.
        @Sendable func settle(_ how: Ending) {
            guard ending.withLock({ current in defer { if current == nil { current = how } }; return current == nil }) else { return }
            if case .timedOut(let why) = how { onTimeout(why) }
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
                armed.withLock { $0 = watchdog.arm(limit, progress: progress) { why in settle(.timedOut(why)) } }
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
        let url = FlowStorage.root.appendingPathComponent("flowcheck-\(UUID().uuidString)", isDirectory: true)
        // One mkdir: the root exists and the name is new (FileManager's intermediate-directory
        // walk stats every component, for every flow).
        if mkdir(url.path, 0o700) != 0 {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return url
    }


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
        // What the SDK or a driver wrote (an error's message in a failure, a driver's log, the
        // requests of a flow that did not pass) may hold a secret cut in pieces, which no whole
        // form matches: there pieces are masked too. Indexing them costs, so only a flow with
        // such text pays: one that failed, broke, skipped a check or has a driver log.
        let freeText = masking && (!state.failures.isEmpty || state.error != nil || !log.isEmpty || !state.skips.isEmpty)
        var redactor = Redactor(secrets: masking ? spec.fixture.secrets + issuedSecrets + state.secrets : [], fragments: freeText)
        let kit = providers.kit(for: spec.provider)
        if let origin { redactor.addOrigin(origin, as: "{\(spec.provider.rawValue)}") }
        for (name, other) in otherOrigins { redactor.addOrigin(other, as: "{\(spec.provider.rawValue)-\(name)}") }
        let scrubFree: (String) -> String = freeText ? { [redactor] in redactor.scrubbingFragments($0) } : { [redactor] in redactor.scrub($0) }
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
            CheckFailure(step: failure.step, line: failure.line, check: redactor.scrub(failure.check), expected: redactor.scrub(failure.expected), actual: scrubFree(failure.actual), values: failure.values?.scrubbed(scrubFree))
        }
        let status: FlowResult.Status = state.error != nil ? .error : !failures.isEmpty ? .failed : state.skips.isEmpty ? .passed : .passedWithSkips
        let harnessError = state.error.map { error in
            HarnessError(party: error.party, message: scrubFree(error.message), place: error.place, line: error.line ?? error.place.flatMap { place in spec.steps.first { $0.number == place.step }?.location.line })
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return FlowResult(
            id: spec.id, title: redactor.scrub(spec.title), summary: spec.summary.map(redactor.scrub), file: spec.file,
            provider: spec.provider.rawValue, seed: spec.source.seed, passage: redactor.scrub(spec.source.passage),
            decisions: spec.decisions.map(redactor.scrub), steps: steps, status: status, failures: failures,
            errorMessage: nil,
            // The driver's own log (an out-of-process driver's stderr) closes the transcript.
            // What the SDK sent may hold pieces of a secret (a token cut into a query or a
            // header of its own): in a flow that did not pass, the one a person reads, they are
            // masked too. The driver's log is scrubbed as the lines it wrote, before they are
            // indented, so a value it wrapped over lines reads as one.
            transcript: exchanges.map { scrubFree(Transcript.render($0, mask: redactor.scrub)) } + (log.isEmpty ? [] : ["driver log (stderr):\n" + scrubFree(log.joined(separator: "\n")).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")]),
            duration: seconds,
            events: state.events.map { $0.scrubbed(redactor) }, providerTitle: kit?.title,
            skips: state.skips.map { CheckSkip(step: $0.step, line: $0.line, check: redactor.scrub($0.check), reason: scrubFree($0.reason)) },
            optOuts: state.optOuts.map { InvariantOptOut(step: $0.step, line: $0.line, invariant: $0.invariant, why: redactor.scrub($0.why), used: $0.used) },
            invariantsNotChecked: state.invariantsNotChecked, harnessError: harnessError
        )
    }
}

/// A harness error with its party and place, thrown to end the flow's set-up.
struct FlowStop: Error {
    var error: HarnessError

    init(party: HarnessParty, message: String, place: HarnessError.Place) {
        error = HarnessError(party: party, message: message, place: place)
    }
}

extension FlowExecution {
    /// `error` as the flow's harness error at `place`: a ``DriverError`` names its own party;
    /// anything else a driver throws is the driver's.
    static func located(_ error: any Error, at place: HarnessError.Place, starting: Bool = false) -> FlowStop {
        if let stop = error as? FlowStop { return stop }
        if let driver = error as? DriverError {
            return FlowStop(party: driver.party, message: starting && driver.party == .driver ? "starting the flow's session (makeSession): \(driver.description)" : driver.description, place: place)
        }
        return FlowStop(party: .driver, message: (starting ? "starting the flow's session (makeSession): " : "") + "\(error)", place: place)
    }
}

/// The flow's masking for drivers (``DriverContext/mask``): every secret it knows at the
/// moment of the call, the fixture's, the fake's issued ones and the steps' captured ones.
/// Secrets are added to one redactor as they appear, so masking stays cheap as they grow.
final class FlowMask: Sendable {
    private let fixture: [String]
    private let server: FakeProviderServer?
    private let progress: FlowExecution.Progress
    /// The redactor and how many of the issued and captured secrets it holds.
    private let state: Locked<(redactor: Redactor, issued: Int, captured: Int)>

    init(fixture: [String], server: FakeProviderServer?, progress: FlowExecution.Progress) {
        self.fixture = fixture
        self.server = server
        self.progress = progress
        state = Locked((Redactor(secrets: fixture, fragments: true), 0, 0))
    }

    func apply(_ text: String) -> String {
        // Masking off (a test of verdicts with plain reports) masks nothing here either.
        guard let server else { return text }
        let issued = server.issuedSecrets
        let captured = progress.state.withLock { $0.secrets }
        return state.withLock { state in
            if issued.count > state.issued { state.redactor.add(Array(issued[state.issued...])); state.issued = issued.count }
            if captured.count > state.captured { state.redactor.add(Array(captured[state.captured...])); state.captured = captured.count }
            // A driver's text may hold a secret cut in pieces (a token logged in halves).
            return state.redactor.scrubbingFragments(text)
        }
    }
}

/// Where flows keep their token stores.
package enum FlowStorage {
    /// The folder each flow's own store folder is made in. The SDK's store fsyncs every write
    /// (as it must on a device), and on a disk-backed /tmp those flushes, and the discards when
    /// the folder is removed, were most of a flow's real time. Memory-backed /dev/shm (Linux)
    /// keeps the same code path at no I/O cost; elsewhere, or without it, the temporary
    /// directory.
    package static let root: URL = {
        #if os(Linux)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           access("/dev/shm", W_OK | X_OK) == 0 {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        #endif
        return FileManager.default.temporaryDirectory
    }()
}
