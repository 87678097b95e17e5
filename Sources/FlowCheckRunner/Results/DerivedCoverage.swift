import FlowCheckSpec

/// The derived families against the providers, for the report's table: how many variants each
/// family gave each provider and how they fared, or why there are none.
public struct DerivedCoverage: Sendable, Equatable {
    /// One cell of the table.
    public enum Cell: Sendable, Equatable {
        /// Variants ran: how many passed, failed, or were harness errors or not run.
        case ran(passed: Int, failed: Int, other: Int)
        /// None, and why.
        case none(String)
    }

    /// The providers, in registration order, as columns.
    public var providers: [String]
    /// Rows in ``DerivedFamily`` order; cells in `providers` order.
    public var rows: [(family: DerivedFamily, cells: [Cell])]

    public static func == (lhs: DerivedCoverage, rhs: DerivedCoverage) -> Bool {
        lhs.providers == rhs.providers && lhs.rows.map(\.family) == rhs.rows.map(\.family) && lhs.rows.map(\.cells) == rhs.rows.map(\.cells)
    }

    /// The table for `results` (a run's, derived variants among them) of `specs` (the written
    /// flows loaded), over `providers`.
    public init(results: [FlowResult], specs: [FlowSpec], providers: ProviderCatalog) {
        self.providers = providers.ids.map(\.rawValue)
        rows = DerivedFamily.allCases.map { family in
            let cells = providers.all.map { provider -> Cell in
                if let reason = provider.derivation.notApplicable[family] { return .none(reason) }
                let variants = results.filter { $0.derivation?.family == family && $0.provider == provider.id.rawValue }
                guard variants.isEmpty else {
                    let passed = variants.filter { $0.status == .passed || $0.status == .passedWithSkips }.count
                    let failed = variants.filter { $0.status == .failed }.count
                    return .ran(passed: passed, failed: failed, other: variants.count - passed - failed)
                }
                let written = specs.filter { $0.provider == provider.id && $0.derivation == nil }
                if written.isEmpty { return .none("no flow of this provider in this run") }
                let optedOut = written.flatMap { spec in spec.notDerived.filter { $0.family == family }.map { "\(spec.id): \($0.why)" } }
                if !optedOut.isEmpty && optedOut.count == written.count { return .none("every flow opts out: " + optedOut.joined(separator: "; ")) }
                let place: String
                switch family {
                case .tamper: place = "no step hands the SDK a captured redirect"
                case .interleave: place = "no app call lists a request to hold"
                case .storeCrash: place = "no app call shows a store write, or the flow crashes its store itself"
                case .answer: place = "no app call that succeeds lists a request for an answer the SDK reads, outside a fault the flow arms itself"
                }
                return .none("no flow of this run has a place for it (\(place))")
            }
            return (family, cells)
        }
    }
}
