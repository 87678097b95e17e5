import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// Braintree's connect flow on the device (seed 002) as explore sees it: Connect tapped (and
/// tapped again, with the merchant's backend answering or failing), the merchant approving or
/// declining, the return URL handed to the AppDelegate once, again, or rewritten by every
/// tamper the derived variants try (`RedirectTamperCatalog`).
///
/// What it predicts, and where each prediction comes from:
/// - Connect asks the backend for the connect URL (one `GET /backend/connect-url`) and opens it
///   (BT-CONNECT); a backend that fails makes Connect fail with the fault's kind and opens
///   nothing, and a connect already in progress stays in progress (BT-CONNECT-URL: a failed
///   Connect changes nothing). A second Connect replaces the first: the connect stays in
///   progress.
/// - A return URL from the trusted source while a connect is in progress is handled once: one
///   notification (connected with its merchant, or failed with its error), the browser
///   dismissed, the connect over (BT-CONNECT, BT-DENIED); the same URL again, or any return
///   with no connect in progress, is not handled and notifies nothing (BT-CONNECT step 5).
/// - A tampered return URL gets the outcome its derived rule gives: not handled, nothing
///   notified (DRV-REFUSED, DRV-MISSING, DRV-INJECTED-REFUSED), or the original's
///   (DRV-EQUIVALENT).
public struct BraintreeModel: ProviderModel {
    /// One thing the app, the merchant or the world does.
    public enum Action: Sendable, Equatable {
        case connect, login, deny, openURL, status
        /// The return URL (a failed one's when `failed`) rewritten by the `index`-th tamper of
        /// the catalogue for it.
        case tamper(failed: Bool, index: Int)
        /// A fault armed on the backend's connect-URL endpoint until cleared.
        case fault(kind: String)
        case clearFaults
    }

    public let provider = Provider.braintree
    public let idPrefix = "BT"

    static let returnURL = "examplescheme://braintree"
    static let connectPath = "/backend/connect-url"
    static let merchant = "MERCHANT-77"
    /// Faults with the error kind a Connect that meets them ends in (nil: only that it is an
    /// error), as the committed fault flows decide them. Not `unreachable`: it closes the whole
    /// server, and the connect page is on it too.
    static let faultKinds: [(String, String?)] = [
        ("serverError", "serverError"), ("serviceUnavailable", "serverError"), ("htmlServerError", "serverError"),
        ("rateLimited", "httpStatus"), ("connectionReset", "transport"), ("truncatedJSON", "invalidResponse"), ("nonJSONBody", nil),
    ]

    /// The tampers of a connected return and of a failed one: the derived variants' own list.
    static let tampers: (connected: [RedirectTamperCatalog.Tamper], failed: [RedirectTamperCatalog.Tamper]) = {
        let profile = ProviderRegistry.catalog.description(of: .braintree)?.derivation ?? DerivationProfile()
        return (RedirectTamperCatalog.tampers(parameters: ["merchant_id"], host: "braintree", path: "/connected", denied: false, profile: profile),
                RedirectTamperCatalog.tampers(parameters: ["error"], host: "braintree", path: "/failed", denied: true, profile: profile))
    }()

    /// A model with the standard fixture.
    public init() {}

    // MARK: - State

    enum Return: Equatable {
        case none, connected, failed
        /// Rewritten, with this outcome.
        case tampered(connected: Bool, outcome: RedirectTamperCatalog.Tamper.Outcome)
    }

    struct State {
        var inProgress = false
        /// Whether a connect page is showing, for the merchant to approve or decline.
        var pageOpen = false
        var returned = Return.none
        var connected = 0
        var failed = 0
        var lastMerchant: String?
        var lastError: String?
        var fault: String?
    }

    // MARK: - Generation

    public func generate(using random: inout SplitMix64, maxSteps: Int, toward unreached: Set<String>) -> ModelPlan<Action> {
        let actions = draw(from: State(), using: &random, maxSteps: maxSteps, choose: { state, random, _ in choose(state, &random, toward: unreached) }, apply: step)
        return ModelPlan(variant: 0, actions: actions)
    }

    private func choose(_ state: State, _ random: inout SplitMix64, toward unreached: Set<String>) -> Action {
        var choices: [(Action, Int)] = [(.connect, state.inProgress ? 2 : 8), (.status, 2)]
        if state.pageOpen { choices += [(.login, 10), (.deny, 3)] }
        switch state.returned {
        case .none: break
        case .connected: choices += [(.openURL, 10), (pick(Self.tampers.connected.indices.map { .tamper(failed: false, index: $0) }, toward: unreached, &random), 4)]
        case .failed: choices += [(.openURL, 10), (pick(Self.tampers.failed.indices.map { .tamper(failed: true, index: $0) }, toward: unreached, &random), 2)]
        case .tampered: choices.append((.openURL, 6))
        }
        choices.append(state.fault == nil ? (pick(Self.faultKinds.map { .fault(kind: $0.0) }, toward: unreached, &random), 1) : (.clearFaults, 3))
        return random.weighted(steered(choices, toward: unreached))
    }

    public func simplifications(of action: Action) -> [Action] {
        switch action {
        case .fault(let kind): return kind == "serverError" ? [] : [.fault(kind: "serverError")]
        case .connect, .login, .deny, .openURL, .status, .tamper, .clearFaults: return []
        }
    }

    // MARK: - Reach

    public func reachName(of action: Action) -> String {
        switch action {
        case .connect: return "connect"
        case .login: return "login"
        case .deny: return "deny"
        case .openURL: return "openURL"
        case .status: return "status"
        case .fault(let kind): return "fault.\(kind)"
        case .clearFaults: return "clearFaults"
        case .tamper(let failed, let index):
            let list = failed ? Self.tampers.failed : Self.tampers.connected
            return "tamper.\(failed ? "failed" : "connected").\(list.indices.contains(index) ? list[index].name : "?")"
        }
    }

    public var reachNames: [String] {
        let fixed: [Action] = [.connect, .login, .deny, .openURL, .status, .clearFaults]
        let faults: [Action] = Self.faultKinds.map { .fault(kind: $0.0) }
        let tampers: [Action] = Self.tampers.connected.indices.map { .tamper(failed: false, index: $0) } + Self.tampers.failed.indices.map { .tamper(failed: true, index: $0) }
        return (fixed + faults + tampers).map(reachName)
    }

    // MARK: - Model states

    public func stateNames(of plan: ModelPlan<Action>) -> Set<String> {
        visited(plan.actions, from: State(), apply: { action, state in step(action, &state) }, name: Self.names)
    }

    public var stateNames: [String] {
        ["connect.none", "connect.inProgress", "page.showing", "return.none", "return.connected", "return.failed", "return.tampered",
         "connected.once", "connected.again", "failed.before", "fault.armed"]
    }

    /// The facets of `state`: the connect in progress, its page and return, what has been
    /// notified so far, what is armed.
    static func names(_ state: State) -> [String] {
        var names = [state.inProgress ? "connect.inProgress" : "connect.none"]
        if state.pageOpen { names.append("page.showing") }
        switch state.returned {
        case .none: names.append("return.none")
        case .connected: names.append("return.connected")
        case .failed: names.append("return.failed")
        case .tampered: names.append("return.tampered")
        }
        if state.connected == 1 { names.append("connected.once") }
        if state.connected > 1 { names.append("connected.again") }
        if state.failed > 0 { names.append("failed.before") }
        if state.fault != nil { names.append("fault.armed") }
        return names
    }

    // MARK: - Rendering

    public func render(_ plan: ModelPlan<Action>, id: String) -> RenderedFlow {
        var state = State()
        let steps = written(plan.actions, from: &state) { action, state in step(action, &state).map { [$0] } }
        let fixture = SpecJSON.object([
            ("clientId", "bt-client-1"), ("clientSecret", "bt-backend-secret-88Ka"),
            ("merchants", .array([.object([("id", .string(Self.merchant)), ("email", "owner@shop.example"), ("password", "pw-Own-2210")])])),
            ("returnURL", .string(Self.returnURL)),
        ])
        let spec = SpecText.spec(
            id: id, title: "Explored Braintree connect flow \(id)",
            summary: "A random Braintree connect flow generated by flowcheck explore; each expectation is the Braintree model's prediction.",
            seed: "002_cae850177b6de9cc.txt", passage: "iOS OAuth sequence; Send the merchant to Braintree; Capture the custom URL",
            provider: provider.rawValue, fixture: fixture,
            decisions: ["Generated: the expectations are what the committed Braintree specs decide (the connect URL from the merchant's server, one notification per accepted return while a connect is in progress, the browser dismissed then)."],
            steps: steps
        )
        return RenderedFlow(spec: spec, stepCount: steps.count)
    }

    func step(_ action: Action, _ state: inout State) -> SpecJSON? {
        let openArguments = [("url", "${redirect}"), ("returnURL", Self.returnURL)]
        switch action {
        case .connect:
            if let fault = state.fault {
                return StepBuilder.app("connect", with: [("returnURL", Self.returnURL)], note: "The backend meets the \(fault) fault: Connect fails, nothing opens, a connect in progress stays so.", expect: [
                    StepBuilder.error(Self.faultKinds.first { $0.0 == fault }?.1 ?? nil),
                    ("browser", .object([("opened", .array([]))])),
                ])
            }
            state.inProgress = true
            state.pageOpen = true
            return StepBuilder.app("connect", with: [("returnURL", Self.returnURL)], expect: [
                ("outcome", "ok"),
                ("requests", .array([StepBuilder.request("GET", Self.connectPath, status: 200)])),
                ("browser", .object([("opened", .array([.object([("path", "/braintree/oauth/connect")])]))])),
            ])
        case .login, .deny:
            guard state.pageOpen else { return nil }
            state.pageOpen = false
            if action == .login {
                state.returned = .connected
                return .object([
                    ("browser", "login"),
                    ("with", .object([("email", "owner@shop.example"), ("password", "pw-Own-2210")])),
                    ("expect", .object([("browser", .object([("redirect", .object([("path", "/connected"), ("query", .object([("merchant_id", .string(Self.merchant))]))]))]))])),
                ])
            }
            state.returned = .failed
            return .object([("browser", "deny"), ("expect", .object([("browser", .object([("redirect", .object([("path", "/failed")]))]))]))])
        case .tamper(let failed, let index):
            let connected = !failed
            switch state.returned {
            case .connected where connected, .failed where failed: break
            case .connected, .failed, .none, .tampered: return nil
            }
            let list = connected ? Self.tampers.connected : Self.tampers.failed
            guard list.indices.contains(index) else { return nil }
            let tamper = list[index]
            state.returned = .tampered(connected: connected, outcome: tamper.outcome)
            return StepBuilder.tamper(tamper, rewriting: "The return URL")
        case .openURL:
            // Whether the return reads as connected (true) or failed (false); nil: not the
            // trusted source's return as Braintree sends it.
            let connected: Bool?
            switch state.returned {
            case .none: return nil
            case .connected: connected = true
            case .failed: connected = false
            case .tampered(let wasConnected, let outcome):
                switch outcome {
                case .equivalent: connected = wasConnected
                case .refused, .noLogin, .injected: connected = nil
                }
            }
            guard let connected, state.inProgress else {
                return StepBuilder.app("openURL", with: openArguments, note: state.inProgress ? "Not the trusted source's return as Braintree sends it: not handled, nothing notified." : "No connect is in progress (none started, or its return already handled): not handled, nothing notified.", expect: [
                    ("result", .object([("handled", "false")])), ("requests", .array([])),
                ])
            }
            state.inProgress = false
            state.pageOpen = false
            if connected {
                state.connected += 1
                state.lastMerchant = Self.merchant
            } else {
                state.failed += 1
                state.lastError = "access_denied"
            }
            return StepBuilder.app("openURL", with: openArguments, expect: [
                ("result", .object([("handled", "true")])), ("requests", .array([])), ("browser", .object([("dismissed", true)])),
            ])
        case .status:
            var result: [(String, SpecJSON)] = [("connected", .string(String(state.connected))), ("failed", .string(String(state.failed)))]
            if let merchant = state.lastMerchant { result.append(("lastMerchant", .string(merchant))) }
            if let error = state.lastError { result.append(("lastError", .string(error))) }
            return StepBuilder.app("status", expect: [("result", .object(result)), ("requests", .array([]))])
        case .fault(let kind):
            guard state.fault == nil else { return nil }
            state.fault = kind
            return .object([("fault", .object([("kind", .string(kind)), ("path", .string(Self.connectPath))]))])
        case .clearFaults:
            guard state.fault != nil else { return nil }
            state.fault = nil
            return .object([("clearFaults", true)])
        }
    }
}
