/// A fixed pattern the loader checks text against, compiled once with FlowCheck's own
/// linear-time engine (``LinearRegex``), so no id, method, label or URL can make loading slow.
struct SpecPattern: Sendable {
    private let regex: LinearRegex

    init(_ pattern: String) {
        do {
            regex = try LinearRegex(pattern)
        } catch {
            // The patterns are this file's own constants: a refused one is a programming error
            // that every loader test would hit at once.
            preconditionFailure("SpecPattern \(pattern): \(error)")
        }
    }

    /// Whether `text` matches (the patterns anchor themselves with `\A` and `\z`). A search
    /// that gives up (not possible for these small patterns within the default budget) is no.
    func matches(_ text: String) -> Bool {
        switch regex.search(text) {
        case .found: return true
        case .notFound, .gaveUp: return false
        }
    }

    static let catalogueID = SpecPattern("\\A[A-Z][A-Z0-9]*(-[A-Z0-9]+)+\\z")
    static let seedFile = SpecPattern("\\A[0-9]{3}_[0-9a-f]{16}\\.txt\\z")
    static let method = SpecPattern("\\A[A-Z]+\\z")
    static let variableName = SpecPattern("\\A[A-Za-z_][A-Za-z0-9_]*\\z")
    static let duration = SpecPattern("\\A([0-9]+h)?([0-9]+m)?([0-9]+s)?\\z")
    /// `SEED-003-refresh`, `RFC7636-4.6`, `RFC6749-6`.
    static let requirementID = SpecPattern("\\A(SEED-[0-9]{3}-[a-z0-9]+(-[a-z0-9]+)*|RFC[0-9]{4}-[0-9]+(\\.[0-9]+)*)\\z")
}
