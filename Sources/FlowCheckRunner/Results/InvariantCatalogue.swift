import FlowCheckSpec

/// The invariants as reports list them, so a report need not know the spec module.
public enum InvariantCatalogue {
    /// Every invariant's id, its one-line statement and the requirement ids it cites, in order.
    public static var entries: [(id: String, statement: String, requirements: [String])] {
        Invariant.allCases.map { ($0.rawValue, $0.statement, $0.requirements) }
    }
}
