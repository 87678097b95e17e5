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
            // Not while a call started in the background still runs: the variant ends before
            // that call's await and would leave it running (Deriver.backgroundPending).
            guard case .app(let name, _)? = step.action, name != logout, name != relaunchAction, step.background == nil,
                  !Deriver.backgroundPending(in: spec, before: index),
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
