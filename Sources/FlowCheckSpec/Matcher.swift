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

    /// The verdict on an actual value (nil: the field is not there), or no verdict: a regex
    /// search that passed `regexStepBudget` steps gives up rather than run on (see
    /// ``LinearRegex``). `s256` computes a PKCE challenge from a verifier (the runner passes the
    /// fake server's own SHA-256). `ignoringCase`: the value's grammar makes case meaningless (a
    /// URL's scheme and host, a token type), so `equals`, `notEquals`, `contains` and `regex`
    /// compare without case.
    public func evaluate(
        _ actual: String?, variables: [String: String], s256: (String) -> String = { _ in "" },
        regexStepBudget: Int = LinearRegex.defaultStepBudget, ignoringCase: Bool = false
    ) -> MatchOutcome {
        func folded(_ text: String) -> String { ignoringCase ? text.lowercased() : text }
        let actualFolded = actual.map(folded)
        switch kind {
        case .pkceS256(let template): return MatchOutcome(actual.map { s256($0) == template.render(variables) } ?? false)
        case .present: return MatchOutcome(actual != nil)
        case .absent: return MatchOutcome(actual == nil)
        case .equals(let template): return MatchOutcome(actualFolded == folded(template.render(variables)))
        case .notEquals(let template): return MatchOutcome(actualFolded != folded(template.render(variables)))
        case .contains(let template): return MatchOutcome(actualFolded.map { $0.contains(folded(template.render(variables))) } ?? false)
        case .regex(let pattern):
            guard let actual else { return .notMatched }
            let regex: LinearRegex
            do {
                regex = try LinearRegex(ignoringCase && !pattern.hasPrefix("(?i)") ? "(?i)" + pattern : pattern)
            } catch {
                // Only a hand-made matcher gets here: the loader refuses such a pattern.
                return .gaveUp(reason: "the pattern does not compile: \(error.message)")
            }
            switch regex.search(actual, stepBudget: regexStepBudget) {
            case .found: return .matched
            case .notFound: return .notMatched
            case .gaveUp(let steps):
                return .gaveUp(reason: "the search gave up after \(steps) steps (its budget) on a \(actual.unicodeScalars.count)-character value")
            }
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
