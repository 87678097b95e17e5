import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// Clever Instant Login (seed 004) as explore sees it: logins started (and started again), the
/// user logging in or declining, redirects handed to the app once, twice, late or after a
/// newer login began, rewritten by every tamper the derived variants try (the same list,
/// `RedirectTamperCatalog`), faults on the token endpoint, a store crash, and relaunches.
///
/// What it predicts, and where each prediction comes from:
/// - startLogin opens the authorize page with a fresh state and makes no request (CLE-LOGIN,
///   CLE-STATE-FRESH); a login started while another is pending replaces it.
/// - The pending login's own redirect with a code is one `POST /oauth/tokens` and a stored
///   token, the browser dismissed (CLE-LOGIN); with a fault armed on the token endpoint it is
///   an error of the fault's kind and nothing new is stored (the login is still used up:
///   CLE-DISMISS, DRV-REPLAY).
/// - Its denial is an `authorization` error with no request, the browser dismissed
///   (CLE-DENIED).
/// - Any other redirect (a replay of a used one, one of a login replaced by a newer one, one
///   handed over after a relaunch) is `stateMismatch` with no request and the store unchanged
///   (CLE-STATE-REPLAY, CLE-STATE-MISMATCH, seed 004 "only once").
/// - A tampered redirect of the pending login gets the outcome the tamper's derived rule gives
///   it: refused with no request (DRV-REFUSED, DRV-MISSING, DRV-CODE-BESIDE-ERROR), no login
///   (DRV-NO-LOGIN), the original's (DRV-EQUIVALENT), or its injected credential never sent
///   nor stored (DRV-INJECTED); the store unchanged unless the rule lets the login go on.
/// - A relaunch keeps the stored token and forgets the login in progress.
public struct CleverModel: ProviderModel {
    /// One thing the app, the user or the world does.
    public enum Action: Sendable, Equatable {
        case startLogin, login, deny, receiveRedirect, relaunch
        /// The store's next write dies before its commit.
        case crashStore
        /// The pending login's redirect handed over twice at once.
        case receiveTwice
        /// The captured redirect (a denial's when `denied`) rewritten by the `index`-th tamper
        /// of the catalogue for it.
        case tamper(denied: Bool, index: Int)
        /// A fault armed on the token endpoint until cleared.
        case fault(kind: String)
        case clearFaults
        /// A documented-equivalent shape of an answer, armed until faults are cleared.
        case reshape(path: String, kind: String)
    }

    public let provider = Provider.clever
    public let idPrefix = "CLE"

    static let clientID = "ios-exp@district"
    static let redirectURI = "clever-ios-exp://oauth"
    static let tokenPath = "/oauth/tokens"
    static let startArguments = [("clientId", clientID), ("redirectURI", redirectURI)]
    /// Faults with the error kind a code exchange that meets them ends in (nil: only that it
    /// is an error), as the committed fault flows decide them. Not `unreachable`: it closes the
    /// whole server, and the browser's pages are on it too.
    static let faultKinds: [(String, String?)] = [
        ("serverError", "serverError"), ("serviceUnavailable", "serverError"), ("htmlServerError", "serverError"),
        ("connectionReset", "transport"), ("truncatedJSON", "invalidResponse"), ("nonJSONBody", nil),
    ]

    /// The reshapes of Clever's answers (the token answer with members it never sends).
    static let reshapes = AnswerReshapes.of(.clever, fixture: CleverFixture(clients: [], users: []))

    /// A model with the standard fixture.
    public init() {}

    // MARK: - State

    /// What the browser's last redirect is.
    enum Redirect: Equatable {
        case none
        /// A code for login `login` (its number).
        case code(login: Int)
        case denied(login: Int)
        /// Login `login`'s redirect (a code's unless `denied`), rewritten with this outcome.
        case tampered(login: Int, denied: Bool, outcome: RedirectTamperCatalog.Tamper.Outcome)
    }

    /// The tampers of a code's redirect and of a denial's: the derived variants' own list.
    static let tampers: (code: [RedirectTamperCatalog.Tamper], denied: [RedirectTamperCatalog.Tamper]) = {
        let profile = ProviderRegistry.catalog.description(of: .clever)?.derivation ?? DerivationProfile()
        return (RedirectTamperCatalog.tampers(parameters: ["code", "state"], host: "oauth", path: nil, denied: false, profile: profile),
                RedirectTamperCatalog.tampers(parameters: ["error", "state"], host: "oauth", path: nil, denied: true, profile: profile))
    }()

    struct State {
        /// The login in progress: its number; nil when none.
        var pending: Int?
        /// Logins started so far.
        var logins = 0
        /// Whether the pending login's page is still showing (a login or denial not yet made).
        var pageOpen = false
        var redirect = Redirect.none
        var stored: String?
        /// False once a step may have stored a token the model cannot name (an injected
        /// credential beside a code the SDK may exchange): no store prediction until the next
        /// named one.
        var storeKnown = true
        var captures = 0
        var fault: String?
        /// The reshapes armed (``AnswerReshapes``): they change no prediction.
        var reshapes: [AnswerReshapes.Reshape] = []
        /// Whether this instance has been given its client (a startLogin since the launch): the
        /// SDK is made with it, so a redirect before that has no SDK to go to.
        var configured = false
        /// A store crash armed for the next write.
        var crashArmed = false
        /// A crashed write's temporary file may be in the store's folder from here on.
        var crashLeftover = false

        var storeUnchanged: [(String, SpecJSON)] {
            guard storeKnown else { return [] }
            guard let stored else { return [("storeEmpty", true)] }
            return [("store", .object([("accessToken", .string("${\(stored)}"))]))]
        }
    }

    // MARK: - Generation

    public func generate(using random: inout SplitMix64, maxSteps: Int, toward unreached: Set<String>) -> ModelPlan<Action> {
        let actions = draw(from: State(), using: &random, maxSteps: maxSteps, choose: { state, random, _ in choose(state, &random, toward: unreached) }, apply: step)
        return ModelPlan(variant: 0, actions: actions)
    }

    private func choose(_ state: State, _ random: inout SplitMix64, toward unreached: Set<String>) -> Action {
        var choices: [(Action, Int)] = [(.startLogin, state.pending == nil ? 8 : 1), (.relaunch, 1)]
        if state.pageOpen { choices += [(.login, 10), (.deny, 2)] }
        if state.redirect != .none, state.configured { choices.append((.receiveRedirect, state.pending != nil ? 10 : 2)) }
        choices.append(state.fault == nil ? (pick(Self.faultKinds.map { .fault(kind: $0.0) }, toward: unreached, &random), 1) : (.clearFaults, 3))
        if !state.crashArmed { choices.append((.crashStore, 1)) }
        let reshapes = Self.reshapes.filter { !state.reshapes.contains($0) }
        if !reshapes.isEmpty { choices.append((pick(reshapes.map { .reshape(path: $0.path, kind: $0.kind) }, toward: unreached, &random), 1)) }
        if !state.reshapes.isEmpty, state.fault == nil { choices.append((.clearFaults, 1)) }
        switch state.redirect {
        case .code:
            choices.append((pick(Self.tampers.code.indices.map { .tamper(denied: false, index: $0) }, toward: unreached, &random), 4))
            if state.pending != nil { choices.append((.receiveTwice, 2)) }
        case .denied: choices.append((pick(Self.tampers.denied.indices.map { .tamper(denied: true, index: $0) }, toward: unreached, &random), 2))
        case .none, .tampered: break
        }
        return random.weighted(steered(choices, toward: unreached))
    }

    public func simplifications(of action: Action) -> [Action] {
        switch action {
        case .fault(let kind): return kind == "serverError" ? [] : [.fault(kind: "serverError")]
        case .startLogin, .login, .deny, .receiveRedirect, .relaunch, .crashStore, .tamper, .receiveTwice, .clearFaults, .reshape: return []
        }
    }

    // MARK: - Reach

    public func reachName(of action: Action) -> String {
        switch action {
        case .startLogin: return "startLogin"
        case .login: return "login"
        case .deny: return "deny"
        case .receiveRedirect: return "receiveRedirect"
        case .receiveTwice: return "receiveTwice"
        case .relaunch: return "relaunch"
        case .crashStore: return "crashStore"
        case .fault(let kind): return "fault.\(kind)"
        case .clearFaults: return "clearFaults"
        case .reshape(let path, let kind): return AnswerReshapes.Reshape(path: path, kind: kind).reachName
        case .tamper(let denied, let index):
            let list = denied ? Self.tampers.denied : Self.tampers.code
            return "tamper.\(denied ? "denied" : "code").\(list.indices.contains(index) ? list[index].name : "?")"
        }
    }

    public var reachNames: [String] {
        let fixed: [Action] = [.startLogin, .login, .deny, .receiveRedirect, .receiveTwice, .relaunch, .crashStore, .clearFaults]
        let faults: [Action] = Self.faultKinds.map { .fault(kind: $0.0) }
        let tampers: [Action] = Self.tampers.code.indices.map { .tamper(denied: false, index: $0) } + Self.tampers.denied.indices.map { .tamper(denied: true, index: $0) }
        return (fixed + faults + tampers).map(reachName) + Self.reshapes.map(\.reachName)
    }

    // MARK: - Model states

    public func stateNames(of plan: ModelPlan<Action>) -> Set<String> {
        visited(plan.actions, from: State(), apply: step, name: Self.names)
    }

    public var stateNames: [String] {
        ["configured", "notConfigured", "login.none", "login.pageShowing", "redirect.none", "redirect.code", "redirect.denied", "redirect.tampered",
         "token.stored", "token.none", "token.unknown", "fault.armed", "reshape.armed", "crash.armed", "crash.leftover"]
    }

    /// The facets of `state`: the instance, the login in progress and its redirect, the
    /// stored token, what is armed.
    static func names(_ state: State) -> [String] {
        var names = [state.configured ? "configured" : "notConfigured", state.pending != nil && state.pageOpen ? "login.pageShowing" : "login.none"]
        switch state.redirect {
        case .none: names.append("redirect.none")
        case .code: names.append("redirect.code")
        case .denied: names.append("redirect.denied")
        case .tampered: names.append("redirect.tampered")
        }
        names.append(!state.storeKnown ? "token.unknown" : state.stored == nil ? "token.none" : "token.stored")
        if state.fault != nil { names.append("fault.armed") }
        if !state.reshapes.isEmpty { names.append("reshape.armed") }
        if state.crashArmed { names.append("crash.armed") }
        if state.crashLeftover { names.append("crash.leftover") }
        return names
    }

    // MARK: - Rendering

    public func render(_ plan: ModelPlan<Action>, id: String) -> RenderedFlow {
        var state = State()
        let steps = written(plan.actions, from: &state, apply: step)
        let fixture = SpecJSON.object([
            ("clients", .array([.object([("id", .string(Self.clientID)), ("redirectURL", .string(Self.redirectURI))])])),
            ("users", .array([.object([("email", "student@example.edu"), ("password", "pw-Stu-5521")])])),
        ])
        let spec = SpecText.spec(
            id: id, title: "Explored Clever Instant Login flow \(id)",
            summary: "A random Clever Instant Login flow generated by flowcheck explore; each expectation is the Clever model's prediction.",
            seed: "004_571562fab49d393b.txt", passage: "Step 2 - Set the state parameter; Step 3 - Initiating a login; Step 4 - Requesting a token",
            provider: provider.rawValue, fixture: fixture,
            decisions: ["Generated: the expectations are what the committed Clever specs decide (a fresh state per login, a redirect accepted once and only for the login that sent its state, the browser dismissed when a login ends)."],
            steps: steps
        )
        return RenderedFlow(spec: spec, stepCount: steps.count)
    }

    /// Why a step after a store crash may find the crashed write's temporary file: the
    /// written MLT-STORE-CRASH's reason (a store may remove it when next opened, written or
    /// emptied; Clever has no logout to judge it at).
    static let leftoverAllowance: SpecJSON = .array([.object([
        ("invariant", "INV-STORE"),
        ("why", "the simulated crash leaves the killed write's temporary file on purpose; a store may remove it when it is next opened, written or emptied, and Clever's SDK has no logout to judge it at"),
    ])])

    /// The action's steps (one, or the four of a redirect handed over twice at once), or nil
    /// when it has no place where the flow stands.
    func step(_ action: Action, _ state: inout State) -> [SpecJSON]? {
        if action == .receiveTwice { return twiceAtOnce(&state) }
        guard let written = plainStep(action, &state) else { return nil }
        return [state.crashLeftover ? StepBuilder.allowing(Self.leftoverAllowance, in: written) : written]
    }

    /// The pending login's redirect handed over twice at once (a double tap, two URL-open
    /// events): one token request in all and the token stored (DRV-ONCE, CLE-LOGIN).
    private func twiceAtOnce(_ state: inout State) -> [SpecJSON]? {
        guard state.configured, case .code(let login) = state.redirect, login == state.pending, state.fault == nil, !state.crashArmed, !state.crashLeftover else { return nil }
        state.pending = nil
        state.pageOpen = false
        state.captures += 1
        let name = "token\(state.captures)"
        state.stored = name
        state.storeKnown = true
        let url = SpecJSON.object([("url", "${redirect}")])
        return [
            .object([("app", "receiveRedirect"), ("with", url), ("async", "first")]),
            .object([("app", "receiveRedirect"), ("with", url), ("async", "second"), ("note", "The same redirect again at once.")]),
            .object([("await", "second"), ("expect", .object([("outcome", "any")]))]),
            .object([("await", "first"), ("note", "DRV-ONCE: exchanged once, the token stored."), ("expect", .object([
                ("outcome", "any"),
                ("requests", .array([StepBuilder.request("POST", Self.tokenPath, status: 200)])),
                ("store", .object([("accessToken", StepBuilder.capture(name))])),
            ]))]),
        ]
    }

    private func plainStep(_ action: Action, _ state: inout State) -> SpecJSON? {
        switch action {
        case .receiveTwice:
            return nil
        case .startLogin:
            state.logins += 1
            state.pending = state.logins
            state.configured = true
            state.pageOpen = true
            return StepBuilder.app("startLogin", with: Self.startArguments, expect: [
                ("requests", .array([])),
                ("browser", .object([("opened", .array([.object([("path", "/oauth/authorize")])]))])),
            ] + state.storeUnchanged)
        case .login, .deny:
            guard state.pageOpen, let pending = state.pending else { return nil }
            state.pageOpen = false
            if action == .login {
                state.redirect = .code(login: pending)
                return .object([
                    ("browser", "login"),
                    ("with", .object([("email", "student@example.edu"), ("password", "pw-Stu-5521")])),
                    ("expect", .object([("browser", .object([("redirect", .object([("query", .object([("code", .object([("present", true)]))]))]))]))])),
                ])
            }
            state.redirect = .denied(login: pending)
            return .object([("browser", "deny")])
        case .receiveRedirect:
            guard state.configured else { return nil }
            switch state.redirect {
            case .none:
                return nil
            case .code(let login) where login == state.pending:
                return exchange(&state)
            case .denied(let login) where login == state.pending:
                return declined(&state)
            case .tampered(let login, let denied, let outcome) where login == state.pending:
                switch outcome {
                case .equivalent:
                    // The same redirect: what the original would do, and its login is used up.
                    state.redirect = denied ? .denied(login: login) : .code(login: login)
                    return denied ? declined(&state, note: "A rewrite the RFCs make the same redirect (DRV-EQUIVALENT): as the denial itself.")
                        : exchange(&state, note: "A rewrite the RFCs make the same redirect (DRV-EQUIVALENT): as the original.")
                case .refused:
                    // Whether the login is kept or ended, its own redirect is gone: the browser
                    // holds the rewritten one from now on.
                    state.pending = nil
                    return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "A redirect that is not this login's as Clever sent it (DRV-REFUSED): refused, no request.", expect: [
                        ("outcome", "error"), ("requests", .array([])),
                    ] + state.storeUnchanged)
                case .noLogin:
                    state.pending = nil
                    return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "A code that is not the one issued (DRV-NO-LOGIN): nobody is logged in.", expect: [
                        ("outcome", "error"),
                    ] + state.storeUnchanged)
                case .injected(let value):
                    // Refused, or exchanged without the injected value: either way the model
                    // no longer knows what the store holds, only what it must not (nor, with a
                    // store crash armed, whether the crash was spent: not handed over then).
                    guard !state.crashArmed else { return nil }
                    state.pending = nil
                    state.storeKnown = false
                    return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "A credential Clever never sends this way (DRV-INJECTED): never sent nor stored, whatever the SDK does with the rest.", expect: [
                        ("outcome", "any"),
                        ("neverSent", .array([.string(value)])),
                        ("store", .object([("accessToken", .object([("notEquals", .string(value))]))])),
                    ])
                }
            case .code, .denied, .tampered:
                // A redirect of a login that is over (used, replaced by a newer one, forgotten
                // by a relaunch), rewritten or not: refused.
                let tampered: Bool
                if case .tampered = state.redirect { tampered = true } else { tampered = false }
                return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "A redirect whose state is not the pending login's (used, replaced, or from before a relaunch): refused, no request.", expect: [
                    tampered ? ("outcome", "error") : StepBuilder.error("stateMismatch"), ("requests", .array([])),
                ] + state.storeUnchanged)
            }
        case .tamper(let denied, let index):
            let login: Int
            switch state.redirect {
            case .code(let number) where !denied: login = number
            case .denied(let number) where denied: login = number
            case .code, .denied, .none, .tampered: return nil
            }
            let list = denied ? Self.tampers.denied : Self.tampers.code
            guard list.indices.contains(index) else { return nil }
            let tamper = list[index]
            state.redirect = .tampered(login: login, denied: denied, outcome: tamper.outcome)
            return StepBuilder.tamper(tamper, rewriting: "The redirect")
        case .crashStore:
            guard !state.crashArmed else { return nil }
            state.crashArmed = true
            return .object([("crashStore", "nextWrite")])
        case .relaunch:
            // Whether an armed crash outlives the instance is the driver's business, not the
            // SDK's: no relaunch while one is armed.
            guard !state.crashArmed else { return nil }
            state.pending = nil
            state.pageOpen = false
            state.configured = false
            return StepBuilder.app("relaunch", expect: [("outcome", "ok"), ("requests", .array([]))] + state.storeUnchanged)
        case .fault(let kind):
            guard state.fault == nil else { return nil }
            state.fault = kind
            return .object([("fault", .object([("kind", .string(kind)), ("path", .string(Self.tokenPath))]))])
        case .clearFaults:
            guard state.fault != nil || !state.reshapes.isEmpty else { return nil }
            state.fault = nil
            state.reshapes = []
            return .object([("clearFaults", true)])
        case .reshape(let path, let kind):
            let reshape = AnswerReshapes.Reshape(path: path, kind: kind)
            guard Self.reshapes.contains(reshape), !state.reshapes.contains(reshape) else { return nil }
            state.reshapes.append(reshape)
            return AnswerReshapes.step(reshape)
        }
    }

    static let redirectArgument = [("url", "${redirect}")]

    /// The pending login's redirect with a code handed over: exchanged once (or failed by an
    /// armed fault or store crash), the login used up either way.
    private func exchange(_ state: inout State, note: String? = nil) -> SpecJSON {
        state.pending = nil
        state.pageOpen = false
        if let fault = state.fault {
            return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "The exchange meets the \(fault) fault: an error, nothing new stored, the login used up.", expect: [
                StepBuilder.error(Self.faultKinds.first { $0.0 == fault }?.1 ?? nil),
            ] + state.storeUnchanged + [("browser", .object([("dismissed", true)]))])
        }
        if state.crashArmed {
            state.crashArmed = false
            state.crashLeftover = true
            return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: "The token arrives, and the store's write of it dies before its commit: a storage error, the old token (or none) kept, the login used up.", expect: [
                StepBuilder.error("storage"),
                ("requests", .array([StepBuilder.request("POST", Self.tokenPath, status: 200)])),
            ] + state.storeUnchanged + [("browser", .object([("dismissed", true)]))])
        }
        state.captures += 1
        let name = "token\(state.captures)"
        state.stored = name
        state.storeKnown = true
        return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: note, expect: [
            ("outcome", "ok"),
            ("requests", .array([StepBuilder.request("POST", Self.tokenPath, status: 200)])),
            ("store", .object([("accessToken", StepBuilder.capture(name))])),
            ("browser", .object([("dismissed", true)])),
        ])
    }

    /// The pending login's denial handed over: it ends, with no request.
    private func declined(_ state: inout State, note: String = "The user declined this login: it ends, with no request.") -> SpecJSON {
        state.pending = nil
        state.pageOpen = false
        return StepBuilder.app("receiveRedirect", with: Self.redirectArgument, note: note, expect: [
            StepBuilder.error("authorization"), ("requests", .array([])),
        ] + state.storeUnchanged + [("browser", .object([("dismissed", true)]))])
    }
}
