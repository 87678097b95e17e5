import Foundation

/// Renders JSON paths in the `$.steps[0].expect` form used in every spec diagnostic.
public enum JSONPath {
    /// A path component for an object key.
    public static func key(_ key: String) -> String {
        // ASCII by hand: CharacterSet lookups made this the loader's hottest line on Linux.
        func isWordScalar(_ s: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "_" || s == "$"
        }
        let isIdentifier = !key.isEmpty && key.unicodeScalars.allSatisfy(isWordScalar)
            && !(key.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? false)
        if isIdentifier { return "." + key }
        // Escaped and cut as diagnostics quote spec text: a line feed in a key stays inside it.
        return "[" + SpecText.quoted(key) + "]"
    }

    /// A path component for an array index.
    public static func index(_ index: Int) -> String { "[\(index)]" }

    /// The whole path from its components.
    public static func render(_ components: [String]) -> String { "$" + components.joined() }
}
