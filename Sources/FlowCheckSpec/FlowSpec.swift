/// One flow: a documented sequence from a seed page, as steps an SDK must get through.
public struct FlowSpec: Sendable {
    /// The spec's path as it was given (relative paths stay relative, so reports are stable).
    public var file: String
    /// The flow's id, e.g. `MLT-AUTH`. Stable and unique across the suite.
    public var id: String
    public var title: String
    /// An optional paragraph for the documentation: why this flow matters.
    public var summary: String?
    public var source: SourceReference
    /// The requirement ids (in the requirement catalogue) the flow's checks enforce; a step may
    /// cite more specific ones of its own (``Step/requirements``).
    public var requirements: [String]
    public var provider: Provider
    public var fixture: any ProviderFixture
    /// Where the seed is silent, what this spec decided (written so reports document it).
    public var decisions: [String]
    public var steps: [Step]
    /// Where the spec's top-level object starts.
    public var location: SourceLocation
    /// What the loader warned about in this otherwise valid spec (severity `warning`).
    public var warnings: [SpecDiagnostic] = []
    /// The families this flow opts out of, each with its reason (`"notDerived"`).
    public var notDerived: [DerivedOptOut] = []
    /// For a derived variant: the flow, family and rule it comes from; nil for a written flow.
    public var derivation: Derivation?

    /// Every requirement id the flow cites: its own, then each step's that it does not already
    /// name, in step order.
    public var allRequirements: [String] {
        var ids = requirements
        for step in steps { for id in step.requirements where !ids.contains(id) { ids.append(id) } }
        return ids
    }

    public init(
        file: String, id: String, title: String, summary: String? = nil, source: SourceReference,
        provider: Provider, fixture: any ProviderFixture, decisions: [String] = [], steps: [Step],
        location: SourceLocation = SourceLocation(line: 1, column: 1), requirements: [String] = []
    ) {
        self.requirements = requirements
        self.file = file
        self.id = id
        self.title = title
        self.summary = summary
        self.source = source
        self.provider = provider
        self.fixture = fixture
        self.decisions = decisions
        self.steps = steps
        self.location = location
    }
}

/// The seed file and the passage of it that a spec encodes.
public struct SourceReference: Sendable, Equatable {
    /// The seed file the flow encodes, or the team's own document (a path or a URL) it cites.
    public var seed: String
    public var passage: String

    public init(seed: String, passage: String) {
        self.seed = seed
        self.passage = passage
    }
}
