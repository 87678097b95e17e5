import Foundation
import FlowCheckSpec

/// What a whole run produced. Reporters read only this.
public struct RunResult: Sendable {
    public var flows: [FlowResult]
    /// Spec files that could not be loaded, with every problem found in them.
    public var invalidSpecs: [InvalidSpec]
    /// The driver the flows ran through.
    public var driverName: String
    /// Set when a signal stopped the run before every selected flow had finished.
    public var interruption: RunInterruption?
    /// `--baseline`: flows expected to fail, by id, with the baseline's reason. Their failures
    /// are reported as baselined and do not fail the run; their harness errors still do.
    public var baselined: [String: String]

    public init(flows: [FlowResult], invalidSpecs: [InvalidSpec] = [], driverName: String, interruption: RunInterruption? = nil, baselined: [String: String] = [:]) {
        self.baselined = baselined
        self.flows = flows
        self.invalidSpecs = invalidSpecs
        self.driverName = driverName
        self.interruption = interruption
    }

    public var passed: Int { flows.filter { $0.status == .passed }.count }
    /// Flows whose every check that could be made held, with some not made (skipped).
    public var passedWithSkips: Int { flows.filter { $0.status == .passedWithSkips }.count }
    public var failed: Int { flows.filter { $0.status == .failed }.count }
    /// Flows the driver could not run at all.
    public var skipped: Int { flows.filter { $0.status == .skipped }.count }
    public var errors: Int { flows.filter { $0.status == .error }.count }

    /// The baseline's reason when `flow` failed as the baseline expects; nil otherwise.
    public func baselineReason(_ flow: FlowResult) -> String? {
        Self.baselineReason(flow, baselined: baselined)
    }

    /// The reason `baselined` gives for `flow`'s failure: its flow id's line, or, when every
    /// failure of the flow is an invariant's, those invariants' lines (`INV-KEEP reason`: a rule
    /// the SDK is known to break everywhere). nil when the flow did not fail, or failed in a way
    /// the baseline does not list.
    public static func baselineReason(_ flow: FlowResult, baselined: [String: String]) -> String? {
        switch flow.status {
        case .failed:
            if let reason = baselined[flow.id] { return reason }
            let invariants = flow.failures.map(Invariant.cited(by:))
            guard !invariants.isEmpty, invariants.allSatisfy({ $0.map { baselined[$0.rawValue] != nil } ?? false }) else { return nil }
            let ids = Array(Set(invariants.compactMap { $0?.rawValue })).sorted()
            return ids.compactMap { id in baselined[id].map { "\(id): \($0)" } }.joined(separator: "; ")
        case .passed, .passedWithSkips, .error, .skipped: return nil
        }
    }

    /// Failed flows the baseline lists: known debt, not a new failure.
    public var baselinedFailures: Int { flows.filter { baselineReason($0) != nil }.count }
    /// Failed flows the baseline does not list.
    public var newFailures: Int { failed - baselinedFailures }
    /// Ids of the baselined flows that passed this run: their lines can go.
    public var unexpectedlyPassing: [String] {
        flows.filter { flow in
            switch flow.status {
            case .passed, .passedWithSkips: return baselined[flow.id] != nil
            case .failed, .error, .skipped: return false
            }
        }.map(\.id).sorted(by: NaturalOrder.precedes)
    }
}

/// A run stopped by a signal: which one, and the selected flows that did not finish (a flow
/// cut short is listed here, not judged).
public struct RunInterruption: Sendable, Equatable {
    /// `SIGINT` or `SIGTERM`.
    public var signal: String
    /// Ids of the flows that did not run to the end, in the order they were selected.
    public var notRun: [String]

    public init(signal: String, notRun: [String]) {
        self.signal = signal
        self.notRun = notRun
    }

    /// One sentence for the console and the reports, naming at most `listing` of the flows
    /// that did not run (all of them when nil) and how many more there are.
    public func sentence(listing: Int? = nil) -> String {
        let head = "The run was interrupted by \(signal): \(notRun.count) flow\(notRun.count == 1 ? "" : "s") did not run"
        guard !notRun.isEmpty else { return head + "." }
        let shown = listing.map { Array(notRun.prefix($0)) } ?? notRun
        let more = notRun.count - shown.count
        return head + ": " + shown.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "") + "."
    }
}

/// A spec file that is not a valid spec.
public struct InvalidSpec: Sendable, Equatable {
    public var file: String
    /// Each problem rendered as `file:line:column: error: ... at $.path` plus a `fix:` line.
    public var messages: [String]
    /// The line of the first problem (for CI annotations).
    public var line: Int
    /// Each problem as data (file, line, column, JSON path, message, fix), in the loader's
    /// order: the first is the one CI annotations and JUnit point at.
    public var diagnostics: [SpecDiagnostic]

    public init(file: String, messages: [String], line: Int, diagnostics: [SpecDiagnostic] = []) {
        self.file = file
        self.messages = messages
        self.line = line
        self.diagnostics = diagnostics
    }

    /// The invalid spec of `file` from the loader's diagnostics for it.
    public init(file: String, diagnostics: [SpecDiagnostic]) {
        self.init(file: file, messages: diagnostics.map(\.description), line: diagnostics.first?.location.line ?? 1, diagnostics: diagnostics)
    }

    /// The column of the first problem (1 when there is none to point at).
    public var column: Int { diagnostics.first?.location.column ?? 1 }
}

/// One flow's verdict, with everything the reports show. All text is already redacted.
public struct FlowResult: Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// Every step's expectations held.
        case passed
        /// Every expectation the harness could check held, and some could not be checked with
        /// this driver (``FlowResult/skips`` says which and why): not a silent pass.
        case passedWithSkips
        /// An expectation did not hold: the SDK does not conform.
        case failed
        /// The flow could not be judged (``FlowResult/harnessError`` says who broke: the SDK
        /// hung, a driver gave up or broke its protocol, the spec asks the impossible, the
        /// harness's server would not start).
        case error
        /// Not run: the driver cannot run it at all (``FlowDriver/unsupportedReason(for:)``);
        /// ``FlowResult/skips`` holds the one reason. Never counted as passed.
        case skipped
    }

    public var id: String
    public var title: String
    public var summary: String?
    public var file: String
    public var provider: String
    /// The provider as reports title it, e.g. "Moltin (seed 003)" (its kit's title).
    public var providerTitle: String
    public var seed: String
    public var passage: String
    /// The requirement ids the flow cites: its own, then its steps' (``FlowSpec/allRequirements``).
    public var requirements: [String] = []
    public var decisions: [String]
    public var steps: [StepResult]
    public var status: Status
    /// The expectations that did not hold (empty unless failed).
    public var failures: [CheckFailure]
    /// Why the flow could not be judged: who broke, where and what (nil unless status is error).
    public var harnessError: HarnessError?
    /// The harness error as one line (``HarnessError/text``): `step 2: driver protocol: ...`.
    /// Setting it makes a harness error of FlowCheck's own (``HarnessParty/harness``).
    public var errorMessage: String? {
        get { harnessError?.text }
        set { harnessError = newValue.map { HarnessError(party: .harness, message: $0) } }
    }
    /// The checks that could not be made with this driver, and why.
    public var skips: [CheckSkip] = []
    /// Every HTTP exchange the fake server saw, redacted.
    public var transcript: [String]
    /// Wall time in seconds (JUnit only: the Markdown must be the same on every run).
    public var duration: Double
    /// What happened, in order, for the sequence diagram: no secrets, no ports, no query strings.
    public var events: [FlowEvent] = []
    /// Every step's opt-out from an invariant (`"allow"`), with its reason: reports list them all.
    public var optOuts: [InvariantOptOut] = []
    /// Invariants that could not be checked in this flow with this driver, and why (a store
    /// that is not file-backed has no files to judge). The flow's status does not change.
    public var invariantsNotChecked: [String] = []
    /// For a variant derived from a written flow: its flow, family and rule (nil for a flow).
    public var derivation: Derivation?

    public init(
        id: String, title: String, summary: String?, file: String, provider: String, seed: String, passage: String,
        decisions: [String], steps: [StepResult], status: Status, failures: [CheckFailure], errorMessage: String?,
        transcript: [String], duration: Double, events: [FlowEvent] = [], providerTitle: String? = nil, skips: [CheckSkip] = [],
        optOuts: [InvariantOptOut] = [], invariantsNotChecked: [String] = [], harnessError: HarnessError? = nil
    ) {
        self.optOuts = optOuts
        self.invariantsNotChecked = invariantsNotChecked
        self.skips = skips
        self.events = events
        self.providerTitle = providerTitle ?? provider
        self.id = id
        self.title = title
        self.summary = summary
        self.file = file
        self.provider = provider
        self.seed = seed
        self.passage = passage
        self.decisions = decisions
        self.steps = steps
        self.status = status
        self.failures = failures
        // The structured error when given; a bare message is the harness's own.
        self.harnessError = harnessError ?? errorMessage.map { HarnessError(party: .harness, message: $0) }
        self.transcript = transcript
        self.duration = duration
    }
}

/// One step as documentation and verdict.
public struct StepResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        case passed, failed, notRun
        /// Its checks held, except some that could not be made (skipped, with a reason).
        case skipped
    }

    public var number: Int
    /// The line of the step in its spec file.
    public var line: Int
    /// What the app or the world does, in words (nil for a step that only checks).
    public var action: String?
    /// What must hold afterwards, one check per line, in words.
    public var checks: [String]
    public var note: String?
    public var status: Status
    /// The requirement ids the step cites beyond its flow's (empty: it checks the flow's).
    public var requirements: [String] = []

    public init(number: Int, line: Int, action: String?, checks: [String], note: String?, status: Status) {
        self.number = number
        self.line = line
        self.action = action
        self.checks = checks
        self.note = note
        self.status = status
    }
}

/// An expectation that did not hold.
public struct CheckFailure: Sendable, Equatable {
    public var step: Int
    public var line: Int
    /// What was checked, e.g. `requests[0].form.client_secret`.
    public var check: String
    public var expected: String
    public var actual: String
    /// The requirement ids the failed check enforces: its step's, else its flow's; for an
    /// invariant's failure, the invariant's (``Invariant/requirements``).
    public var requirements: [String]
    /// The same failure as data (check kind, matcher, the values compared); nil when the
    /// failure was made by hand without them.
    public var values: FailureValues?

    public init(step: Int, line: Int, check: String, expected: String, actual: String, requirements: [String] = [], values: FailureValues? = nil) {
        self.values = values
        self.requirements = requirements
        self.step = step
        self.line = line
        self.check = check
        self.expected = expected
        self.actual = actual
    }

    /// One line: `step 2: requests[0].form.client_secret: expected equals "x", got "y"`.
    public var message: String { "step \(step): \(check): expected \(expected), got \(actual)" }
}

/// One thing that happened in a flow, as the sequence diagram draws it.
public enum FlowEvent: Sendable, Equatable {
    /// Who sent a request to the fake.
    public enum Actor: String, Sendable {
        case sdk = "SDK"
        case browser = "Browser"
        /// A request a spec sent itself (`send`): any other client, such as the app's own code.
        case client = "Client"
    }

    /// The app calls the SDK.
    case call(step: Int, name: String)
    /// The call's outcome: "ok", or an error kind.
    case outcome(step: Int, text: String)
    /// A request the fake answered: method, path (no query), status.
    case request(step: Int, actor: Actor, method: String, path: String, status: Int)
    /// The SDK opened a URL in the browser (path only).
    case opened(step: Int, path: String)
    /// The SDK dismissed the browser.
    case dismissed(step: Int)
    /// The browser handed a redirect to the app (scheme, host and path only).
    case redirect(step: Int, target: String)
    /// Something the world did: the clock moved, a fault, a server operation.
    case note(step: Int, text: String)
}

extension FlowEvent {
    /// The event with every string passed through the redactor.
    func scrubbed(_ redactor: Redactor) -> FlowEvent {
        switch self {
        case .call(let step, let name): return .call(step: step, name: redactor.scrub(name))
        case .outcome(let step, let text): return .outcome(step: step, text: redactor.scrub(text))
        case .request(let step, let actor, let method, let path, let status):
            return .request(step: step, actor: actor, method: method, path: redactor.scrub(path), status: status)
        case .opened(let step, let path): return .opened(step: step, path: redactor.scrub(path))
        case .dismissed: return self
        case .redirect(let step, let target): return .redirect(step: step, target: redactor.scrub(target))
        case .note(let step, let text): return .note(step: step, text: redactor.scrub(text))
        }
    }
}

/// A step's opt-out from an invariant, as the report lists it.
public struct InvariantOptOut: Sendable, Equatable {
    public var step: Int
    public var line: Int
    /// The invariant's id, e.g. `INV-EXPIRED`.
    public var invariant: String
    /// The spec author's reason.
    public var why: String
    /// Whether the invariant would have failed the step without the opt-out: an opt-out that
    /// never does is a candidate for removal.
    public var used: Bool

    public init(step: Int, line: Int, invariant: String, why: String, used: Bool) {
        self.step = step
        self.line = line
        self.invariant = invariant
        self.why = why
        self.used = used
    }
}
