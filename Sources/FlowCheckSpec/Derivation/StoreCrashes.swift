/// The `storeCrash` family: at every app call of a flow that writes the token store, the
/// store's write dies before its commit (`crashStore`), the app relaunches and makes the call
/// again (its next write, over whatever the crash left), and the user then ends the session.
/// Whatever the crash and the write after it left on disk, the session ends with nothing of
/// the token left: the store empty, its folder holding no copy (INV-STORE, judged at the end).
enum StoreCrashes {
    static let nothingLeft = DerivedRule(
        id: "DRV-CRASH",
        statement: "a store write that dies before its commit, then a relaunch, the call made again (the next write, over what the crash left), then the session ended: the store is empty and its folder holds no copy of any token (the crashed write's temporary file included)",
        requirements: ["RFC6819-5.3.3", "SEED-000-logout", "SEED-003-delete"])

    /// The crashed write's own temporary file is judged at the end, once the session is ended.
    static let pending = "Derived (DRV-CRASH): the crashed write's temporary file is judged once the session is ended, at the last step"

    static func derive(_ spec: FlowSpec, provider: any ProviderDescription) -> [Deriver.Candidate] {
        guard let logout = provider.derivation.logoutAction, provider.actions.contains(where: { $0.name == logout }),
              provider.actions.contains(where: { $0.name == "relaunch" }) else { return [] }
        var candidates: [Deriver.Candidate] = []
        for (index, step) in spec.steps.enumerated() {
            guard case .app(let name, _)? = step.action, name != logout, name != "relaunch", step.background == nil,
                  let checks = step.expect?.checks, writes(checks), !Deriver.backgroundPending(in: spec, before: index) else { continue }
            // A flow that already crashes its store keeps its own opt-outs; one more crash would
            // judge the harness's simulation twice.
            if spec.steps.contains(where: { if case .crashStore? = $0.action { return true } else { return false } }) { continue }
            let derivation = Derivation(parent: spec.id, family: .storeCrash, variant: "step\(step.number).\(name)", rule: nothingLeft,
                                        description: "step \(step.number)'s store write dies before its commit, the app relaunches, calls \(name) again, then calls \(logout)")
            candidates.append(Deriver.candidate(spec, steps: build(spec, at: index, logout: logout), attacked: index, derivation: derivation, kind: name))
        }
        return candidates
    }

    /// Whether the step's expectation shows a write: a stored field captured, or the store
    /// said to hold something.
    static func writes(_ checks: [Check]) -> Bool {
        checks.contains { check in
            switch check {
            case .store(let fields): return fields.contains { $0.matcher.capture != nil }
            case .storeEmpty(let empty): return !empty
            default: return false
            }
        }
    }

    static func build(_ spec: FlowSpec, at index: Int, logout: String) -> [Step] {
        let original = spec.steps[index]
        let place = original.location
        let excuse = [InvariantAllowance(invariant: .store, why: pending, location: place)]
        return Array(spec.steps[..<index]) + [
            Step(number: 0, location: place, note: "Derived: the next store write will die before its commit.", action: .crashStore(.nextWrite), allow: excuse),
            anyOutcome(original, excuse: excuse, note: "Derived: the store's write dies before its commit; the call may fail."),
            Deriver.added(Step(number: 0, location: place, note: "Derived: the app relaunches over the same store.", action: .app(name: "relaunch", arguments: []), expect: Expectation([.outcome(.any)]), allow: excuse)),
            Deriver.added(anyOutcome(original, excuse: excuse, note: "Derived: the relaunched app makes the call again: the store's next write, over what the crash left.")),
            Deriver.added(Step(number: 0, location: place, note: "Derived (\(nothingLeft.id)): \(nothingLeft.statement).", action: .app(name: logout, arguments: []), expect: Expectation([.outcome(.any), .storeEmpty(true)]))),
        ]
    }

    /// The call as written, judged only by its outcome (it may fail: a store that died, a spent
    /// code, a refused refresh), with the crash's temporary file excused until the logout.
    static func anyOutcome(_ original: Step, excuse: [InvariantAllowance], note: String) -> Step {
        var step = original
        step.expect = Expectation([.outcome(.any)])
        step.allow = original.allow.filter { $0.invariant != .store } + excuse
        step.note = note
        return step
    }
}
