import FlowCheckSpec
import FlowCheckTestSupport

/// Clover's No OAuth (seed 000, "No OAuth Flow"): the app logs in and refreshes on its own and
/// hands the SDK tokens with `setup` and `updateToken`.
///
/// What it predicts, and where each prediction comes from:
/// - The app's own login and refreshes are the harness's requests (CLV-NONE-1, CLV-NONE-2); a
///   refresh rotates the app's refresh token, and every access token it got lives until its
///   own expiry (the fake's rule).
/// - `setup` with a token Clover accepts for the merchant: exactly one merchant request with
///   it, ready, the token stored, the app secret never sent (CLV-NONE-1); with one Clover
///   refuses (forged, or past its expiry): `tokenRejected` after that one request, nothing
///   stored (CLV-NONE-3). Whether an accepted setup fires the token-change callback the seed
///   leaves open: a count registered before it is no longer predicted. A setup is tried only
///   on an instance not set up yet and, for a refused token, only with nothing stored (no flow
///   decides what a refused setup does to a stored token).
/// - `updateToken` with another token: one merchant request with it; accepted, the token is
///   stored and the callback fires once (CLV-NONE-2); refused, `tokenRejected`, the previous
///   token stays stored and in use, no callback (CLV-NONE-4). Only after an accepted setup on
///   this instance (whether a refused one leaves the SDK set up, no flow decides).
/// - A merchant call sends the stored token as it is, never a refresh: `200` while it lives;
///   past its expiry `tokenRejected` after one request, at most one callback (CLV-NONE-1),
///   and what the SDK keeps then is its own business: the flow stops there.
/// - A store write that dies (`crashStore`) fails the accepted setup or update: nothing stored
///   changes and no callback fires (as the other modes).
/// - `logout` deletes the credentials and fires the callback for a stored token (seed 000,
///   "logout"); the instance must be set up again before its next call.
/// - `isLoggedIn` is true while a stored token lives and false with none stored.
extension CloverModel {
    /// Which token of the app's a `setup` or `updateToken` hands the SDK.
    public enum TokenChoice: String, Sendable, Equatable, CaseIterable {
        /// The newest access token the app got.
        case latest
        /// The one before it (still alive until its own expiry).
        case previous
        /// A string Clover never issued.
        case forged
    }

    /// An access or refresh token of the app's: its capture's name and its expiry.
    struct AppToken: Equatable {
        var name: String
        var expires: Int
    }

    static let forgedToken = "clv-forged-token-Zq7Lm"
    static let noOAuthDecision = "Generated: the expectations are what the committed Clover No OAuth specs decide (the token sent as it is and never refreshed, one merchant request per setup and update, a refused token changing nothing)."
    /// Why a step sends a token past its expiry: No OAuth's SDK sends what the app gave it.
    static let expiredAllowance: SpecJSON = .array([.object([
        ("invariant", "INV-EXPIRED"),
        ("why", "No OAuth: the app owns the token and its refresh (seed 000); the SDK sends what it was given, and the 401 is the app's cue"),
    ])])

    func chooseNoOAuth(_ state: State, _ random: inout SplitMix64, toward unreached: Set<String>) -> Action {
        // What a write, a crash or a callback is judged by comes more often once there is one.
        let writes = state.crashArmed ? 12 : 5
        var choices: [(Action, Int)] = [(.relaunch, 1), (.status, state.registered.isEmpty ? 2 : 4)]
        if state.appRefresh == nil {
            choices.append((.login, 12))
        } else {
            // A token newer than the stored one is what an update takes.
            let newer = state.session.map { "${\($0.name)}" } != state.appTokens.last.map { "${\($0.name)}" }
            choices.append((.appRefresh, newer ? 2 : 6))
        }
        // The newest token most often; the previous and a forged one each a fifth of the time.
        let choice = random.chance(60) ? TokenChoice.latest : random.pick([.previous, .forged])
        let unreachedChoice = TokenChoice.allCases.filter { unreached.contains(reachName(of: state.configured ? .updateToken($0) : .setupNone($0))) }.first
        let token = unreachedChoice ?? choice
        if !state.configured { choices.append((.setupNone(token), state.appTokens.isEmpty ? 2 : writes + 3)) }
        if state.configured {
            choices += [(.merchant, 4), (.logout, 1), (.updateToken(token), writes)]
        }
        choices.append(callbackChoice(state, &random))
        if !state.crashArmed { choices.append((.crashStore, 2)) }
        if state.session != nil || !state.appTokens.isEmpty {
            choices.append((pick([-61, -1, 0, 1].map { .advance(.toAccessExpiry(offset: $0)) }, toward: unreached, &random), 4))
        }
        choices.append((.advance(.by(seconds: random.pick([1, 59, 61, 120, state.access]))), 1))
        return random.weighted(steered(choices, toward: unreached))
    }

    /// The token `choice` names where the flow stands, or nil when the app has none such.
    private func token(_ choice: TokenChoice, _ state: State) -> (value: String, expires: Int?)? {
        switch choice {
        case .latest: return state.appTokens.last.map { ("${\($0.name)}", $0.expires) }
        case .previous:
            guard state.appTokens.count >= 2 else { return nil }
            let previous = state.appTokens[state.appTokens.count - 2]
            return ("${\(previous.name)}", previous.expires)
        case .forged: return (Self.forgedToken, nil)
        }
    }

    /// The action's steps in No OAuth, or nil when it has no place where the flow stands.
    func noOAuthSteps(_ action: Action, _ state: inout State) -> [SpecJSON]? {
        switch action {
        case .login: return appLogin(&state)
        case .appRefresh: return appRefresh(&state).map { [$0] }
        case .setupNone(let choice): return setupNone(choice, &state).map { [$0] }
        case .updateToken(let choice): return updateToken(choice, &state).map { [$0] }
        case .merchant: return noOAuthMerchant(&state).map { [$0] }
        case .status:
            var result: [(String, SpecJSON)] = []
            // A stored token counts only on an instance set up with it: No OAuth relies on the
            // token passed at each setup (seed 000), so what a fresh instance says of the store's
            // token is the SDK's business; with nothing stored it is logged out either way.
            if state.storeKnown, let session = state.session {
                if state.configured, state.now < session.accessExpires { result.append(("isLoggedIn", "true")) }
            } else if state.storeKnown {
                result.append(("isLoggedIn", "false"))
            }
            if let fired = state.fired {
                for label in Self.labels where state.everRegistered.contains(label) {
                    let count = fired[label] ?? 0
                    result.append(("fired.\(label)", state.firedSlack.contains(label) ? .object([("regex", .string("^(\(count)|\(count + 1))$"))]) : .string(String(count))))
                }
            }
            return [StepBuilder.app("status", expect: (result.isEmpty ? [] : [("result", .object(result))]) + [("requests", .array([]))])]
        case .logout:
            guard state.configured, state.storeKnown else { return nil }
            if state.session != nil { state.changed() } else if !state.registered.isEmpty { state.fired = nil }
            state.session = nil
            state.configured = false
            return [StepBuilder.app("logout", note: "Deletes the credentials (seed 000, logout); the app sets the SDK up again before its next call.", expect: [("outcome", "ok"), ("requests", .array([])), ("storeEmpty", true)])]
        case .advance(.toAccessExpiry(let offset)):
            // The stored token's expiry, or with none stored the app's newest token's.
            guard let expires = state.session?.accessExpires ?? state.appTokens.last?.expires else { return nil }
            let target = expires + offset
            guard target > state.now else { return nil }
            let seconds = target - state.now
            state.now = target
            return [.object([("advanceClock", .string(SpecText.duration(seconds)))])]
        case .relaunch, .addCallback, .removeCallback, .crashStore, .advance(.by):
            return plainStep(action, &state).map { [$0] }
        case .setup, .deny, .receiveRedirect, .tamper, .reshape, .clearFaults, .advance, .held, .heldOvertaken, .heldBoth:
            return nil
        }
    }

    /// The app's own PKCE login with the SDK's helper and its own code exchange (CLV-NONE-1).
    private func appLogin(_ state: inout State) -> [SpecJSON]? {
        guard state.appRefresh == nil else { return nil }
        state.captures += 1
        let n = state.captures
        state.appTokens.append(AppToken(name: "token\(n)", expires: state.now + state.access))
        state.appRefresh = AppToken(name: "refresh\(n)", expires: state.now + state.refresh)
        return Self.pkceLogin(n, note: "No OAuth: the app runs the login itself with the SDK's PKCE helper.") + [
            Self.appSend("/oauth/v2/token", [("client_id", "EXPAPP"), ("code", "${code\(n)}"), ("code_verifier", "${verifier\(n)}")], n: n, note: "The app's own code exchange, outside the SDK."),
        ]
    }

    /// The app's own refresh with its refresh token, while that lives.
    private func appRefresh(_ state: inout State) -> SpecJSON? {
        guard let refresh = state.appRefresh, state.now < refresh.expires else { return nil }
        state.captures += 1
        let n = state.captures
        state.appTokens.append(AppToken(name: "token\(n)", expires: state.now + state.access))
        state.appRefresh = AppToken(name: "refresh\(n)", expires: state.now + state.refresh)
        return Self.appSend("/oauth/v2/refresh", [("client_id", "EXPAPP"), ("refresh_token", "${\(refresh.name)}")], n: n, note: "The app refreshes its token itself (No OAuth: never the SDK).")
    }

    /// A harness request of the app's that answers a new pair, captured as `tokenN`/`refreshN`.
    private static func appSend(_ path: String, _ json: [(String, String)], n: Int, note: String) -> SpecJSON {
        .object([
            ("send", .object([("method", "POST"), ("path", .string(path)), ("json", .object(json.map { ($0.0, .string($0.1)) }))])),
            ("note", .string(note)),
            ("expect", .object([("requests", .array([.object([
                ("status", 200),
                ("responseJson", .object([("access_token", StepBuilder.capture("token\(n)")), ("refresh_token", StepBuilder.capture("refresh\(n)"))])),
            ])]))])),
        ])
    }

    /// The merchant request that verifies `token`, with its answer's status.
    private static func verification(_ token: String, status: Int) -> SpecJSON {
        StepBuilder.request("GET", merchantPath, status: status, [("headers", .object([("Authorization", .string("Bearer \(token)"))]))])
    }

    /// Whether Clover accepts a token of the app's now (a forged one never).
    private static func alive(_ expires: Int?, _ state: State) -> Bool {
        expires.map { state.now < $0 } ?? false
    }

    /// Steps sending a token past its expiry carry the allowance for it.
    private static func allowingExpired(_ step: SpecJSON, _ expires: Int?, _ state: State) -> SpecJSON {
        guard let expires, state.now >= expires else { return step }
        return StepBuilder.allowing(expiredAllowance, in: step)
    }

    private func setupNone(_ choice: TokenChoice, _ state: inout State) -> SpecJSON? {
        guard !state.configured, state.storeKnown, let (token, expires) = token(choice, state) else { return nil }
        let arguments = Self.partialArguments + [("token", token), ("merchantId", "MERCH1")]
        guard Self.alive(expires, state) else {
            // A refused token over a stored one: no flow decides what stays.
            guard state.session == nil else { return nil }
            return Self.allowingExpired(StepBuilder.app("setupNone", with: arguments, note: "A token Clover refuses (CLV-NONE-3): tokenRejected after one request, nothing stored.", expect: [
                StepBuilder.error("tokenRejected"), ("requests", .array([Self.verification(token, status: 401)])), ("storeEmpty", true),
            ]), expires, state)
        }
        // Whether a setup whose write died leaves the SDK set up no flow decides: not counted.
        if let failed = crashedWrite("setupNone", with: arguments, &state) { return failed }
        state.configured = true
        // Whether setup fires the callback the seed leaves open (CLV-NONE-1's decision): each
        // label registered now may count one more from here on.
        state.firedSlack.formUnion(state.registered)
        state.session = Session(name: String(token.dropFirst(2).dropLast()), accessExpires: expires ?? state.now, refreshExpires: Int.max)
        return StepBuilder.app("setupNone", with: arguments, note: "The app's token, verified with one merchant request and stored (CLV-NONE-1).", expect: [
            ("result", .object([("outcome", "ready"), ("merchantId", "MERCH1")])),
            ("requests", .array([Self.verification(token, status: 200)])),
            ("neverSent", .array(["clv-explore-secret-4Tq"])),
            ("store", .object([("accessToken", .string(token)), ("merchantId", "MERCH1")])),
        ])
    }

    private func updateToken(_ choice: TokenChoice, _ state: inout State) -> SpecJSON? {
        guard state.configured, state.storeKnown, let (token, expires) = token(choice, state) else { return nil }
        // The same token again: whether that is a change the seed leaves open.
        guard let session = state.session, "${\(session.name)}" != token else { return nil }
        let arguments = [("token", token)]
        guard Self.alive(expires, state) else {
            return Self.allowingExpired(StepBuilder.app("updateToken", with: arguments, note: "A token Clover refuses (CLV-NONE-4): tokenRejected, the previous token stays, no callback.", expect: [
                StepBuilder.error("tokenRejected"), ("requests", .array([Self.verification(token, status: 401)])),
                ("store", .object([("accessToken", .string("${\(session.name)}")), ("merchantId", "MERCH1")])),
            ]), expires, state)
        }
        if let failed = crashedWrite("updateToken", with: arguments, &state) { return failed }
        state.session = Session(name: String(token.dropFirst(2).dropLast()), accessExpires: expires ?? state.now, refreshExpires: Int.max)
        state.changed()
        return StepBuilder.app("updateToken", with: arguments, note: "Verified with one merchant request, stored, the callback fired once (CLV-NONE-2).", expect: [
            ("outcome", "ok"),
            ("requests", .array([Self.verification(token, status: 200)])),
            ("store", .object([("accessToken", .string(token)), ("merchantId", "MERCH1")])),
        ])
    }

    /// An accepted setup or update whose store write dies: the call fails, the store keeps what
    /// it had, no callback; nil with no crash armed.
    private func crashedWrite(_ name: String, with arguments: [(String, String)], _ state: inout State) -> SpecJSON? {
        guard state.crashArmed else { return nil }
        state.crashArmed = false
        state.crashLeftover = true
        return StepBuilder.app(name, with: arguments, note: "Clover accepts the token and the store's write of it dies before its commit: the call fails, the store keeps what it had, no callback.", expect: [("outcome", "error")] + state.storeUnchanged)
    }

    private func noOAuthMerchant(_ state: inout State) -> SpecJSON? {
        guard state.configured, state.storeKnown, let session = state.session else { return nil }
        let token = "${\(session.name)}"
        guard state.now < session.accessExpires else {
            // At most one callback (an invalidated token, or not), and what stays stored is the
            // SDK's business: past what the model follows.
            state.stopped = true
            return StepBuilder.app("merchant", note: "The token has expired; in No OAuth refreshing is the app's job (CLV-NONE-1): tokenRejected, no refresh.", expect: [
                StepBuilder.error("tokenRejected"), ("requests", .array([Self.verification(token, status: 401)])),
            ]).allowing(Self.expiredAllowance)
        }
        return StepBuilder.app("merchant", note: "The stored token as it is.", expect: [
            ("result", .object([("merchantId", "MERCH1")])),
            ("requests", .array([Self.verification(token, status: 200)])),
        ] + state.storeUnchanged)
    }
}

private extension SpecJSON {
    func allowing(_ allow: SpecJSON) -> SpecJSON { StepBuilder.allowing(allow, in: self) }
}
