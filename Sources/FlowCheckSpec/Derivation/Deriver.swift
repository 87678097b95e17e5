/// Derives the adversarial variants of committed flows (``DerivedFamily``): ordinary
/// ``FlowSpec``s with a ``Derivation``, run and reported like flows.
///
/// Deterministic: the same specs give the same variants, in the same order, with the same ids.
/// A variant whose steps (up to the end of what it judges) are the same as an earlier flow's
/// variant is not derived twice: the first flow, in load order, carries it.
public enum Deriver {
    /// Every variant of `specs`, flow by flow in their order, families in ``DerivedFamily`` order.
    /// - Parameters:
    ///   - specs: Committed flows; a derived one among them derives nothing.
    ///   - providers: The descriptions the flows' providers are looked up in.
    ///   - families: The families to derive (all by default).
    public static func variants(of specs: [FlowSpec], providers: ProviderCatalog, families: Set<DerivedFamily> = Set(DerivedFamily.allCases)) -> [FlowSpec] {
        // Candidates kept so far by their cheap key, with the tails of those that share it:
        // compared whole only when two cheap keys meet, which most never do.
        var kept: [String: [Candidate.Tail]] = [:]
        var variants: [FlowSpec] = []
        for spec in specs where spec.derivation == nil {
            guard let provider = providers.description(of: spec.provider) else { continue }
            let optedOut = Set(spec.notDerived.map(\.family))
            for family in DerivedFamily.allCases where families.contains(family) && !optedOut.contains(family) && provider.derivation.notApplicable[family] == nil {
                let derived: [Candidate]
                // No default: a new family is derived here or nothing compiles.
                switch family {
                case .tamper: derived = RedirectTampers.derive(spec, provider: provider)
                case .interleave: derived = Interleavings.derive(spec, provider: provider)
                case .storeCrash: derived = StoreCrashes.derive(spec, provider: provider)
                case .answer: derived = AnswerShapes.derive(spec, provider: provider)
                }
                for candidate in derived {
                    let tail = candidate.tail
                    if let rivals = kept[candidate.key] {
                        guard !rivals.contains(tail) else { continue }
                        kept[candidate.key]?.append(tail)
                    } else {
                        kept[candidate.key] = [tail]
                    }
                    variants.append(candidate.spec)
                }
            }
        }
        return variants
    }

    /// A variant and what makes it the same as another flow's: its provider, fixture, steps
    /// and rule, without notes or places.
    struct Candidate {
        var spec: FlowSpec
        /// What the variant does, cheaply: the provider, the attack, its rule and every step's
        /// shape. Two candidates with different keys differ.
        var key: String
        /// How many of the steps come before the attack, untouched.
        var attacked: Int

        /// What the key leaves out: every step from the attack on, whole (action, background
        /// label, expectation), without notes or places. Two candidates with the same key and
        /// tail are the same variant.
        struct Tail: Equatable {
            var attacked: Int
            var steps: [StepTail]
        }

        struct StepTail: Equatable {
            var action: Action?
            var background: String?
            var expect: Expectation?
        }

        var tail: Tail {
            Tail(attacked: attacked, steps: spec.steps.dropFirst(attacked).map { StepTail(action: $0.action, background: $0.background, expect: $0.expect) })
        }
    }

    /// The variant of `spec` with these steps (renumbered from 1) and this derivation.
    /// `kind`: the attack without its place in the flow (`state.case`), for the signature;
    /// `attacked`: how many of `steps` are the written flow's own, untouched, before the attack.
    static func candidate(_ spec: FlowSpec, steps: [Step], attacked: Int, derivation: Derivation, kind: String) -> Candidate {
        var variant = spec
        variant.id = derivation.id
        variant.title = "\(spec.title) — \(derivation.description)"
        variant.summary = derivation.rule.statement
        variant.steps = steps.enumerated().map { offset, step in
            var step = step
            step.number = offset + 1
            return step
        }
        variant.requirements = spec.requirements + derivation.rule.requirements.filter { !spec.requirements.contains($0) }
        variant.derivation = derivation
        variant.notDerived = []
        variant.decisions = spec.decisions + ["Derived (\(derivation.rule.id)): \(derivation.rule.statement)"]
        // What the variant does and judges: the provider, the attack and its rule, the shape of
        // the way to the attacked place (each step's action by kind and name: `app setupFull`,
        // `browser login`, `fault hold`), and everything of the steps from the attack on. Two
        // flows that reach the place the same way (other fixtures, other accounts, other checks
        // on the way, which the written flows judge) meet the same attack there: the first, in
        // load order, carries it.
        let key = ([spec.provider.rawValue, derivation.family.rawValue, kind, derivation.rule.id] + variant.steps.map(shape)).joined(separator: "\n")
        return Candidate(spec: variant, key: key, attacked: attacked)
    }

    /// Whether a call started in the background (`async`) before `index` is not yet awaited
    /// there: a variant cut short at `index` would end the flow with that call still running
    /// (held on the server, say), which is the variant's doing, not the SDK's.
    static func backgroundPending(in spec: FlowSpec, before index: Int) -> Bool {
        var running = Set<String>()
        for step in spec.steps[..<index] {
            if let label = step.background { running.insert(label) }
            if case .await(let label)? = step.action { running.remove(label) }
        }
        return !running.isEmpty
    }

    /// `step`, marked as an action the written flow may not ask of the driver (a logout, a
    /// relaunch): a driver without it leaves the variant not run.
    static func added(_ step: Step) -> Step {
        var step = step
        step.addedByDerivation = true
        return step
    }

    /// A step's action by kind and name only.
    static func shape(_ step: Step) -> String {
        switch step.action {
        case .app(let name, _)?: return "app \(name)" + (step.background.map { " async" + $0 } ?? "")
        case .browser(let operation, _, _)?: return "browser \(operation.rawValue)"
        case .fault(let fault)?: return "fault \(fault.kind)"
        case .await(let label)?: return "await \(label)"
        case .release(let label)?: return "release \(label)"
        case .advanceClock?: return "advanceClock"
        case .clearFaults?: return "clearFaults"
        case .server(let operation)?: return "server \(operation)"
        case .send?: return "send"
        case .crashStore?: return "crashStore"
        case nil: return "expect"
        }
    }
}
