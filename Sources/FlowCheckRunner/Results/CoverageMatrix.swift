import FlowCheckProviders
import FlowCheckSpec

/// Which flows and invariants check each requirement of the catalogue, and (after a run) how
/// they fared: the matrix that ends the Markdown report and that `flowcheck --list
/// --requirements` prints. One row per catalogue requirement, in catalogue order; a requirement
/// nothing cites is a row too, marked uncovered, so a gap is visible rather than absent.
public struct CoverageMatrix: Sendable, Equatable {
    /// How one flow fared on one requirement it cites.
    public enum Verdict: String, Sendable, Equatable {
        /// The flow passed: every check citing the requirement held.
        case held
        /// A failed check cites the requirement.
        case violated
        /// The flow failed on a check citing something else, so this was not established.
        case unsettled
        /// Every check that could be made held, and one citing this requirement was skipped.
        case skipped
        /// The harness broke: the flow says nothing.
        case error
    }

    /// A flow that cites a requirement; its verdict is nil when nothing ran (a listing).
    public struct FlowCitation: Sendable, Equatable {
        public var flow: String
        public var verdict: Verdict?

        /// A citation by `flow`, with its verdict after a run.
        public init(flow: String, verdict: Verdict? = nil) {
            self.flow = flow
            self.verdict = verdict
        }
    }

    /// An invariant that cites a requirement. It is checked after every step of every flow, so
    /// after a run it either held in all of them or names the flows where it was violated;
    /// `violatedIn` is nil when nothing ran.
    public struct InvariantCitation: Sendable, Equatable {
        public var invariant: String
        public var violatedIn: [String]?

        /// A citation by `invariant`, with the flows that violated it after a run.
        public init(invariant: String, violatedIn: [String]? = nil) {
            self.invariant = invariant
            self.violatedIn = violatedIn
        }
    }

    /// One requirement and what checks it.
    public struct Row: Sendable, Equatable {
        public var id: String
        public var statement: String
        public var source: String
        public var flows: [FlowCitation]
        public var invariants: [InvariantCitation]
        /// Whether any flow or invariant checks it.
        public var isCovered: Bool { !flows.isEmpty || !invariants.isEmpty }

        /// A row as the matrix shows it.
        public init(id: String, statement: String, source: String, flows: [FlowCitation], invariants: [InvariantCitation]) {
            self.id = id
            self.statement = statement
            self.source = source
            self.flows = flows
            self.invariants = invariants
        }
    }

    /// One row per catalogue requirement, in catalogue order.
    public var rows: [Row]
    /// Whether the flows ran (the rows carry verdicts) or were only listed.
    public var ran: Bool

    /// The requirements something checks.
    public var covered: Int { rows.filter(\.isCovered).count }
    /// Every requirement of the catalogue.
    public var total: Int { rows.count }

    /// A matrix from rows already made (a report test's sample).
    public init(rows: [Row], ran: Bool) {
        self.rows = rows
        self.ran = ran
    }

    /// The matrix of a run: each citing flow with its verdict, each invariant held or violated.
    public init(requirements: [Requirement], results: [FlowResult], invariants: [Invariant] = Invariant.allCases) {
        ran = true
        rows = requirements.map { requirement in
            let flows = results.filter { $0.requirements.contains(requirement.id) }.map { flow in
                FlowCitation(flow: flow.id, verdict: Self.verdict(of: flow, on: requirement.id))
            }
            let citing = invariants.filter { $0.requirements.contains(requirement.id) }.map { invariant in
                InvariantCitation(invariant: invariant.rawValue, violatedIn: results.filter { flow in
                    flow.failures.contains { Invariant.cited(by: $0) == invariant }
                }.map(\.id))
            }
            return Row(id: requirement.id, statement: requirement.statement, source: requirement.source, flows: flows, invariants: citing)
        }
    }

    /// The matrix of specs that have not run: who cites what, no verdicts.
    public init(requirements: [Requirement], specs: [FlowSpec], invariants: [Invariant] = Invariant.allCases) {
        ran = false
        rows = requirements.map { requirement in
            Row(
                id: requirement.id, statement: requirement.statement, source: requirement.source,
                flows: specs.filter { $0.allRequirements.contains(requirement.id) }.map { FlowCitation(flow: $0.id, verdict: nil) },
                invariants: invariants.filter { $0.requirements.contains(requirement.id) }.map { InvariantCitation(invariant: $0.rawValue, violatedIn: nil) }
            )
        }
    }

    /// How `flow` fared on requirement `id`, which it cites.
    static func verdict(of flow: FlowResult, on id: String) -> Verdict {
        switch flow.status {
        case .error:
            return .error
        case .failed:
            return flow.failures.contains { $0.requirements.contains(id) } ? .violated : .unsettled
        case .passedWithSkips:
            // A skipped step checks its own ids, or the flow's when it names none.
            let skipped = flow.skips.contains { skip in
                let step = flow.steps.first { $0.number == skip.step }
                let ids = step.map(\.requirements).flatMap { $0.isEmpty ? nil : $0 } ?? flow.requirements
                return ids.contains(id)
            }
            return skipped ? .skipped : .held
        case .passed:
            return .held
        case .skipped:
            // Not run at all: nothing it cites was checked.
            return .skipped
        }
    }
}
