/// The `interleave` family: at every app call of a flow that makes requests, each of its
/// requests held in flight on the server while the user logs out (on the same SDK instance, or
/// on a new one after a relaunch over the same store), then released. Whatever the held
/// request brings back (a token, a refreshed pair, an API answer), the session the user ended
/// stays ended.
enum Interleavings {
    /// A logout wins over everything in flight when it happened.
    static let noResurrection = DerivedRule(
        id: "DRV-NO-RESURRECTION",
        statement: "a session the user ended (a logout, a delete) stays ended: a request in flight when it happened (a code exchange, a refresh, a renewal, an API call) that completes afterwards writes nothing back, and the store stays empty",
        requirements: ["SEED-000-logout", "SEED-003-delete", "RFC6819-5.3.3"])

    static func derive(_ spec: FlowSpec, provider: any ProviderDescription) -> [Deriver.Candidate] {
        guard let logout = provider.derivation.logoutAction, provider.actions.contains(where: { $0.name == logout }) else { return [] }
        let relaunch = provider.derivation.relaunchInFlight != nil && provider.actions.contains { $0.name == relaunchAction }
        var candidates: [Deriver.Candidate] = []
        for (index, step) in spec.steps.enumerated() {
            guard case .app(let name, _)? = step.action, name != logout, name != relaunchAction, step.background == nil,
                  let expect = step.expect, let requests = expect.checks.lazy.compactMap({ check -> [RequestExpectation]? in
                      if case .requests(let list) = check { return list } else { return nil }
                  }).first else { continue }
            var seen = Set<String>()
            for request in requests where !request.isOptional {
                guard let (method, path) = literal(request), seen.insert(path).inserted else { continue }
                let slug = "\(method)-" + path.split(separator: "/").joined(separator: "-")
                let derivation = Derivation(parent: spec.id, family: .interleave, variant: "step\(step.number).\(slug).\(logout)", rule: noResurrection,
                                            description: "step \(step.number)'s \(method) \(path) held in flight while the app calls \(logout), then released")
                candidates.append(Deriver.candidate(spec, steps: build(spec, at: index, path: path, logout: logout, relaunch: nil, derivation: derivation), attacked: index, derivation: derivation, kind: "\(name).\(slug).\(logout)"))
                // The user logs out and in again while the request is held: the store then
                // holds the new login's session, and the held request's answer (of the session
                // the logout ended) must not replace it. An SDK that only asks "is someone
                // still logged in?" passes the logout alone and fails this.
                if let login = lastLogin(in: spec, before: index, provider: provider) {
                    let relogin = Derivation(parent: spec.id, family: .interleave, variant: "step\(step.number).\(slug).\(logout).\(login.name)", rule: noOlderOverNewer,
                                             description: "step \(step.number)'s \(method) \(path) held in flight while the app calls \(logout), then \(login.name) again (step \(login.step.number)'s), then released")
                    candidates.append(Deriver.candidate(spec, steps: buildRelogin(spec, at: index, path: path, logout: logout, login: login.step, derivation: relogin), attacked: index, derivation: relogin, kind: "\(name).\(slug).\(logout).\(login.name)"))
                }
                guard relaunch, !provider.derivation.sessionStarts.contains(name) else { continue }
                // The provider's written relaunch flow (CLV-FULL-20 for Clover), on every request
                // of every flow: the instance that sent it is not the one the user logs out on.
                let relaunched = Derivation(parent: spec.id, family: .interleave, variant: "step\(step.number).\(slug).\(relaunchAction).\(logout)", rule: noResurrection,
                                            description: "step \(step.number)'s \(method) \(path) held in flight while the app relaunches (a new SDK instance over the same store) and calls \(logout) on the new instance, then released")
                candidates.append(Deriver.candidate(spec, steps: build(spec, at: index, path: path, logout: logout, relaunch: provider.derivation.relaunchInFlight, derivation: relaunched), attacked: index, derivation: relaunched, kind: "\(name).\(slug).\(relaunchAction).\(logout)"))
            }
        }
        return candidates
    }

    /// A logout, then a new login, wins over what was in flight before them.
    static let noOlderOverNewer = DerivedRule(
        id: "DRV-NO-OLDER-OVER-NEWER",
        statement: "a request in flight when the user logged out, answered after the user logged in again, writes nothing: the store keeps the new login's session, not the ended session's late (refreshed, renewed) token",
        requirements: ["SEED-000-logout", "SEED-003-delete", "RFC6819-5.3.3"])

    /// The flow's last step up to `index` (the held call itself, say) that logs in again with
    /// what it needs at hand (the provider's ``DerivationProfile/relogins``) and is written to
    /// succeed: the one to replay. None where the replay could fail for reasons of the flow's
    /// own: a fault or a store crash set up before the held call (it may still be pending), or
    /// a clock moved past a login that does not outlive it.
    static func lastLogin(in spec: FlowSpec, before index: Int, provider: any ProviderDescription) -> (name: String, step: Step)? {
        let relogins = provider.derivation.relogins
        let prefix = spec.steps[...index]
        guard !relogins.isEmpty, !prefix.contains(where: { step in
            switch step.action {
            case .fault?, .crashStore?: return true
            default: return false
            }
        }) else { return nil }
        var clockMoved = false
        for step in prefix.reversed() {
            if case .advanceClock? = step.action { clockMoved = true }
            guard case .app(let name, _)? = step.action, let relogin = relogins.first(where: { $0.action == name }), step.background == nil,
                  !clockMoved || relogin.outlivesClock, let checks = step.expect?.checks,
                  !checks.contains(where: { check in
                      if case .error = check { return true }
                      return check == .outcome(.error) || check == .outcome(.any)
                  }),
                  checks.contains(where: { check in
                      if case .result = check { return true }
                      return check == .outcome(.ok) || StoreCrashes.writes([check])
                  })
            else { continue }
            return (name, step)
        }
        return nil
    }

    /// The variable the replayed login's stored access token is captured in.
    static let reloginToken = "derivedReloginToken"

    /// As ``build(_:at:path:logout:relaunch:derivation:)`` with no relaunch, and the login
    /// replayed in the background after the logout, while the request is still held (an SDK
    /// that sends one request at a time finishes it only after the release): the login's end
    /// keeps what the store holds then, and the held call's end must leave it so.
    ///
    /// Whether the held call's late answer reaches the SDK before the harness reads the store
    /// at the login's end is a race for an SDK that sends both at once: a late write can then
    /// go unseen on a run, never a correct SDK fail. A serial SDK's late answer comes first.
    static func buildRelogin(_ spec: FlowSpec, at index: Int, path: String, logout: String, login: Step, derivation: Derivation) -> [Step] {
        var steps = build(spec, at: index, path: path, logout: logout, relaunch: nil, derivation: derivation)
        let place = spec.steps[index].location
        let label = "relogin"
        var again = login
        again.number = 0
        again.location = place
        again.addedByDerivation = true
        again.background = label
        again.note = "Derived: the user logs in again (as at line \(login.location.line)) while the old session's request is still held; the login goes on in the background."
        again.expect = nil
        again.allow = spec.steps[index].allow
        // After the logout, before the release.
        steps.insert(again, at: steps.count - 2)
        var loggedIn = Step(number: 0, location: place, note: "Derived: the new login ends; the store holds its session.", action: .await(label: label),
                            expect: Expectation([.outcome(.ok), .store([FieldMatcher(field: "accessToken", matcher: Matcher(.present, capture: reloginToken))])]))
        loggedIn.allow = spec.steps[index].allow
        steps.insert(loggedIn, at: steps.count - 1)
        steps[steps.count - 1].expect = Expectation([.outcome(.any), .store([FieldMatcher(field: "accessToken", matcher: Matcher(.equals(Template("${\(reloginToken)}"))))])])
        steps[steps.count - 1].note = "Derived (\(derivation.rule.id)): \(derivation.rule.statement)."
        return steps
    }

    /// The request's method and path, when both are written as literals.
    static func literal(_ request: RequestExpectation) -> (String, String)? {
        var method: String?
        var path: String?
        for check in request.checks {
            switch check {
            case .method(let value): method = value
            case .path(let matcher): if case .equals(let template) = matcher.kind, template.variables.isEmpty { path = template.raw }
            default: break
            }
        }
        guard let method, let path else { return nil }
        return (method, path)
    }

    /// The app action that starts a new SDK instance over the same store.
    static let relaunchAction = "relaunch"

    /// The flow up to the call, the hold, the call in the background, (a relaunch,) the
    /// logout, the release, the call's end: the store empty after each from the logout on.
    /// `relaunch`: why a late answer in the relaunched-away instance must not write (the
    /// provider's ``DerivationProfile/relaunchInFlight``), shown on the relaunch step; nil: no
    /// relaunch.
    static func build(_ spec: FlowSpec, at index: Int, path: String, logout: String, relaunch: String?, derivation: Derivation) -> [Step] {
        let original = spec.steps[index]
        let place = original.location
        let label = "held"
        let why = "Derived (\(derivation.rule.id)): \(derivation.rule.statement)."
        var held = original
        held.background = label
        held.expect = nil
        held.note = "Derived: the call starts; the step goes on once the server holds its \(path)."
        var steps: [Step] = [
            Step(number: 0, location: place, note: "Derived: the server will hold \(path) until faults are cleared.", action: .fault(FaultSpec(kind: "hold", path: path, times: 1))),
            held,
        ]
        if let relaunch {
            steps.append(Deriver.added(Step(number: 0, location: place, note: "Derived: the app relaunches while the request is in flight; the old instance still waits for its answer. Why its late answer must not write: \(relaunch).",
                                            action: .app(name: relaunchAction, arguments: []), expect: Expectation([.outcome(.any)]))))
        }
        steps += [
            Deriver.added(Step(number: 0, location: place, note: relaunch != nil ? "Derived: the user ends the session on the new instance while the old one's request is in flight." : "Derived: the user ends the session while the request is in flight.", action: .app(name: logout, arguments: []),
                       expect: Expectation([.outcome(.any), .storeEmpty(true)]))),
            Step(number: 0, location: place, note: "Derived: the held request is answered now.", action: .clearFaults),
            Step(number: 0, location: place, note: why, action: .await(label: label), expect: Expectation([.outcome(.any), .storeEmpty(true)])),
        ]
        // The spec author's opt-outs of the call's step hold for what is inserted around it (a
        // simulated crash's leftover file, say), each with its own reason.
        for i in steps.indices { steps[i].allow = original.allow }
        return Array(spec.steps[..<index]) + steps
    }
}
