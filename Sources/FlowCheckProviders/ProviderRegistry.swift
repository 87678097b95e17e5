import FlowCheckSpec

/// The one list of providers. Adding a provider adds one line here (and its folder).
public enum ProviderRegistry {
    /// Every provider, in the order reports, the schema and `flowcheck serve` list them.
    public static let kits: [any ProviderKit] = [
        MoltinKit(),
        CloverKit(),
        CleverKit(),
        BraintreeKit(),
    ]

    /// The spec-side view of ``kits``, for loading specs and generating the schema.
    public static let catalog = ProviderCatalog(kits.map { $0 as any ProviderDescription })

    /// The kit registered under `id`.
    public static func kit(for id: Provider) -> (any ProviderKit)? {
        kits.first { $0.id == id }
    }

    /// `{"moltin": {...}, "clover": {...}, ...}`: every kit's default `flowcheck serve` fixture.
    public static var defaultServeFixtures: String {
        "{\n" + kits.map { "  \"\($0.id.rawValue)\": \($0.defaultServeFixture)" }.joined(separator: ",\n") + "\n}\n"
    }
}

extension SpecLoader {
    /// A loader that knows every registered provider and the requirement catalogue.
    public static let standard = SpecLoader(providers: ProviderRegistry.catalog, requirements: RequirementCatalogue.ids)

    /// A loader that knows `kits` (and the requirement catalogue): give the runner the same list
    /// (`FlowRunner.Options.providers`).
    public init(kits: [any ProviderKit]) {
        self.init(providers: ProviderCatalog(kits.map { $0 as any ProviderDescription }), requirements: RequirementCatalogue.ids)
    }
}

extension Array where Element == any ProviderKit {
    /// The kit registered under `id`.
    public func kit(for id: Provider) -> (any ProviderKit)? {
        first { $0.id == id }
    }
}
