/// The requirement ids a spec may cite, as the spec module sees the requirement catalogue
/// (FlowCheckProviders' `RequirementCatalogue`): ids only, in catalogue order. The spec module
/// knows no provider and no catalogue text; the loader is handed this, as it is handed providers.
public struct RequirementCatalog: Sendable, Equatable {
    /// Every id, in catalogue order.
    public let ids: [String]
    private let known: Set<String>

    /// - Parameter ids: the catalogue's ids, in its order.
    public init(_ ids: [String]) {
        self.ids = ids
        self.known = Set(ids)
    }

    /// Whether `id` is in the catalogue.
    public func contains(_ id: String) -> Bool {
        known.contains(id)
    }

    /// What a requirement id looks like: `SEED-00N-word[-word]` for a seed passage,
    /// `RFCNNNN-S[.S...]` for an RFC section.
    public static func isWellFormed(_ id: String) -> Bool {
        SpecPattern.requirementID.matches(id)
    }
}
