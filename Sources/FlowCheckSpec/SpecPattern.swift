import Foundation

/// A fixed pattern the loader checks text against, compiled once: compiling an
/// `NSRegularExpression` for every id, method, label and URL made loading the suite several
/// times slower on Linux.
struct SpecPattern: @unchecked Sendable {
    // NSRegularExpression is immutable once made and safe to share between threads.
    private let regex: NSRegularExpression?
    private let pattern: String

    init(_ pattern: String) {
        self.pattern = pattern
        self.regex = try? NSRegularExpression(pattern: pattern)
    }

    /// Whether `text` matches (the patterns anchor themselves with `\A` and `\z`).
    func matches(_ text: String) -> Bool {
        guard let regex else { return text.range(of: pattern, options: .regularExpression) != nil }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static let catalogueID = SpecPattern("\\A[A-Z][A-Z0-9]*(-[A-Z0-9]+)+\\z")
    static let seedFile = SpecPattern("\\A[0-9]{3}_[0-9a-f]{16}\\.txt\\z")
    static let method = SpecPattern("\\A[A-Z]+\\z")
    static let variableName = SpecPattern("\\A[A-Za-z_][A-Za-z0-9_]*\\z")
    static let duration = SpecPattern("\\A([0-9]+h)?([0-9]+m)?([0-9]+s)?\\z")
    /// `SEED-003-refresh`, `RFC7636-4.6`, `RFC6749-6`.
    static let requirementID = SpecPattern("\\A(SEED-[0-9]{3}-[a-z0-9]+(-[a-z0-9]+)*|RFC[0-9]{4}-[0-9]+(\\.[0-9]+)*)\\z")
}
