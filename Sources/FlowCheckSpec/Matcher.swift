import Foundation

/// A check on one value (one ``MatcherKind``); optionally capturing the actual value into a
/// variable for later steps.
public struct Matcher: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case equals(Template)
        case notEquals(Template)
        case present
        case absent
        case regex(String)
        case contains(Template)
        /// The value is a PKCE verifier whose S256 challenge (RFC 7636 §4.2) equals the template.
        case pkceS256(Template)
    }

    public var kind: Kind
    /// The variable that receives the actual value when the check passes.
    public var capture: String?

    public init(_ kind: Kind, capture: String? = nil) {
        self.kind = kind
        self.capture = capture
    }

    /// The verdict on an actual value (nil: the field is not there). `s256` computes a PKCE
    /// challenge from a verifier (the runner passes the fake server's own SHA-256).
    public func matches(_ actual: String?, variables: [String: String], s256: (String) -> String = { _ in "" }) -> Bool {
        switch kind {
        case .pkceS256(let template): return actual.map { s256($0) == template.render(variables) } ?? false
        case .present: return actual != nil
        case .absent: return actual == nil
        case .equals(let template): return actual == template.render(variables)
        case .notEquals(let template): return actual != template.render(variables)
        case .contains(let template): return actual.map { $0.contains(template.render(variables)) } ?? false
        case .regex(let pattern):
            guard let actual, let regex = try? NSRegularExpression(pattern: pattern) else { return false }
            return regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual)) != nil
        }
    }

    /// What the matcher wants, in words for reports: `equals "x"`, `is present`.
    public var expectation: String {
        switch kind {
        case .equals(let t): return "equals \(t.quoted)"
        case .notEquals(let t): return "differs from \(t.quoted)"
        case .present: return "is present"
        case .absent: return "is absent"
        case .regex(let p): return "matches /\(p)/"
        case .contains(let t): return "contains \(t.quoted)"
        case .pkceS256(let t): return "is the PKCE verifier of the S256 challenge \(t.quoted)"
        }
    }

    /// The variables this matcher reads.
    public var variables: [String] {
        switch kind {
        case .equals(let t), .notEquals(let t), .contains(let t), .pkceS256(let t): return t.variables
        // A regex is not a template: `${` in a pattern is the pattern's own text.
        case .present, .absent, .regex: return []
        }
    }
}
