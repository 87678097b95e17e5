import FlowCheckSpec

extension FlowResult {
    /// The result with the requirement ids `spec` cites: the flow's (its own, then its steps'),
    /// each step's own, and on every failure that names none yet, the ids it enforces: an
    /// invariant's failure its invariant's, any other its step's, else the flow's.
    func citing(_ spec: FlowSpec) -> FlowResult {
        var result = self
        result.requirements = spec.allRequirements
        result.derivation = spec.derivation
        let stepIDs = Dictionary(spec.steps.map { ($0.number, $0.requirements) }, uniquingKeysWith: { first, _ in first })
        for index in result.steps.indices {
            result.steps[index].requirements = stepIDs[result.steps[index].number] ?? []
        }
        for index in result.failures.indices where result.failures[index].requirements.isEmpty {
            let failure = result.failures[index]
            if let invariant = Invariant.cited(by: failure) {
                result.failures[index].requirements = invariant.requirements
            } else if let ids = stepIDs[failure.step], !ids.isEmpty {
                result.failures[index].requirements = ids
            } else {
                result.failures[index].requirements = spec.requirements
            }
        }
        return result
    }
}

extension Invariant {
    /// The invariant a failure reports, if it is one: its check starts with the invariant's id
    /// (`INV-LEAK: ...`).
    public static func cited(by failure: CheckFailure) -> Invariant? {
        allCases.first { invariant in
            let id = invariant.rawValue
            guard failure.check.hasPrefix(id) else { return false }
            // INV-STORE must not claim a check of some future INV-STORE-X.
            let rest = failure.check.dropFirst(id.count)
            return rest.isEmpty || rest.first == ":" || rest.first == " "
        }
    }
}
