import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// Clover Go's Full, Partial and No OAuth (seeds 000, 001) as explore sees them: setup, the
/// browser login or a denial, the redirect handed back, merchant calls, relaunch, logout,
/// status, and clock jumps onto and around the access token's expiry, the code's lifetime and
/// the refresh token's lifetime. No OAuth's own predictions are in `CloverModel+NoOAuth.swift`.
///
/// What it predicts, and where each prediction comes from:
/// - setup on an empty store opens the login page and makes no request (CLV-FULL-1); with a
///   stored session it refreshes exactly once first when the access token has expired
///   (CLV-FULL-4, CLV-FULL-11), and fetches the merchant with the stored token when it is more
///   than 5 minutes from expiry (CLV-FULL-2); in between the refresh is the SDK's choice and the
///   model makes no such call; with the refresh token past its lifetime the session ends
///   (CLV-FULL-13).
/// - The login's redirect handed back within the code's lifetime is one code exchange and a
///   stored session (CLV-FULL-1); a code past its lifetime is refused and nothing is stored;
///   a denial is an error with no request (CLV-FULL-9).
/// - logout empties the store (CLV-API-1); a relaunch keeps it (CLV-FULL-2); `isLoggedIn` is
///   true exactly while the refresh token lives (CLV-FULL-13).
/// - A token-change callback fires once per change of the stored session (a login, a refresh,
///   a logout or a local end of a stored session: CLV-API-1, CLV-FULL-4, CLV-FULL-13), never
///   for a write that failed; a relaunch drops the callbacks of the old instance. After a
///   logout with nothing stored the count is left unpredicted (no flow decides it).
/// - A store write that dies (`crashStore`) fails the call and fires no callback: nothing
///   changed (no Clover flow crashes the store; MLT-STORE-CRASH and CLE-STORE-CRASH decide the
///   same for the other providers, and the seed's callback is for a change of the token). A
///   failed exchange stores nothing. After a refresh whose new pair failed to save, what the
///   store holds and what the server has spent are the SDK's business: the flow stops there.
/// - A tampered redirect gets the outcome its derived rule gives (`RedirectTamperCatalog`).
public struct CloverModel: ProviderModel {
    /// A clock jump onto a boundary that matters, or by a fixed amount.
    public enum Jump: Sendable, Equatable {
        /// To the stored access token's expiry plus `offset` seconds.
        case toAccessExpiry(offset: Int)
        /// To the stored refresh token's expiry plus `offset` seconds.
        case toRefreshExpiry(offset: Int)
        /// To the pending code's expiry plus `offset` seconds.
        case toCodeExpiry(offset: Int)
        case by(seconds: Int)
    }

    /// One thing the app, the user or the world does.
    public enum Action: Sendable, Equatable {
        case setup, login, deny, receiveRedirect, merchant, relaunch, logout, status
        /// No OAuth: the app refreshes its own token (`POST /oauth/v2/refresh`, outside the SDK).
        case appRefresh
        /// No OAuth: `setup` with this token of the app's.
        case setupNone(TokenChoice)
        /// No OAuth: `updateToken` with this token of the app's.
        case updateToken(TokenChoice)
        case advance(Jump)
        /// `addTokenCallback` under the `label`-th of ``labels``.
        case addCallback(label: Int)
        /// `removeTokenCallback` of the `label`-th label.
        case removeCallback(label: Int)
        /// The store's next write dies before its commit.
        case crashStore
        /// The captured redirect rewritten by the `index`-th tamper of the catalogue for it.
        case tamper(index: Int)
        /// A documented-equivalent shape of an answer, armed until faults are cleared.
        case reshape(path: String, kind: String)
        case clearFaults
        /// A merchant call started with the server holding its first request to the refresh
        /// endpoint (`refresh`) or to the merchant API; meanwhile the user logs out, on a new
        /// instance after a relaunch when `relaunch`; then the request is answered.
        case held(refresh: Bool, relaunch: Bool)
        /// A merchant call started with the server holding its refresh; the app relaunches and
        /// the new instance's setup refreshes the same pair first; then the held refresh is
        /// answered, refused as already used (the two refreshes end in the reverse of the
        /// order they started in: CLV-FULL-22).
        case heldOvertaken
        /// Both refreshes held: the old instance's merchant call's and, after a relaunch, the
        /// new instance's setup's, each with the same refresh token; then released one by one,
        /// the old instance's first or the new one's first. The first answered rotates the
        /// pair, the second is refused as spent, and the rotated pair must stay stored.
        case heldBoth(oldFirst: Bool)
    }

    /// Every held merchant call: each of its requests, with and without a relaunch before the
    /// logout (Clover's own flows settle what a late answer may do: CLV-FULL-19, CLV-FULL-20).
    static let holds: [Action] = [true, false].flatMap { refresh in [false, true].map { Action.held(refresh: refresh, relaunch: $0) } } + [.heldOvertaken, .heldBoth(oldFirst: true), .heldBoth(oldFirst: false)]

    /// The reshapes of Clover's answers (token and refresh answers with members it never sends).
    static let reshapes = AnswerReshapes.of(.clover, fixture: CloverFixture(apps: [], merchants: [], employees: []))

    /// The tampers of a code's redirect, the derived variants' own list.
    static let tampers: [RedirectTamperCatalog.Tamper] = {
        let profile = ProviderRegistry.catalog.description(of: .clover)?.derivation ?? DerivationProfile()
        return RedirectTamperCatalog.tampers(parameters: ["code", "state", "merchant_id", "client_id"], host: "pos.example.com", path: "/oauth/callback", denied: false, profile: profile)
    }()

    public let provider = Provider.clover
    public let idPrefix = "CLV"

    /// The fixture variants: access and refresh token lifetimes in seconds.
    static let lifetimes = [(1800, 2_592_000), (600, 3600), (300, 1200)]
    static let codeLifetime = 300
    /// The fake refuses a login page older than this; the model logs in well before it.
    static let loginPageLifetime = 600
    /// How long before its expiry a conforming SDK may refresh an access token it could still
    /// send: CLV-FULL-4 and CLV-FULL-11 leave a refresh before expiry optional and place their
    /// steps where every margin up to 5 minutes gives the same requests. Inside this window,
    /// with a stored session, whether setup or a merchant call refreshes first is the SDK's
    /// choice: the model generates neither there.
    static let maxMargin = 300
    static let redirectURI = "https://pos.example.com/oauth/callback"
    static let setupArguments = [("appId", "EXPAPP"), ("appSecret", "clv-explore-secret-4Tq"), ("redirectURI", redirectURI)]
    static let merchantPath = "/v3/merchants/MERCH1"
    /// The token-change callbacks' labels.
    static let labels = ["main", "second", "third"]

    /// A model with the standard fixture variants.
    public init() {}

    // MARK: - State

    enum Redirect: Equatable {
        case none
        /// The login's redirect with a code issued at this time.
        case code(issuedAt: Int)
        case denied
    }

    struct Pending: Equatable {
        var startedAt: Int
        var redirect = Redirect.none
        /// The captured redirect was rewritten, with this outcome.
        var tampered: RedirectTamperCatalog.Tamper.Outcome?
    }

    struct Session: Equatable {
        var name: String
        var accessExpires: Int
        var refreshExpires: Int
    }

    struct State {
        var access: Int
        var refresh: Int
        /// Partial OAuth: the app runs the PKCE login itself and hands the code to setup.
        var partial = false
        /// No OAuth: the app runs the login and its refreshes itself and hands the SDK tokens.
        var noOAuth = false
        /// No OAuth: the access tokens the app has got, in issue order (their captures' names),
        /// and its refresh token.
        var appTokens: [AppToken] = []
        var appRefresh: AppToken?
        /// Partial OAuth: the code the app's own login got (its captures' number) and when.
        var partialCode: (number: Int, issuedAt: Int)?
        var now = 0
        var configured = false
        var pending: Pending?
        var session: Session?
        var captures = 0
        /// The labels registered on this instance, and those ever registered (the driver
        /// reports a label's count, over the whole flow, from its first registration on).
        var registered: Set<String> = []
        var everRegistered: Set<String> = []
        /// The captured identifier of each label registered on this instance, and the order
        /// they were registered in.
        var identifiers: [String: String] = [:]
        var registrationOrder: [String] = []
        /// How often each label has fired; nil once no flow decides it.
        var fired: [String: Int]? = [:]
        /// Labels whose count may be one more than `fired` says (No OAuth: a setup the seed
        /// leaves free to fire the callback or not).
        var firedSlack: Set<String> = []
        var crashArmed = false
        /// A crashed write's temporary file may be in the store's folder from here on.
        var crashLeftover = false
        /// Past what the model follows (a refresh whose new pair failed to save): no more steps.
        var stopped = false
        /// False once the store may hold a session the model cannot name.
        var storeKnown = true
        /// The reshapes armed (``AnswerReshapes``): they change no prediction.
        var reshapes: [AnswerReshapes.Reshape] = []

        mutating func changed() {
            guard fired != nil else { return }
            for label in registered { fired?[label, default: 0] += 1 }
        }

        /// A new SDK instance over the same store (a relaunch): not set up, no login under way,
        /// no callbacks registered on it.
        mutating func newInstance() {
            configured = false
            pending = nil
            registered = []
            identifiers = [:]
            registrationOrder = []
        }

        mutating func newSession() -> String {
            captures += 1
            let name = "access\(captures)"
            session = Session(name: name, accessExpires: now + access, refreshExpires: now + refresh)
            return name
        }

        var storeUnchanged: [(String, SpecJSON)] {
            guard storeKnown else { return [] }
            guard let session else { return [("storeEmpty", true)] }
            return [("store", .object([("accessToken", .string("${\(session.name)}"))]))]
        }
    }

    // MARK: - Generation

    public func generate(using random: inout SplitMix64, maxSteps: Int, toward unreached: Set<String>) -> ModelPlan<Action> {
        let variant = random.below(Self.lifetimes.count * 3)
        let actions = draw(from: Self.initialState(variant), using: &random, maxSteps: maxSteps, choose: { state, random, _ in choose(state, &random, toward: unreached) }, apply: step)
        return ModelPlan(variant: variant, actions: actions)
    }

    /// Variants 0-2: Full OAuth with each lifetime pair; 3-5: Partial OAuth with each; 6-8: No
    /// OAuth with each.
    static func initialState(_ variant: Int) -> State {
        let (access, refresh) = lifetimes[variant % lifetimes.count]
        let mode = variant / lifetimes.count
        return State(access: access, refresh: refresh, partial: mode == 1, noOAuth: mode == 2)
    }

    private func choose(_ state: State, _ random: inout SplitMix64, toward unreached: Set<String>) -> Action {
        if state.noOAuth { return chooseNoOAuth(state, &random, toward: unreached) }
        var choices: [(Action, Int)] = [(.setup, state.configured ? 2 : 8), (.relaunch, 1), (.logout, 1), (.status, 2)]
        if state.partial, state.session == nil, state.partialCode == nil { choices.append((.login, 10)) }
        if state.partial, state.partialCode != nil { choices.append((.setup, 10)) }
        choices.append(callbackChoice(state, &random))
        if !state.crashArmed { choices.append((.crashStore, 1)) }
        let reshapes = Self.reshapes.filter { !state.reshapes.contains($0) }
        if !reshapes.isEmpty { choices.append((pick(reshapes.map { .reshape(path: $0.path, kind: $0.kind) }, toward: unreached, &random), 1)) }
        if !state.reshapes.isEmpty { choices.append((.clearFaults, 1)) }
        if let pending = state.pending {
            switch pending.redirect {
            case .none: choices += [(.login, 10), (.deny, 1)]
            case .code:
                choices += [(.receiveRedirect, 10), (pick([-1, 0].map { .advance(.toCodeExpiry(offset: $0)) }, toward: unreached, &random), 1)]
                if pending.tampered == nil { choices.append((pick(Self.tampers.indices.map { .tamper(index: $0) }, toward: unreached, &random), 3)) }
            case .denied: choices.append((.receiveRedirect, 5))
            }
        }
        if state.configured { choices.append((.merchant, 4)) }
        if state.configured, state.session != nil, state.storeKnown, !state.crashArmed { choices.append((pick(Self.holds, toward: unreached, &random), 2)) }
        if state.session != nil {
            choices.append((pick([-301, -61, -60, -59, -1, 0, 1].map { .advance(.toAccessExpiry(offset: $0)) }, toward: unreached, &random), 6))
            choices.append((pick([-1, 0].map { .advance(.toRefreshExpiry(offset: $0)) }, toward: unreached, &random), 1))
        }
        choices.append((.advance(.by(seconds: random.pick([1, 59, 61, 120, state.access]))), 1))
        return random.weighted(steered(choices, toward: unreached))
    }

    /// Adding a callback under a random label not registered, or removing the one that is.
    func callbackChoice(_ state: State, _ random: inout SplitMix64) -> (Action, Int) {
        let label = random.below(Self.labels.count)
        guard state.registered.contains(Self.labels[label]) else { return (.addCallback(label: label), state.everRegistered.isEmpty ? 6 : 3) }
        return (.removeCallback(label: label), 3)
    }

    public func simplifications(of action: Action) -> [Action] {
        switch action {
        case .advance(.by(let seconds)): return seconds > 1 ? [.advance(.by(seconds: seconds / 2))] : []
        case .advance(.toAccessExpiry(let offset)): return offset == 0 ? [] : [.advance(.toAccessExpiry(offset: 0))]
        case .setupNone(let token), .updateToken(let token):
            return token == .latest ? [] : [action == .setupNone(token) ? .setupNone(.latest) : .updateToken(.latest)]
        case .held(let refresh, let relaunch):
            return relaunch ? [.held(refresh: refresh, relaunch: false)] : []
        case .heldOvertaken:
            return [.held(refresh: true, relaunch: true)]
        case .heldBoth:
            return [.heldOvertaken]
        case .advance(.toRefreshExpiry), .advance(.toCodeExpiry), .setup, .login, .deny, .receiveRedirect, .merchant, .relaunch, .logout, .status, .addCallback, .removeCallback, .crashStore, .tamper, .reshape, .clearFaults, .appRefresh:
            return []
        }
    }

    // MARK: - Reach

    public func reachName(of action: Action) -> String {
        func signed(_ offset: Int) -> String { (offset >= 0 ? "+" : "") + String(offset) }
        switch action {
        case .setup: return "setup"
        case .login: return "login"
        case .deny: return "deny"
        case .receiveRedirect: return "receiveRedirect"
        case .merchant: return "merchant"
        case .relaunch: return "relaunch"
        case .logout: return "logout"
        case .status: return "status"
        case .appRefresh: return "appRefresh"
        case .setupNone(let token): return "setupNone." + token.rawValue
        case .updateToken(let token): return "updateToken." + token.rawValue
        case .advance(.toAccessExpiry(let offset)): return "advance.accessExpiry" + signed(offset)
        case .advance(.toRefreshExpiry(let offset)): return "advance.refreshExpiry" + signed(offset)
        case .advance(.toCodeExpiry(let offset)): return "advance.codeExpiry" + signed(offset)
        case .advance(.by): return "advance.by"
        case .addCallback(let label): return "addCallback." + (Self.labels.indices.contains(label) ? Self.labels[label] : "?")
        case .removeCallback(let label): return "removeCallback." + (Self.labels.indices.contains(label) ? Self.labels[label] : "?")
        case .crashStore: return "crashStore"
        case .held(let refresh, let relaunch): return "held.merchant@" + (refresh ? "/oauth/v2/refresh" : Self.merchantPath) + (relaunch ? ".relaunch" : "") + ".logout"
        case .heldOvertaken: return "held.merchant@/oauth/v2/refresh.relaunch.setup.released"
        case .heldBoth(let oldFirst): return "held.merchant+setup@/oauth/v2/refresh.released." + (oldFirst ? "oldFirst" : "newFirst")
        case .tamper(let index): return "tamper." + (Self.tampers.indices.contains(index) ? Self.tampers[index].name : "?")
        case .reshape(let path, let kind): return AnswerReshapes.Reshape(path: path, kind: kind).reachName
        case .clearFaults: return "clearFaults"
        }
    }

    public var reachNames: [String] {
        let fixed: [Action] = [.setup, .login, .deny, .receiveRedirect, .merchant, .relaunch, .logout, .status, .crashStore]
        let jumps: [Action] = [-301, -61, -60, -59, -1, 0, 1].map { .advance(.toAccessExpiry(offset: $0)) } + [-1, 0].map { .advance(.toRefreshExpiry(offset: $0)) }
            + [-1, 0].map { .advance(.toCodeExpiry(offset: $0)) } + [.advance(.by(seconds: 1))]
        let callbacks: [Action] = Self.labels.indices.flatMap { [Action.addCallback(label: $0), .removeCallback(label: $0)] }
        let noOAuth: [Action] = [.appRefresh] + TokenChoice.allCases.flatMap { [Action.setupNone($0), .updateToken($0)] }
        return (fixed + jumps + callbacks + Self.tampers.indices.map { .tamper(index: $0) } + [.clearFaults] + noOAuth + Self.holds).map(reachName) + Self.reshapes.map(\.reachName)
    }

    // MARK: - Model states

    public func stateNames(of plan: ModelPlan<Action>) -> Set<String> {
        visited(plan.actions, from: Self.initialState(plan.variant), apply: step, name: Self.names)
    }

    public var stateNames: [String] {
        ["mode.full", "mode.partial", "mode.noOAuth", "configured", "notConfigured",
         "login.none", "login.pageShowing", "login.codeCaptured", "login.denied", "login.tampered",
         "session.none", "session.live", "session.accessNearExpiry", "session.accessExpired", "session.refreshExpired", "session.unknown",
         "callbacks.registered", "callbacks.unpredicted", "reshape.armed", "crash.armed", "crash.leftover"]
    }

    /// The facets of `state`: the mode, the instance, the login in progress, the stored
    /// session where the clock stands, the callbacks, what is armed.
    static func names(_ state: State) -> [String] {
        var names = [state.noOAuth ? "mode.noOAuth" : state.partial ? "mode.partial" : "mode.full", state.configured ? "configured" : "notConfigured"]
        switch state.pending?.redirect {
        case nil: names.append("login.none")
        case .none?: names.append("login.pageShowing")
        case .code?: names.append(state.pending?.tampered == nil ? "login.codeCaptured" : "login.tampered")
        case .denied?: names.append("login.denied")
        }
        if !state.storeKnown {
            names.append("session.unknown")
        } else if let session = state.session {
            names.append(state.now >= session.refreshExpires ? "session.refreshExpired" : state.now >= session.accessExpires ? "session.accessExpired"
                : state.now >= session.accessExpires - maxMargin ? "session.accessNearExpiry" : "session.live")
        } else {
            names.append("session.none")
        }
        if !state.registered.isEmpty { names.append("callbacks.registered") }
        if state.fired == nil { names.append("callbacks.unpredicted") }
        if !state.reshapes.isEmpty { names.append("reshape.armed") }
        if state.crashArmed { names.append("crash.armed") }
        if state.crashLeftover { names.append("crash.leftover") }
        return names
    }

    // MARK: - Rendering

    public func render(_ plan: ModelPlan<Action>, id: String) -> RenderedFlow {
        var state = Self.initialState(plan.variant)
        let (access, refresh) = (state.access, state.refresh)
        let steps = written(plan.actions, from: &state, apply: step)
        let fixture = SpecJSON.object([
            ("apps", .array([.object([("id", "EXPAPP"), ("secret", "clv-explore-secret-4Tq"), ("siteURL", "https://pos.example.com/")])])),
            ("merchants", .array([.object([("id", "MERCH1"), ("name", "Corner Cafe"), ("installedApps", .array(["EXPAPP"]))])])),
            ("employees", .array([.object([("email", "ann@example.com"), ("password", "pw-Ann-4471"), ("merchant", "MERCH1")])])),
            ("accessTokenLifetime", .int(access)),
            ("refreshTokenLifetime", .int(refresh)),
            ("codeLifetime", .int(Self.codeLifetime)),
        ])
        let mode = state.noOAuth ? "No" : state.partial ? "Partial" : "Full"
        let spec = SpecText.spec(
            id: id, title: "Explored Clover \(mode) OAuth flow \(id)",
            summary: "A random Clover \(mode) OAuth flow generated by flowcheck explore; each expectation is the Clover model's prediction.",
            seed: "000_969e004fc9e24908.txt", passage: state.noOAuth ? "No OAuth Flow; updateToken; logout; addOnTokenChangeCallback" : "Full OAuth Flow, steps 1-6; logout; addOnTokenChangeCallback",
            provider: provider.rawValue, fixture: fixture,
            decisions: [state.noOAuth ? Self.noOAuthDecision : "Generated: the expectations are what the committed Clover specs decide (an expired access token refreshed once before use, a refresh before expiry left to the SDK, single-use codes with a lifetime)."],
            steps: steps
        )
        return RenderedFlow(spec: spec, stepCount: steps.count)
    }

    /// Why a step after a store crash may find the crashed write's temporary file.
    static let leftoverAllowance = StepBuilder.leftoverAllowance

    /// The action's steps (one, or the three of a Partial OAuth app's own login), or nil when
    /// it has no place where the flow stands.
    func step(_ action: Action, _ state: inout State) -> [SpecJSON]? {
        guard !state.stopped else { return nil }
        let written: [SpecJSON]
        if case .held(let refresh, let relaunch) = action {
            guard !state.noOAuth, let steps = held(refresh: refresh, relaunch: relaunch, &state) else { return nil }
            written = steps
        } else if action == .heldOvertaken {
            guard !state.noOAuth, let steps = heldOvertaken(&state) else { return nil }
            written = steps
        } else if case .heldBoth(let oldFirst) = action {
            guard !state.noOAuth, let steps = heldBoth(oldFirst: oldFirst, &state) else { return nil }
            written = steps
        } else if state.noOAuth {
            guard let steps = noOAuthSteps(action, &state) else { return nil }
            written = steps
        } else if state.partial, action == .login {
            guard let login = appOwnLogin(&state) else { return nil }
            written = login
        } else {
            guard let one = plainStep(action, &state) else { return nil }
            written = [one]
        }
        guard state.crashLeftover else { return written }
        return written.map { StepBuilder.allowing(Self.leftoverAllowance, in: $0) }
    }

    /// A merchant call held in flight while the session ends (CLV-FULL-19; on a new instance
    /// after a relaunch, CLV-FULL-20): whatever the held request brings back once answered,
    /// the store stays empty. How the call ends, and how many callbacks the instances fire
    /// between them, is left unpredicted from here on: the written flows decide it for one
    /// callback on one instance, not for every registration the model may have made.
    private func held(refresh: Bool, relaunch: Bool, _ state: inout State) -> [SpecJSON]? {
        guard state.configured, state.session != nil, state.storeKnown, !state.crashArmed else { return nil }
        let path = refresh ? "/oauth/v2/refresh" : Self.merchantPath
        var meanwhile: [SpecJSON] = []
        if relaunch {
            meanwhile.append(Self.relaunchInFlight)
            state.newInstance()
        }
        let steps = StepBuilder.held("merchant", path: path, meanwhile: meanwhile, end: "logout")
        state.session = nil
        state.pending = nil
        state.reshapes = []
        state.fired = nil
        return steps
    }

    /// A refresh held in flight and overtaken (CLV-FULL-22): the old instance's merchant call
    /// needs a refresh and the server holds it; after a relaunch the new instance's setup
    /// refreshes the same pair first (one refresh, the merchant fetched, the rotated pair
    /// stored); when the held refresh is answered the server refuses its spent refresh token,
    /// and that refusal must leave the newer session stored. How the old call ends, and the
    /// callbacks from here on, are left unpredicted, as for the other holds.
    private func heldOvertaken(_ state: inout State) -> [SpecJSON]? {
        // Full OAuth only, as the two-held form: Partial OAuth's setup after a relaunch is
        // its own action's business (CLV-PART flows), and a finding there shrinks no further
        // than the app's own login and these seven steps.
        guard let session = Self.refreshCanBeOvertaken(state) else { return nil }
        var relaunched = state
        let expiry = toAccessExpiry(&relaunched)
        relaunched.newInstance()
        guard let setup = plainStep(.setup, &relaunched), relaunched.session?.name != session.name else { return nil }
        state = relaunched
        state.fired = nil
        let path = "/oauth/v2/refresh"
        let stored = state.storeUnchanged
        return expiry + Self.refreshHeldThenRelaunch + [
            setup,
            .object([
                ("clearFaults", true),
                ("note", "The held refresh is answered now: its refresh token was spent by the new instance's refresh, so the server refuses it. The store is judged once the old call has ended, at the next step."),
                // A conforming SDK may go on with the stored pair at once: that merchant request
                // lands here or at the await, by timing.
                ("expect", .object([("requests", .array([StepBuilder.request("POST", path, status: 400), .object([("method", "GET"), ("path", .string(Self.merchantPath)), ("optional", true)])]))])),
            ]),
            .object([
                ("await", "held"),
                ("note", "A refusal of a refresh token that is no longer the stored one leaves the newer session stored (CLV-FULL-22)."),
                ("expect", .object([("outcome", "any")] + stored)),
            ]),
        ]
    }

    /// A relaunch while the old instance's request is in flight (its outcome the SDK's).
    static let relaunchInFlight = StepBuilder.app("relaunch", note: "A new SDK instance over the same store while the old one's request is in flight.", expect: [("outcome", "any")])

    /// The start of both overtaken forms: the merchant call's refresh held, then a relaunch.
    static let refreshHeldThenRelaunch: [SpecJSON] = [
        StepBuilder.hold("/oauth/v2/refresh"),
        .object([("app", "merchant"), ("async", "held"), ("note", "The call needs a refresh first; the step goes on once the server holds it.")]),
        StepBuilder.app("relaunch", note: "A new SDK instance over the same store while the old one's refresh is in flight.", expect: [("outcome", "any")]),
    ]

    /// The stored session, when a refresh of it can be held and overtaken: Full OAuth, set up,
    /// the refresh token alive, nothing armed that would change the answers.
    static func refreshCanBeOvertaken(_ state: State) -> Session? {
        guard !state.partial, state.configured, let session = state.session, state.storeKnown, !state.crashArmed, state.reshapes.isEmpty,
              state.now < session.refreshExpires else { return nil }
        return session
    }

    /// The clock moved onto the stored access token's expiry when it is not there yet (a
    /// refresh is then due whatever the SDK's margin): no step, or the jump.
    private func toAccessExpiry(_ state: inout State) -> [SpecJSON] {
        guard let session = state.session, state.now < session.accessExpires else { return [] }
        return plainStep(.advance(.toAccessExpiry(offset: 0)), &state).map { [$0] } ?? []
    }

    /// Two refreshes of the same pair held at once, released in either order (CLV-FULL-22 with
    /// both in flight): the old instance's merchant call's, and after a relaunch the new
    /// instance's setup's. Whichever is answered first rotates the pair, and its call is left to
    /// end (storing the pair) before the other is answered: refused as spent, and that refusal
    /// must not end the rotated session. (Answered back to back, the refusal may reach an SDK
    /// before the rotated pair is stored, and then the store still holds the refused token: no
    /// prediction is sound there.) What each call returns, whether the new instance counts as
    /// set up, and the callbacks are left unpredicted; the model knows only that a pair issued
    /// at the release is stored.
    private func heldBoth(oldFirst: Bool, _ state: inout State) -> [SpecJSON]? {
        guard let session = Self.refreshCanBeOvertaken(state) else { return nil }
        let expiry = toAccessExpiry(&state)
        let path = "/oauth/v2/refresh"
        let setup: [(String, SpecJSON)] = Self.setupArguments.map { ($0.0, .string($0.1)) }
        let order = oldFirst ? ["held", "second"] : ["second", "held"]
        state.newInstance()
        state.fired = nil
        let old = session.name
        let name = state.newSession()
        return expiry + Self.refreshHeldThenRelaunch + [
            StepBuilder.hold(path),
            .object([("app", "setupFull"), ("with", .object(setup)), ("async", "second"), ("note", "The new instance's setup refreshes the same pair; the server holds that refresh too.")]),
            .object([("release", .string(order[0])), ("note", .string("The \(oldFirst ? "old" : "new") instance's refresh is answered first: the pair rotates."))]),
            .object([("await", .string(order[0])), ("note", "That call ends (with the rotated pair stored) before the other refresh is answered."), ("expect", .object([("outcome", "any")]))]),
            .object([("release", .string(order[1])), ("note", "The other refresh is answered: its refresh token is spent, so the server refuses it.")]),
            .object([
                ("await", .string(order[1])),
                ("note", "A refusal of a refresh token that is no longer the stored one leaves the rotated pair stored (CLV-FULL-22)."),
                ("expect", .object([("outcome", "any"), ("store", .object([("accessToken", StepBuilder.capture(name, notEquals: old)), ("merchantId", "MERCH1")]))])),
            ]),
        ]
    }

    /// Partial OAuth: the app's own PKCE login with the SDK's helper (CLV-PART-1): the
    /// challenge, the authorize page, the login, the code captured.
    private func appOwnLogin(_ state: inout State) -> [SpecJSON]? {
        guard state.session == nil, state.partialCode == nil, state.storeKnown else { return nil }
        state.captures += 1
        let n = state.captures
        state.partialCode = (n, state.now)
        return Self.pkceLogin(n, note: "Partial OAuth: the app runs the PKCE login itself with the SDK's helper.")
    }

    /// The app's own PKCE login with the SDK's helper (Partial and No OAuth): the challenge,
    /// the authorize page, the login, the code captured as `codeN`.
    static func pkceLogin(_ n: Int, note: String) -> [SpecJSON] {
        let authorize = "${baseURL.web}/oauth/v2/authorize?client_id=EXPAPP&redirect_uri=https%3A%2F%2Fpos.example.com%2Foauth%2Fcallback&response_type=code&code_challenge=${challenge\(n)}&code_challenge_method=S256"
        return [
            StepBuilder.app("codeChallenge", note: note, expect: [
                ("result", .object([("codeVerifier", StepBuilder.capture("verifier\(n)")), ("codeChallenge", StepBuilder.capture("challenge\(n)"))])),
                ("requests", .array([])),
            ]),
            .object([("browser", "open"), ("with", .object([("url", .string(authorize))]))]),
            .object([
                ("browser", "login"),
                ("with", .object([("email", "ann@example.com"), ("password", "pw-Ann-4471")])),
                ("expect", .object([("browser", .object([("redirect", .object([("query", .object([("code", StepBuilder.capture("code\(n)"))]))]))]))])),
            ]),
        ]
    }

    static let partialArguments = [("appId", "EXPAPP"), ("appSecret", "clv-explore-secret-4Tq")]

    /// Partial OAuth's setup: with the app's fresh code, the exchange (and the merchant); with
    /// none, the stored session as setupFull uses it.
    private func partialSetup(_ state: inout State) -> SpecJSON? {
        // Nothing changes on the way to a nil (an action left out must leave the state as it was).
        guard let code = state.partialCode else {
            // Past the refresh token's lifetime no Partial flow decides what a nil code does.
            guard let session = state.session, state.now < session.refreshExpires else { return nil }
            state.configured = true
            return useSession("setupPartial", &state, result: [("outcome", "ready"), ("merchantId", "MERCH1")])
        }
        guard state.session == nil, state.storeKnown else { return nil }
        state.configured = true
        state.partialCode = nil
        let arguments = Self.partialArguments + [("code", "${code\(code.number)}"), ("codeVerifier", "${verifier\(code.number)}"), ("merchantId", "MERCH1")]
        if let failed = failedExchange("setupPartial", with: arguments, issuedAt: code.issuedAt, &state) { return failed }
        let name = state.newSession()
        state.changed()
        return StepBuilder.app("setupPartial", with: arguments, note: "The app's code exchanged (CLV-PART-1): the session stored, then the merchant.", expect: [
            ("result", .object([("outcome", "ready"), ("merchantId", "MERCH1")])),
            ("requests", .array([StepBuilder.request("POST", "/oauth/v2/token", status: 200), StepBuilder.request("GET", Self.merchantPath, status: 200)])),
            ("store", .object([("accessToken", StepBuilder.capture(name)), ("merchantId", "MERCH1")])),
        ])
    }

    func plainStep(_ action: Action, _ state: inout State) -> SpecJSON? {
        switch action {
        case .appRefresh, .setupNone, .updateToken, .held, .heldOvertaken, .heldBoth:
            return nil
        case .setup:
            if state.partial { return partialSetup(&state) }
            // A setup over a store holding a session the model cannot name (an injected
            // redirect's) is left out.
            guard state.storeKnown else { return nil }
            state.configured = true
            guard state.session != nil else {
                state.pending = Pending(startedAt: state.now)
                return StepBuilder.app("setupFull", with: Self.setupArguments, expect: [
                    ("result", .object([("outcome", "loginStarted")])),
                    ("requests", .array([])),
                    ("browser", .object([("opened", .array([.object([("path", "/oauth/v2/authorize")])]))])),
                ])
            }
            return useSession("setupFull", &state, result: [("outcome", "ready"), ("merchantId", "MERCH1")])
        case .merchant:
            guard state.configured, state.storeKnown else { return nil }
            guard state.session != nil else {
                return StepBuilder.app("merchant", expect: [StepBuilder.error("notLoggedIn"), ("requests", .array([])), ("storeEmpty", true)])
            }
            return useSession("merchant", &state, result: [("merchantId", "MERCH1")])
        case .login:
            guard !state.partial, var pending = state.pending, pending.redirect == .none, state.now - pending.startedAt < Self.loginPageLifetime - 10 else { return nil }
            pending.redirect = .code(issuedAt: state.now)
            state.pending = pending
            return .object([
                ("browser", "login"),
                ("with", .object([("email", "ann@example.com"), ("password", "pw-Ann-4471")])),
                ("expect", .object([("browser", .object([("redirect", .object([("path", "/oauth/callback"), ("query", .object([("code", .object([("present", true)]))]))]))]))])),
            ])
        case .deny:
            guard var pending = state.pending, pending.redirect == .none, state.now - pending.startedAt < Self.loginPageLifetime - 10 else { return nil }
            pending.redirect = .denied
            state.pending = pending
            return .object([("browser", "deny")])
        case .tamper(let index):
            guard var pending = state.pending, case .code = pending.redirect, pending.tampered == nil, Self.tampers.indices.contains(index) else { return nil }
            let tamper = Self.tampers[index]
            pending.tampered = tamper.outcome
            state.pending = pending
            return StepBuilder.tamper(tamper, rewriting: "The redirect")
        case .receiveRedirect:
            guard let pending = state.pending, state.session == nil, state.storeKnown else { return nil }
            let arguments = [("url", "${redirect}")]
            switch pending.redirect {
            case .none:
                return nil
            case .denied:
                state.pending = nil
                return StepBuilder.app("receiveRedirect", with: arguments, note: "The user declined: an error, no request, nothing stored.", expect: [
                    ("outcome", "error"), ("requests", .array([])), ("storeEmpty", true),
                ])
            case .code(let issuedAt):
                state.pending = nil
                switch pending.tampered {
                case nil, .equivalent?:
                    break
                case .refused?:
                    return StepBuilder.app("receiveRedirect", with: arguments, note: "A redirect that is not this login's as Clover sent it (DRV-REFUSED, DRV-MISSING, DRV-CODE-BESIDE-ERROR): refused, no request.", expect: [
                        ("outcome", "error"), ("requests", .array([])), ("storeEmpty", true),
                    ])
                case .noLogin?:
                    return StepBuilder.app("receiveRedirect", with: arguments, note: "A code that is not the one issued (DRV-NO-LOGIN): nobody is logged in.", expect: [
                        ("outcome", "error"), ("storeEmpty", true),
                    ])
                case .injected(let value)?:
                    // Refused, or exchanged without the injected value: the model no longer
                    // knows what the store holds, only what it must not (nor, with a crash
                    // armed, whether the crash was spent: not handed over then).
                    guard !state.crashArmed else { return nil }
                    state.storeKnown = false
                    state.fired = nil
                    return StepBuilder.app("receiveRedirect", with: arguments, note: "A credential Clover never sends this way (DRV-INJECTED): never sent nor stored, whatever the SDK does with the rest.", expect: [
                        ("outcome", "any"),
                        ("neverSent", .array([.string(value)])),
                        ("store", .object([("accessToken", .object([("notEquals", .string(value))]))])),
                    ])
                }
                if let failed = failedExchange("receiveRedirect", with: arguments, issuedAt: issuedAt, &state) { return failed }
                let name = state.newSession()
                state.changed()
                return StepBuilder.app("receiveRedirect", with: arguments, expect: [
                    ("outcome", "ok"),
                    ("requests", .array([StepBuilder.request("POST", "/oauth/v2/token", status: 200)])),
                    ("store", .object([("accessToken", StepBuilder.capture(name)), ("merchantId", "MERCH1")])),
                ])
            }
        case .relaunch:
            // Whether an armed crash outlives the instance is the driver's business: no
            // relaunch while one is armed.
            guard !state.crashArmed else { return nil }
            state.newInstance()
            return StepBuilder.app("relaunch", expect: [("outcome", "ok"), ("requests", .array([]))] + state.storeUnchanged)
        case .logout:
            if state.session != nil { state.changed() } else if !state.registered.isEmpty || !state.storeKnown { state.fired = nil }
            state.session = nil
            state.pending = nil
            state.storeKnown = true
            return StepBuilder.app("logout", expect: [("outcome", "ok"), ("requests", .array([])), ("storeEmpty", true)])
        case .status:
            guard state.storeKnown else { return nil }
            let loggedIn = state.session.map { state.now < $0.refreshExpires } ?? false
            var result: [(String, SpecJSON)] = [("isLoggedIn", .string(String(loggedIn)))]
            if let fired = state.fired {
                for label in Self.labels where state.everRegistered.contains(label) {
                    result.append(("fired.\(label)", .string(String(fired[label] ?? 0))))
                }
            }
            return StepBuilder.app("status", expect: [("result", .object(result)), ("requests", .array([]))])
        case .addCallback(let index):
            guard Self.labels.indices.contains(index), !state.registered.contains(Self.labels[index]) else { return nil }
            let label = Self.labels[index]
            state.captures += 1
            let name = "callback\(state.captures)"
            // Distinct from the identifier of the callback registered last and still there: two
            // live callbacks sharing one would make a removal remove the wrong one (CLV-API-7).
            let live = state.registrationOrder.last { state.registered.contains($0) }.flatMap { state.identifiers[$0] }
            state.registered.insert(label)
            state.everRegistered.insert(label)
            state.identifiers[label] = name
            state.registrationOrder.append(label)
            return StepBuilder.app("addTokenCallback", with: [("label", label)], expect: [("result", .object([("id", StepBuilder.capture(name, notEquals: live))])), ("requests", .array([]))])
        case .removeCallback(let index):
            guard Self.labels.indices.contains(index) else { return nil }
            let label = Self.labels[index]
            // Removed only if registered on this instance now (a label removed already, or
            // added before a relaunch, names no callback of this one: CLV-API-2, CLV-API-7).
            let removed = state.registered.remove(label) != nil
            return StepBuilder.app("removeTokenCallback", with: [("label", label)], expect: [("result", .object([("removed", .string(String(removed)))])), ("requests", .array([]))])
        case .crashStore:
            guard !state.crashArmed else { return nil }
            state.crashArmed = true
            return .object([("crashStore", "nextWrite")])
        case .reshape(let path, let kind):
            let reshape = AnswerReshapes.Reshape(path: path, kind: kind)
            guard Self.reshapes.contains(reshape), !state.reshapes.contains(reshape) else { return nil }
            state.reshapes.append(reshape)
            return AnswerReshapes.step(reshape)
        case .clearFaults:
            guard !state.reshapes.isEmpty else { return nil }
            state.reshapes = []
            return .object([("clearFaults", true)])
        case .advance(let jump):
            let target: Int
            switch jump {
            case .by(let seconds): target = state.now + seconds
            case .toAccessExpiry(let offset):
                guard let session = state.session else { return nil }
                target = session.accessExpires + offset
            case .toRefreshExpiry(let offset):
                guard let session = state.session else { return nil }
                target = session.refreshExpires + offset
            case .toCodeExpiry(let offset):
                guard case .code(let issuedAt)? = state.pending?.redirect else { return nil }
                target = issuedAt + Self.codeLifetime + offset
            }
            guard target > state.now else { return nil }
            let seconds = target - state.now
            state.now = target
            return .object([("advanceClock", .string(SpecText.duration(seconds)))])
        }
    }

    /// The call `name` exchanging a code issued at `issuedAt` when no session can come of it:
    /// the code past its lifetime (refused, nothing stored), or the store's write dying (the
    /// call fails, nothing stored, no callback); nil when the exchange goes through.
    private func failedExchange(_ name: String, with arguments: [(String, String)], issuedAt: Int, _ state: inout State) -> SpecJSON? {
        guard state.now < issuedAt + Self.codeLifetime else {
            return StepBuilder.app(name, with: arguments, note: "The code has outlived its lifetime: the exchange is refused, nothing stored.", expect: [
                ("outcome", "error"),
                ("requests", .array([StepBuilder.request("POST", "/oauth/v2/token", status: 400)])),
                ("storeEmpty", true),
            ])
        }
        guard state.crashArmed else { return nil }
        state.crashArmed = false
        state.crashLeftover = true
        return StepBuilder.app(name, with: arguments, note: "The exchange succeeds and the store's write of the session dies before its commit: the call fails, nothing stored, no callback.", expect: [
            ("outcome", "error"),
            ("requests", .array([StepBuilder.request("POST", "/oauth/v2/token", status: 200)])),
            ("storeEmpty", true),
        ])
    }

    /// setup or merchant with a stored session: ended, refreshed first, or used as it is.
    private func useSession(_ name: String, _ state: inout State, result: [(String, SpecJSON)]) -> SpecJSON? {
        guard let session = state.session else { return nil }
        let merchant = StepBuilder.request("GET", Self.merchantPath, status: 200)
        let arguments = name == "setupFull" ? Self.setupArguments : name == "setupPartial" ? Self.partialArguments : []
        if state.now >= session.refreshExpires {
            state.session = nil
            state.changed()
            return StepBuilder.app(name, with: arguments, note: "The refresh token has outlived its lifetime: the session ends with no request.", expect: [
                StepBuilder.error("notLoggedIn"), ("requests", .array([])), ("storeEmpty", true),
            ])
        }
        // Refreshing early or not is the SDK's choice in the window (see maxMargin).
        if state.now < session.accessExpires, state.now >= session.accessExpires - Self.maxMargin { return nil }
        if state.now >= session.accessExpires {
            if state.crashArmed {
                // The server has rotated the pair; what a later refresh with the old one gets
                // is past what the model follows.
                state.crashArmed = false
                state.crashLeftover = true
                state.stopped = true
                return StepBuilder.app(name, with: arguments, note: "The refresh succeeds and the store's write of the new pair dies before its commit: the call fails, and the flow stops here.", expect: [
                    ("outcome", "error"),
                ])
            }
            let fresh = state.newSession()
            state.changed()
            return StepBuilder.app(name, with: arguments, note: "The access token has expired: exactly one refresh, then the merchant call.", expect: [
                ("result", .object(result)),
                ("requests", .array([StepBuilder.request("POST", "/oauth/v2/refresh", status: 200), merchant])),
                ("store", .object([("accessToken", StepBuilder.capture(fresh, notEquals: session.name))])),
            ])
        }
        return StepBuilder.app(name, with: arguments, note: "Far from its expiry: the stored token as it is.", expect: [
            ("result", .object(result)),
            ("requests", .array([StepBuilder.request("GET", Self.merchantPath, status: 200, [("headers", .object([("Authorization", .string("Bearer ${\(session.name)}"))]))])])),
        ] + state.storeUnchanged)
    }
}
