import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec
import FlowCheckTestSupport

/// Moltin (seed 003) as explore sees it: Auth with good and bad credentials of two clients,
/// Products, Refresh Token, Delete Token, relaunch, clock jumps onto the token's expiry and
/// around it, persistent faults on the token and API paths, and revocation.
///
/// What it predicts, and where each prediction comes from (never what the seeds leave open):
/// - Auth with the right credentials and no fault succeeds with one `client_credentials` request
///   and stores a new token; with a wrong secret it is a `tokenEndpoint` error and the store is
///   unchanged (MLT-AUTH, MLT-BADAUTH, MLT-CREDS).
/// - Products more than 5 minutes before the token's expiry sends the stored token as it is;
///   at or past its expiry, with credentials in memory, exactly one renewal comes first and the
///   stored token changes (MLT-EXPIRY-EDGE); between the two a renewal is the SDK's choice and
///   the model makes no Products call there unless there is nothing to renew with (then the
///   valid token is sent); after a relaunch an expired token is `notLoggedIn` with
///   no request (MLT-CREDS); with nothing stored it is Moltin's 400 (MLT-DELETE); a revoked token
///   is recovered from once with credentials and `tokenRejected` without (MLT-EXPIRED).
/// - Refresh Token exchanges a live stored token for a new one (MLT-REFRESH); with no
///   credentials in memory or nothing stored it is `notLoggedIn` with no request.
/// - Delete Token empties the store (MLT-DELETE); a relaunch keeps it and forgets credentials.
/// - A call that meets a fault on every path it uses is an error of the fault's kind and
///   leaves the store as it was (MLT-NETFAIL, MLT-RENEW-FAULTS, MLT-RATELIMIT, FLT-*).
/// - A store write that dies (`crashStore`: an Auth's, a renewal's or a Refresh Token's) fails
///   the call and leaves the old token stored (MLT-STORE-CRASH); what the instance keeps in
///   memory then no flow decides, so the next call of the SDK comes after a relaunch, which
///   reads the old token (MLT-STORE-CRASH). A crashed refresh has spent the old token on the
///   server (the fake's rotation, MLT-STORE-CRASH's decision): it is revoked from then on.
public struct MoltinModel: ProviderModel {
    /// The paths a fault can be armed on.
    public enum FaultPath: String, Sendable, Equatable {
        case token = "/oauth/access_token"
        case products = "/v1/products"
        /// Every path.
        case every
    }

    /// A clock jump: onto a boundary of the stored token, or by a fixed amount.
    public enum Jump: Sendable, Equatable {
        /// To the stored token's expiry plus `offset` seconds (skipped when that is not ahead).
        case toExpiry(offset: Int)
        case by(seconds: Int)
    }

    /// One thing the app, the user or the world does.
    public enum Action: Sendable, Equatable {
        case auth(client: Int, rightSecret: Bool)
        case products, refreshToken, deleteToken, relaunch
        case advance(Jump)
        /// A fault armed until cleared.
        case fault(kind: String, path: FaultPath)
        case clearFaults
        /// `server: revokeTokens`: every token issued so far dies.
        case revoke
        /// A documented-equivalent shape of an answer, armed until faults are cleared.
        case reshape(path: String, kind: String)
        /// The store's next write dies before its commit.
        case crashStore
        /// `call` started with the server holding its first request to `path`; meanwhile the
        /// user deletes the token on the same instance; then the request is answered.
        /// DRV-NO-RESURRECTION: the store stays empty. (No relaunch in between: Moltin's
        /// flows settle nothing of what a late answer in an instance the app relaunched away
        /// from may do, so its derived interleavings keep the delete on the same instance too,
        /// ``DerivationProfile/relaunchInFlight``.)
        case held(call: HeldCall, path: FaultPath)
    }

    /// A call that can be in flight while the session ends.
    public enum HeldCall: String, Sendable, Equatable, CaseIterable {
        case auth, products, refreshToken
    }

    /// Every held call on every path a request of it can be held at.
    static let holds: [Action] = HeldCall.allCases.flatMap { call in
        [FaultPath.token, .products].map { Action.held(call: call, path: $0) }
    }

    public let provider = Provider.moltin
    public let idPrefix = "MLT"

    /// The fixture variants: the fake's token lifetime in seconds.
    static let lifetimes = [3600, 600, 120]
    static let clients = [("explore-a", "sk-Explore-A1"), ("explore-b", "sk-Explore-B2")]
    static let wrongSecret = "sk-Wrong-0000"
    /// How long before its expiry a conforming SDK may renew a token it could still send:
    /// MLT-EXPIRY-EDGE leaves a renewal before expiry optional (seed 003 fixes no margin), and
    /// CLV-FULL-4 places its steps where every margin up to 5 minutes gives the same requests.
    /// Inside this window, with credentials to renew with, what Products sends is the SDK's
    /// choice: the model generates no Products there.
    static let maxMargin = 300
    /// Offsets around the token's expiry that matter: just outside the 5-minute window (no
    /// renewal), inside it (only without credentials, where nothing can renew), and expiry
    /// itself with a second either side.
    static let expiryOffsets = [-301, -61, -60, -59, -1, 0, 1]
    /// Faults with the error kind the committed specs give a call that meets them first (nil:
    /// only that it is an error).
    static let faultKinds: [(String, String?)] = [
        ("serverError", "serverError"), ("serviceUnavailable", "serverError"), ("htmlServerError", "serverError"),
        ("rateLimited", "httpStatus"), ("connectionReset", "transport"), ("truncatedJSON", "invalidResponse"),
        ("nonJSONBody", nil), ("invalidGrant", "tokenEndpoint"), ("tokenNotValid", "tokenRejected"), ("unreachable", "transport"),
    ]

    /// A model with the standard fixture variants.
    public init() {}

    // MARK: - State

    enum Token: Equatable {
        case none
        /// Captured as `name`, expiring at `expires` (seconds from the flow's start).
        case known(name: String, expires: Int, alive: Bool)
    }

    struct State {
        var lifetime: Int
        var now = 0
        /// The client whose right credentials the SDK holds in memory.
        var credentials: Int?
        var token = Token.none
        var tokenFault: String?
        var productsFault: String?
        var captures = 0

        mutating func newCapture() -> String {
            captures += 1
            return "t\(captures)"
        }

        /// The store check that says nothing changed.
        var storeUnchanged: (String, SpecJSON) {
            switch token {
            case .none: return ("storeEmpty", true)
            case .known(let name, _, _): return ("store", .object([("accessToken", .string("${\(name)}"))]))
            }
        }

        var anyFault: Bool { tokenFault != nil || productsFault != nil }
        var crashArmed = false
        /// A write died: the instance's memory is past what the model follows until a relaunch.
        var crashed = false
        /// A crashed write's temporary file may be in the store's folder from here on.
        var crashLeftover = false
        /// The reshapes armed (``AnswerReshapes``): they change no prediction.
        var reshapes: [AnswerReshapes.Reshape] = []
        /// How far the flow's clock may be ahead of `now`: a call that met a fault with a
        /// `Retry-After` may have waited it out on the flow's clock before its one retry, or
        /// given up at once (RFC 9110 §10.2.3: both conform, MLT-RATELIMIT), so from then on
        /// the model knows the clock only within this many seconds.
        var slack = 0
        /// `slack` when the stored token was issued: its expiry moved with the clock until then.
        var tokenSlack = 0

        /// Whether the clock is before `moment` wherever in its unsure span it stands, measured
        /// against the stored token's expiry; nil when the SDK's waits may have put it either side.
        func surely(before moment: Int) -> Bool? {
            let unsure = slack - tokenSlack
            if now + unsure < moment { return true }
            if now >= moment { return false }
            return nil
        }
    }

    /// The `Retry-After` a fault's answer carries, in seconds (the fakes': 429 30, 503 120).
    static let retryAfter: [String: Int] = ["rateLimited": 30, "serviceUnavailable": 120]

    /// Every fault on every path it can be armed on: a refused grant on the token endpoint, a
    /// rejected token on the API, an unreachable host everywhere, the rest on each path.
    static let faults: [Action] = faultKinds.flatMap { kind -> [Action] in
        switch kind.0 {
        case "invalidGrant": return [.fault(kind: kind.0, path: .token)]
        case "tokenNotValid": return [.fault(kind: kind.0, path: .products)]
        case "unreachable": return [.fault(kind: kind.0, path: .every)]
        default: return [FaultPath.token, .products, .every].map { .fault(kind: kind.0, path: $0) }
        }
    }

    static func kind(of fault: String) -> String? {
        faultKinds.first { $0.0 == fault }?.1 ?? nil
    }

    // MARK: - Generation

    public func generate(using random: inout SplitMix64, maxSteps: Int, toward unreached: Set<String>) -> ModelPlan<Action> {
        let variant = random.below(Self.lifetimes.count)
        let actions = draw(from: State(lifetime: Self.lifetimes[variant]), using: &random, maxSteps: maxSteps, triesPerAction: nil,
                           choose: { state, random, first in choose(state, &random, first: first, toward: unreached) }, apply: steps)
        return ModelPlan(variant: variant, actions: actions)
    }

    private func choose(_ state: State, _ random: inout SplitMix64, first: Bool, toward unreached: Set<String>) -> Action {
        if first, random.chance(85) { return .auth(client: 0, rightSecret: true) }
        var choices: [(Action, Int)] = []
        let client = random.chance(75) ? 0 : 1
        choices.append((.auth(client: client, rightSecret: true), state.token == .none || state.credentials == nil ? 4 : 1))
        choices.append((.auth(client: client, rightSecret: false), 1))
        choices.append((.products, 6))
        choices.append((.refreshToken, 2))
        choices.append((.deleteToken, 1))
        choices.append((.relaunch, 2))
        if case .known = state.token {
            choices.append((pick(Self.expiryOffsets.map { .advance(.toExpiry(offset: $0)) }, toward: unreached, &random), 6))
        }
        choices.append((.advance(.by(seconds: random.pick([1, 30, 59, 61, 300, state.lifetime, state.lifetime + 1]))), 2))
        if !state.anyFault {
            choices.append((pick(Self.faults, toward: unreached, &random), 2))
        }
        if state.anyFault || !state.reshapes.isEmpty { choices.append((.clearFaults, 3)) }
        let reshapes = Self.reshapes(lifetime: state.lifetime).filter { !state.reshapes.contains($0) }
        if !reshapes.isEmpty { choices.append((pick(reshapes.map { .reshape(path: $0.path, kind: $0.kind) }, toward: unreached, &random), 1)) }
        choices.append((.revoke, 1))
        if !state.crashArmed, !state.crashed { choices.append((.crashStore, 1)) }
        if !state.anyFault, !state.crashArmed, !state.crashed { choices.append((pick(Self.holds, toward: unreached, &random), 2)) }
        return random.weighted(steered(choices, toward: unreached))
    }

    public func simplifications(of action: Action) -> [Action] {
        switch action {
        case .auth(let client, let right): return client == 0 ? [] : [.auth(client: 0, rightSecret: right)]
        case .advance(.by(let seconds)): return seconds > 1 ? [.advance(.by(seconds: seconds / 2))] : []
        case .advance(.toExpiry(let offset)): return offset == 0 ? [] : [.advance(.toExpiry(offset: 0))]
        case .fault(let kind, let path): return path == .every || kind == "invalidGrant" || kind == "tokenNotValid" ? [] : [.fault(kind: kind, path: .every)]
        case .products, .held, .refreshToken, .deleteToken, .relaunch, .clearFaults, .revoke, .reshape, .crashStore: return []
        }
    }

    // MARK: - Reach

    public func reachName(of action: Action) -> String {
        switch action {
        case .auth(let client, let right): return "auth" + (client == 0 ? "" : ".secondClient") + (right ? "" : ".wrongSecret")
        case .products: return "products"
        case .refreshToken: return "refreshToken"
        case .deleteToken: return "deleteToken"
        case .relaunch: return "relaunch"
        case .advance(.toExpiry(let offset)): return "advance.expiry\(offset >= 0 ? "+" : "")\(offset)"
        case .advance(.by): return "advance.by"
        case .fault(let kind, let path): return "fault.\(kind)@\(path.rawValue)"
        case .clearFaults: return "clearFaults"
        case .revoke: return "revoke"
        case .reshape(let path, let kind): return AnswerReshapes.Reshape(path: path, kind: kind).reachName
        case .crashStore: return "crashStore"
        case .held(let call, let path): return "held.\(call.rawValue)@\(path.rawValue).deleteToken"
        }
    }

    /// The reshapes that apply to a fixture with this token lifetime (seed 003's default hour
    /// alone lets the expiry be left out).
    static func reshapes(lifetime: Int) -> [AnswerReshapes.Reshape] {
        AnswerReshapes.of(.moltin, fixture: MoltinFixture(clients: [], tokenLifetime: TimeInterval(lifetime)))
    }

    public var reachNames: [String] {
        let auths = [0, 1].flatMap { client in [true, false].map { reachName(of: .auth(client: client, rightSecret: $0)) } }
        let jumps = Self.expiryOffsets.map { reachName(of: .advance(.toExpiry(offset: $0))) } + ["advance.by"]
        let faults = Self.faults.map(reachName)
        var reshapes: [String] = []
        for lifetime in Self.lifetimes { for reshape in Self.reshapes(lifetime: lifetime) where !reshapes.contains(reshape.reachName) { reshapes.append(reshape.reachName) } }
        return auths + ["products", "refreshToken", "deleteToken", "relaunch"] + jumps + faults + ["clearFaults", "revoke", "crashStore"] + reshapes + Self.holds.map(reachName)
    }

    // MARK: - Model states

    public func stateNames(of plan: ModelPlan<Action>) -> Set<String> {
        visited(plan.actions, from: State(lifetime: Self.lifetimes[plan.variant]), apply: steps, name: Self.names)
    }

    public var stateNames: [String] {
        ["token.none", "token.live", "token.nearExpiry", "token.expired", "token.revoked",
         "credentials.inMemory", "credentials.none", "fault.armed", "reshape.armed", "crash.armed", "crash.afterCrash"]
    }

    /// The facets of `state`: the stored token where the clock stands, the credentials in
    /// memory, what is armed.
    static func names(_ state: State) -> [String] {
        var names: [String]
        switch state.token {
        case .none: names = ["token.none"]
        case .known(_, let expires, let alive):
            names = [!alive ? "token.revoked" : state.now >= expires ? "token.expired" : state.now >= expires - maxMargin ? "token.nearExpiry" : "token.live"]
        }
        names.append(state.credentials == nil ? "credentials.none" : "credentials.inMemory")
        if state.anyFault { names.append("fault.armed") }
        if !state.reshapes.isEmpty { names.append("reshape.armed") }
        if state.crashArmed { names.append("crash.armed") }
        if state.crashed { names.append("crash.afterCrash") }
        return names
    }

    // MARK: - Rendering

    public func render(_ plan: ModelPlan<Action>, id: String) -> RenderedFlow {
        let lifetime = Self.lifetimes[plan.variant]
        var state = State(lifetime: lifetime)
        let steps = written(plan.actions, from: &state) { action, state in self.steps(action, &state) }
        let fixture = SpecJSON.object([
            ("clients", .array(Self.clients.map { .object([("id", .string($0.0)), ("secret", .string($0.1))]) })),
            ("tokenLifetime", .int(lifetime)),
        ])
        let spec = SpecText.spec(
            id: id, title: "Explored Moltin flow \(id)",
            summary: "A random Moltin flow generated by flowcheck explore; each expectation is the Moltin model's prediction.",
            seed: "003_d427daaf6ba0e8e7.txt", passage: "Obtaining a new token; Refreshing a token; Using an expired token; Token Storage",
            provider: provider.rawValue, fixture: fixture,
            decisions: ["Generated: the expectations are what the committed Moltin specs decide (an expired token renewed once before use, a renewal before expiry left to the SDK, no failure changes the store)."],
            steps: steps
        )
        return RenderedFlow(spec: spec, stepCount: steps.count)
    }

    /// Why a step after a store crash may find the crashed write's temporary file.
    static let leftoverAllowance = StepBuilder.leftoverAllowance

    /// The steps for `action` where `state` stands (one, but for a held call), with their
    /// predictions; nil (and `state` unchanged) when the model cannot predict them there.
    func steps(_ action: Action, _ state: inout State) -> [SpecJSON]? {
        guard case .held(let call, let path) = action else { return step(action, &state).map { [$0] } }
        guard let written = held(call, path: path, &state) else { return nil }
        return state.crashLeftover ? written.map { StepBuilder.allowing(Self.leftoverAllowance, in: $0) } : written
    }

    /// The step for `action` where `state` stands, with its predictions; nil (and `state`
    /// unchanged) when the model cannot predict it there.
    func step(_ action: Action, _ state: inout State) -> SpecJSON? {
        // A call while a fault with a Retry-After is armed may wait it out, once for each of
        // its requests (a renewal, then the call's own): the clock may move that far.
        let waits = [state.tokenFault, state.productsFault].compactMap { $0.flatMap { Self.retryAfter[$0] } }.max().map { 2 * $0 } ?? 0
        guard let written = crashAware(action, &state) else { return nil }
        switch action {
        case .auth, .products, .refreshToken: state.slack += waits
        default: break
        }
        return state.crashLeftover ? StepBuilder.allowing(Self.leftoverAllowance, in: written) : written
    }

    /// `plainStep`, with an armed crash taking the first write: the call fails, the old token
    /// stays stored, and only a relaunch follows on the SDK's side.
    private func crashAware(_ action: Action, _ state: inout State) -> SpecJSON? {
        switch action {
        case .crashStore:
            guard !state.crashArmed, !state.crashed else { return nil }
            state.crashArmed = true
            return .object([("crashStore", "nextWrite")])
        case .relaunch:
            // Whether an armed crash outlives the instance is the driver's business.
            guard !state.crashArmed else { return nil }
            state.crashed = false
        case .deleteToken:
            // Whether a store's delete is a write is the store's business.
            guard !state.crashArmed, !state.crashed else { return nil }
        case .auth, .products, .refreshToken:
            guard !state.crashed else { return nil }
        case .advance, .fault, .clearFaults, .revoke, .reshape:
            break
        case .held:
            return nil
        }
        guard state.crashArmed else { return plainStep(action, &state) }
        var next = state
        guard let plain = plainStep(action, &next) else { return nil }
        // No new token stored: no write met the crash.
        guard next.captures != state.captures else {
            state = next
            return plain
        }
        let before = state
        // A live token's renewal (a rejected call's recovery) spends it or not as the SDK's
        // grant decides (refresh or client_credentials): what a relaunch would send is open.
        if action == .products, case .known(_, let expires, true) = before.token, before.surely(before: expires) != false { return nil }
        state = next
        state.token = before.token
        state.tokenSlack = before.tokenSlack
        state.credentials = before.credentials
        state.crashArmed = false
        state.crashed = true
        state.crashLeftover = true
        if action == .refreshToken, case .known(let name, let expires, _) = before.token {
            state.token = .known(name: name, expires: expires, alive: false)
        }
        var expect: [(String, SpecJSON)] = [("outcome", "error")]
        if case .auth(let client, _) = action {
            expect.append(("requests", .array([StepBuilder.request("POST", FaultPath.token.rawValue, status: 200, [("form", .object([("grant_type", "client_credentials"), ("client_id", .string(Self.clients[client].0))]))])])))
        }
        expect += [before.storeUnchanged]
        guard case .object(let members) = plain, let name = members.first(where: { $0.0 == "app" })?.1 else { return nil }
        var rewritten: [(String, SpecJSON)] = [("app", name)]
        if let with = members.first(where: { $0.0 == "with" }) { rewritten.append(with) }
        rewritten.append(("note", "The store's write of the new token dies before its commit (MLT-STORE-CRASH): the call fails and the old token stays stored; the app is relaunched before its next call."))
        rewritten.append(("expect", .object(expect)))
        return .object(rewritten)
    }

    private func plainStep(_ action: Action, _ state: inout State) -> SpecJSON? {
        switch action {
        case .crashStore, .held:
            return nil
        case .auth(let client, let right):
            return auth(client: client, right: right, &state)
        case .products:
            return products(&state)
        case .refreshToken:
            return refreshToken(&state)
        case .deleteToken:
            state.token = .none
            return StepBuilder.app("deleteToken", expect: [("outcome", "ok"), ("requests", .array([])), ("storeEmpty", true)])
        case .relaunch:
            state.credentials = nil
            return StepBuilder.app("relaunch", expect: [("outcome", "ok"), ("requests", .array([]))] + [state.storeUnchanged])
        case .advance(let jump):
            let seconds: Int
            switch jump {
            case .by(let amount): seconds = amount
            case .toExpiry(let offset):
                guard case .known(_, let expires, _) = state.token, expires + offset > state.now else { return nil }
                seconds = expires + offset - state.now
            }
            guard seconds > 0 else { return nil }
            state.now += seconds
            return .object([("advanceClock", .string(SpecText.duration(seconds)))])
        case .fault(let kind, let path):
            switch path {
            case .token:
                guard state.tokenFault == nil else { return nil }
                state.tokenFault = kind
            case .products:
                guard state.productsFault == nil else { return nil }
                state.productsFault = kind
            case .every:
                guard !state.anyFault else { return nil }
                state.tokenFault = kind
                state.productsFault = kind
            }
            var fault: [(String, SpecJSON)] = [("kind", .string(kind))]
            if path != .every { fault.append(("path", .string(path.rawValue))) }
            return .object([("fault", .object(fault))])
        case .clearFaults:
            state.tokenFault = nil
            state.productsFault = nil
            state.reshapes = []
            return .object([("clearFaults", true)])
        case .reshape(let path, let kind):
            let reshape = AnswerReshapes.Reshape(path: path, kind: kind)
            guard Self.reshapes(lifetime: state.lifetime).contains(reshape), !state.reshapes.contains(reshape) else { return nil }
            state.reshapes.append(reshape)
            return AnswerReshapes.step(reshape)
        case .revoke:
            if case .known(let name, let expires, _) = state.token { state.token = .known(name: name, expires: expires, alive: false) }
            return .object([("server", "revokeTokens")])
        }
    }

    /// A call held in flight while the session ends (the `interleave` family's DRV-NO-RESURRECTION,
    /// MLT-DELETE): whatever the held request brings back once answered, the store stays empty.
    /// What the call itself returns is the SDK's business: only the store is predicted.
    private func held(_ call: HeldCall, path: FaultPath, _ state: inout State) -> [SpecJSON]? {
        guard !state.anyFault, !state.crashArmed, !state.crashed else { return nil }
        let arguments = call == .auth ? [("clientId", Self.clients[0].0), ("clientSecret", Self.clients[0].1)] : []
        let steps = StepBuilder.held(call.rawValue, with: arguments, path: path.rawValue, end: "deleteToken")
        state.token = .none
        state.tokenFault = nil
        state.productsFault = nil
        state.reshapes = []
        return steps
    }

    private func auth(client: Int, right: Bool, _ state: inout State) -> SpecJSON? {
        let (clientID, secret) = Self.clients[client]
        let arguments = [("clientId", clientID), ("clientSecret", right ? secret : Self.wrongSecret)]
        if let fault = state.tokenFault {
            return StepBuilder.app("auth", with: arguments, expect: [StepBuilder.error(Self.kind(of: fault))] + [state.storeUnchanged])
        }
        guard right else {
            return StepBuilder.app("auth", with: arguments, expect: [
                StepBuilder.error("tokenEndpoint"),
                ("requests", .array([StepBuilder.request("POST", FaultPath.token.rawValue, status: 401)])),
            ] + [state.storeUnchanged])
        }
        let name = state.newCapture()
        state.token = .known(name: name, expires: state.now + state.lifetime, alive: true)
        state.tokenSlack = state.slack
        state.credentials = client
        return StepBuilder.app("auth", with: arguments, expect: [
            ("outcome", "ok"),
            ("requests", .array([StepBuilder.request("POST", FaultPath.token.rawValue, status: 200, [
                ("form", .object([("grant_type", "client_credentials"), ("client_id", .string(clientID))])),
            ])])),
            ("store", .object([("accessToken", StepBuilder.capture(name))])),
        ])
    }

    /// The store check after a call that renewed the token, and the state it leaves.
    private func renewed(from old: String, _ state: inout State) -> (String, SpecJSON) {
        let name = state.newCapture()
        state.token = .known(name: name, expires: state.now + state.lifetime, alive: true)
        state.tokenSlack = state.slack
        return ("store", .object([("accessToken", StepBuilder.capture(name, notEquals: old))]))
    }

    private func products(_ state: inout State) -> SpecJSON? {
        switch state.token {
        case .none:
            if let fault = state.productsFault {
                return StepBuilder.app("products", expect: [StepBuilder.error(fault == "tokenNotValid" ? nil : Self.kind(of: fault)), ("storeEmpty", true)])
            }
            return StepBuilder.app("products", expect: [
                StepBuilder.error("httpStatus"),
                ("requests", .array([StepBuilder.request("GET", FaultPath.products.rawValue, status: 400)])),
                ("storeEmpty", true),
            ])
        case .known(let name, let expires, let alive):
            let unchanged = ("store", SpecJSON.object([("accessToken", .string("${\(name)}"))]))
            // The SDK's own waits may have put the clock either side of a line that decides
            // what Products sends: the model does not guess.
            guard state.surely(before: expires) != nil, state.surely(before: expires - Self.maxMargin) != nil else { return nil }
            let needsRenewal = state.now >= expires
            // Renewing early or not is the SDK's choice in the window (see maxMargin).
            if !needsRenewal, state.now >= expires - Self.maxMargin, state.credentials != nil { return nil }
            if needsRenewal, state.credentials == nil {
                return StepBuilder.app("products", note: "Expired, and no credentials in memory to renew it with.", expect: [
                    StepBuilder.error("notLoggedIn"), ("requests", .array([])), unchanged,
                ])
            }
            if !needsRenewal || state.credentials == nil {
                // The stored token goes out as it is.
                if let fault = state.productsFault {
                    guard fault == "tokenNotValid", state.credentials != nil else {
                        return StepBuilder.app("products", expect: [StepBuilder.error(Self.kind(of: fault)), unchanged])
                    }
                    if let tokenFault = state.tokenFault {
                        return StepBuilder.app("products", expect: [StepBuilder.error(Self.kind(of: tokenFault)), unchanged])
                    }
                    return StepBuilder.app("products", note: "Rejected, renewed once, rejected again.", expect: [StepBuilder.error("tokenRejected"), renewed(from: name, &state)])
                }
                if alive {
                    return StepBuilder.app("products", note: state.now >= expires - Self.maxMargin ? "Near its expiry but not expired, with nothing to renew it with: sent as it is." : "Far from its expiry: the stored token as it is.", expect: [
                        ("outcome", "ok"),
                        ("requests", .array([StepBuilder.request("GET", FaultPath.products.rawValue, status: 200, [("headers", .object([("Authorization", .string("Bearer ${\(name)}"))]))])])),
                        unchanged,
                    ])
                }
                guard state.credentials != nil else {
                    return StepBuilder.app("products", note: "Revoked, and no credentials to recover with.", expect: [
                        StepBuilder.error("tokenRejected"),
                        ("requests", .array([StepBuilder.request("GET", FaultPath.products.rawValue, status: 401, [("headers", .object([("Authorization", .string("Bearer ${\(name)}"))]))])])),
                        unchanged,
                    ])
                }
                if let tokenFault = state.tokenFault {
                    return StepBuilder.app("products", expect: [StepBuilder.error(Self.kind(of: tokenFault)), unchanged])
                }
                return StepBuilder.app("products", note: "Revoked: recovered from once.", expect: [("outcome", "ok"), renewed(from: name, &state)])
            }
            // Expired, with credentials: one renewal first.
            if let tokenFault = state.tokenFault {
                return StepBuilder.app("products", note: "The renewal meets the fault: the token is kept.", expect: [StepBuilder.error(Self.kind(of: tokenFault)), unchanged])
            }
            if let fault = state.productsFault {
                let kind = fault == "tokenNotValid" ? "tokenRejected" : Self.kind(of: fault)
                return StepBuilder.app("products", expect: [StepBuilder.error(kind), renewed(from: name, &state)])
            }
            let requests: [(String, SpecJSON)] = alive ? [("requests", .array([
                StepBuilder.request("POST", FaultPath.token.rawValue, status: 200),
                StepBuilder.request("GET", FaultPath.products.rawValue, status: 200, [("headers", .object([("Authorization", .object([("notEquals", .string("Bearer ${\(name)}"))]))]))]),
            ]))] : []
            return StepBuilder.app("products", note: "Expired: exactly one renewal, then the call with the new token.", expect: [("outcome", "ok")] + requests + [renewed(from: name, &state)])
        }
    }

    private func refreshToken(_ state: inout State) -> SpecJSON? {
        guard let client = state.credentials else {
            return StepBuilder.app("refreshToken", note: "No credentials in memory.", expect: [StepBuilder.error("notLoggedIn"), ("requests", .array([]))] + [state.storeUnchanged])
        }
        switch state.token {
        case .none:
            return StepBuilder.app("refreshToken", note: "Nothing stored to refresh.", expect: [StepBuilder.error("notLoggedIn"), ("requests", .array([])), ("storeEmpty", true)])
        case .known(let name, _, let alive):
            let unchanged = ("store", SpecJSON.object([("accessToken", .string("${\(name)}"))]))
            if let fault = state.tokenFault {
                return StepBuilder.app("refreshToken", expect: [StepBuilder.error(Self.kind(of: fault)), unchanged])
            }
            guard alive else {
                return StepBuilder.app("refreshToken", note: "The stored token was revoked: the refresh is refused.", expect: [
                    StepBuilder.error("tokenEndpoint"),
                    ("requests", .array([StepBuilder.request("POST", FaultPath.token.rawValue, status: 401)])),
                    unchanged,
                ])
            }
            return StepBuilder.app("refreshToken", expect: [
                ("outcome", "ok"),
                ("requests", .array([StepBuilder.request("POST", FaultPath.token.rawValue, status: 200, [
                    ("form", .object([("grant_type", "refresh_token"), ("client_id", .string(Self.clients[client].0)), ("refresh_token", .string("${\(name)}"))])),
                ])])),
                renewed(from: name, &state),
            ])
        }
    }
}
