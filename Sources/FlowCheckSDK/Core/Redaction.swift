import Foundation

/// Keeps secrets out of error messages.
///
/// Servers sometimes echo what they were sent ("invalid client_secret 'abc'"), so any text taken
/// from a response body is sanitised and scrubbed of the client's own secrets before it becomes
/// an `OAuthError.message`.
enum Redaction {
    /// What replaces a secret in text.
    static let placeholder = "<redacted>"

    /// Longest server message kept, in characters; longer ones are cut with an ellipsis.
    static let maximumMessageLength = 300

    /// Returns `text` with every occurrence of every non-empty secret, raw or form-encoded (a
    /// server may echo the request body), replaced by the placeholder. Longer secrets go first so
    /// a secret containing another is removed whole.
    static func scrub(_ text: String, secrets: [String]) -> String {
        let variants = secrets.filter { !$0.isEmpty }.flatMap { [$0, FormURLEncoding.encodeComponent($0)] }
        var result = text
        for secret in Set(variants).sorted(by: { ($0.count, $0) > ($1.count, $1) }) {
            result = result.replacingAll(secret, with: placeholder)
        }
        return result
    }

    /// Makes server-provided text safe to show: secrets are scrubbed, control characters become
    /// spaces, whitespace is trimmed, and the length is capped (after scrubbing, so the cut cannot
    /// leave half a secret behind).
    static func serverMessage(_ text: String, secrets: [String]) -> String {
        let scrubbed = scrub(text, secrets: secrets)
        let printable = String(String.UnicodeScalarView(scrubbed.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? " " : scalar
        }))
        var trimmed = printable.trimmingSpaces()
        if trimmed.count > maximumMessageLength {
            trimmed = String(trimmed.prefix(maximumMessageLength)) + "…"
        }
        return trimmed
    }
}

extension String {
    /// Replaces every non-overlapping occurrence of `target` (non-empty), left to right.
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }

    fileprivate func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
