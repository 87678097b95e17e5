import Foundation

/// Renders JSON paths in the `$.steps[0].expect` form used in every spec diagnostic.
public enum JSONPath {
    /// A path component for an object key.
    public static func key(_ key: String) -> String {
        let isIdentifier = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "$") }
            && !(key.unicodeScalars.first.map { CharacterSet.decimalDigits.contains($0) } ?? false)
        if isIdentifier { return "." + key }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "[\"\(escaped)\"]"
    }

    /// A path component for an array index.
    public static func index(_ index: Int) -> String { "[\(index)]" }

    /// The whole path from its components.
    public static func render(_ components: [String]) -> String { "$" + components.joined() }
}
