/// One step: at most one action, then expectations about what followed.
public struct Step: Sendable {
    /// 1-based, as the reports number steps.
    public var number: Int
    public var location: SourceLocation
    public var note: String?
    public var action: Action?
    public var expect: Expectation?
    /// `"async": LABEL` on an app step: the call is started in the background under this
    /// label and left running; a later `{"await": LABEL}` step joins it and checks its end.
    public var background: String?
    /// `"allow"`: invariants this step opts out of, each with the spec author's reason.
    public var allow: [InvariantAllowance] = []
    /// Requirement ids this step's checks enforce beyond the flow's own (`"requirements"`).
    public var requirements: [String] = []
    /// A derived variant's step with an action its flow never asks of the driver (a logout, a
    /// relaunch): a driver that cannot perform it leaves the variant skipped, with the reason,
    /// never failed and never passed. False for every written step.
    public var addedByDerivation = false

    public init(number: Int, location: SourceLocation, note: String? = nil, action: Action? = nil, expect: Expectation? = nil, background: String? = nil, allow: [InvariantAllowance] = []) {
        self.allow = allow
        self.number = number
        self.location = location
        self.note = note
        self.action = action
        self.expect = expect
        self.background = background
    }

    /// Whether the step's `expect` judges an SDK call's end (outcome, error, result): an app
    /// call made in the foreground, or the join of a background one.
    public var endsACall: Bool {
        switch action {
        case .app?: return background == nil
        case .await?: return true
        case .browser?, .advanceClock?, .fault?, .clearFaults?, .release?, .server?, .send?, .crashStore?, nil: return false
        }
    }
}

/// The keys that make a step's action, one per ``Action`` case. The decoder, the narrative
/// and the schema switch over it with no `default:`, so a new kind is handled everywhere or
/// nothing compiles.
public enum ActionKind: String, CaseIterable, Sendable {
    case app, browser, advanceClock, fault, clearFaults, server, send
    /// Joins a call started earlier with `"async": LABEL`.
    case await
    /// Answers the request a `hold` fault holds for the call started with `"async": LABEL`,
    /// leaving any other held request held: `{"release": LABEL}`.
    case release
    /// Arms a crash of the token store's next write: `{"crashStore": "nextWrite"}`.
    case crashStore
}

/// Where a `crashStore` step makes the store's write die. The decoder, the runner, the
/// narrative and the schema switch over it with no `default:`.
public enum StoreCrashPoint: String, CaseIterable, Sendable {
    /// The store's next write dies after its data has reached the disk and before it is
    /// committed: for a file store that replaces by rename, after the temporary file is
    /// written and before the rename; for one that rewrites in place, part-way through.
    case nextWrite

    /// What it stands for, as the narrative and the schema say it.
    public var summary: String {
        switch self {
        case .nextWrite: return "the token store's next write dies after its data reaches the disk and before it is committed (before the rename)"
        }
    }
}

/// What the scripted browser does when a step says `"browser": "..."`. The decoder, the
/// browser, the narrative and the schema switch over it with no `default:`, so a new operation
/// is handled everywhere or nothing compiles.
public enum BrowserOperation: String, CaseIterable, Sendable {
    case login, deny, open, tamper

    /// Its arguments and what it stands for, as the loader checks and reports say it.
    public var signature: Vocabulary.ActionSignature {
        switch self {
        case .login:
            return .init(name: rawValue, required: ["email", "password"], optional: [], summary: "the user loads the page the SDK opened and logs in", types: ["email": .text, "password": .text])
        case .deny:
            return .init(name: rawValue, required: [], optional: [], summary: "the user loads the page the SDK opened and declines")
        case .open:
            return .init(name: rawValue, required: ["url"], optional: [], summary: "the user's browser opens a URL the app built itself", types: ["url": .url])
        case .tamper:
            // Any value may be set (an attacker's); only the listed parameters may be removed.
            let settable = Vocabulary.tamperParameters + Vocabulary.tamperURLParts
            var types = Dictionary(uniqueKeysWithValues: settable.map { ($0, Vocabulary.ArgumentType.text) })
            types["remove"] = .listOf(Vocabulary.tamperParameters)
            types["order"] = .oneOf(["reversed"])
            types["move"] = .oneOf(["queryToFragment"])
            var tamper = Vocabulary.ActionSignature(name: rawValue, required: [], optional: settable + ["remove", "order", "move"], summary: "an attacker rewrites the captured redirect: sets the given parameters and URL parts (or transforms their captured values), removes the parameters listed in remove, reverses the parameters' order", types: types)
            tamper.transformable = settable
            return tamper
        }
    }
}

/// What a step does before its expectations are checked.
public enum Action: Sendable, Equatable {
    /// The key that wrote it.
    public var kind: ActionKind {
        switch self {
        case .app: return .app
        case .advanceClock: return .advanceClock
        case .fault: return .fault
        case .clearFaults: return .clearFaults
        case .server: return .server
        case .browser: return .browser
        case .send: return .send
        case .await: return .await
        case .release: return .release
        case .crashStore: return .crashStore
        }
    }

    /// An SDK call through the driver, e.g. `auth` with its arguments.
    case app(name: String, arguments: [Argument])
    /// Moves the virtual clock shared by the SDK and the fake server.
    case advanceClock(seconds: Int, written: String)
    /// Tells the fake server to misbehave.
    case fault(FaultSpec)
    /// Ends every injected fault.
    case clearFaults
    /// A server-side operation of the provider persona, e.g. `revokeTokens`.
    case server(operation: String)
    /// The scripted browser acts as the user: `login`, `deny`, `open`, `tamper`. `transforms`
    /// (a `tamper` only) rewrite parameters of the captured redirect from their own values.
    case browser(operation: BrowserOperation, arguments: [Argument], transforms: [ParameterTransform] = [])
    /// The harness itself sends a request to the fake, as any HTTP client would.
    case send(SendSpec)
    /// Waits for the background call started under `label` and checks how it ended, as an
    /// app step checks its call.
    case await(label: String)
    /// The server answers the request it holds for the background call `label` (the one a
    /// `hold` fault held while that call got under way), as `clearFaults` would, and only that
    /// one: held requests are released in any order. The step goes on once it is answered and
    /// recorded; the call itself goes on in the background until its `await`.
    case release(label: String)
    /// Arms a crash of the token store at `point`: the write the SDK makes next dies there, as
    /// if the app were killed, and the SDK call that made it ends with the store's error. A
    /// driver that cannot interrupt its store reports so, and the rest of the flow is skipped.
    case crashStore(StoreCrashPoint)
}

/// A request the harness sends to the fake server itself.
public struct SendSpec: Sendable, Equatable {
    public var method: String
    public var path: Template
    public var headers: [Argument]
    /// Sent as a JSON object of strings when not empty.
    public var json: [Argument]
    /// Sent form-encoded when not empty.
    public var form: [Argument]

    public init(method: String, path: Template, headers: [Argument] = [], json: [Argument] = [], form: [Argument] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.json = json
        self.form = form
    }
}

/// A named argument of an app action.
public struct Argument: Sendable, Equatable {
    public var name: String
    public var value: Template

    public init(name: String, value: Template) {
        self.name = name
        self.value = value
    }
}

/// A server fault: which, on which path, how many times.
public struct FaultSpec: Sendable, Equatable {
    public var kind: String
    /// Nil: every path.
    public var path: String?
    /// Nil: until cleared.
    public var times: Int?
    /// `stall` only: how far the virtual clock moves while the server holds the request, so
    /// an SDK's request timeout (on the same clock) fires without real waiting.
    public var clockAdvance: Int?
    /// The duration as written, for reports.
    public var clockAdvanceWritten: String?

    public init(kind: String, path: String? = nil, times: Int? = nil, clockAdvance: Int? = nil, clockAdvanceWritten: String? = nil) {
        self.kind = kind
        self.path = path
        self.times = times
        self.clockAdvance = clockAdvance
        self.clockAdvanceWritten = clockAdvanceWritten
    }
}

/// One `"allow"` entry: a step opting out of an invariant, and why. Reports list every one.
public struct InvariantAllowance: Sendable, Equatable {
    public var invariant: Invariant
    /// The spec author's reason, shown in the report beside the opt-out.
    public var why: String
    public var location: SourceLocation

    public init(invariant: Invariant, why: String, location: SourceLocation) {
        self.invariant = invariant
        self.why = why
        self.location = location
    }
}
