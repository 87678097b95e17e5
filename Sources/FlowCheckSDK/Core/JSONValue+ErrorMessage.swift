extension JSONValue {
    /// The human-readable error text in an error body, if there is one.
    ///
    /// Looks where the providers put it: RFC 6749 §5.2 `error_description` then `error`; Moltin's
    /// `{"status":false,"error":"..."}` or `"errors"` (the tutorial's `TokenInvalidResponseKeys`,
    /// seed 003 "Token Storage"), which may be a string, a list, or a field-to-messages map; and a
    /// generic `message`.
    var errorMessage: String? {
        guard case .object(let members) = self else { return nil }
        if let text = members["error_description"]?.stringValue, !text.isEmpty {
            return text
        }
        if let text = members["error"]?.stringValue, !text.isEmpty {
            return text
        }
        if let errors = members["errors"], let text = errors.flattenedText, !text.isEmpty {
            return text
        }
        if let text = members["message"]?.stringValue, !text.isEmpty {
            return text
        }
        return nil
    }

    /// Strings found in a value, joined with "; ". Objects contribute their `detail`, `message` or
    /// `title` when present, otherwise all their members in key order.
    private var flattenedText: String? {
        switch self {
        case .string(let text):
            return text
        case .array(let elements):
            let parts = elements.compactMap(\.flattenedText).filter { !$0.isEmpty }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        case .object(let members):
            for key in ["detail", "message", "title"] {
                if let text = members[key]?.stringValue, !text.isEmpty {
                    return text
                }
            }
            let parts = members.keys.sorted().compactMap { members[$0]?.flattenedText }.filter { !$0.isEmpty }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        default:
            return nil
        }
    }
}
