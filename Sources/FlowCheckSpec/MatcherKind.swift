/// The keys of a matcher object, one per kind of check on a value. `capture` is not among
/// them: it is a modifier any passing matcher (but `absent`) may carry.
public enum MatcherKind: String, SpecKeySet {
    /// The value is (or is not) exactly the template, rendered.
    case equals, notEquals
    /// The value is there (or not); these take `true` only.
    case present, absent
    /// The value matches a regular expression (not a template).
    case regex
    /// The value contains the template, rendered.
    case contains
    /// The value is a PKCE verifier whose S256 challenge is the template, rendered.
    case pkceS256
}

extension Matcher {
    /// The modifier key that stores a passing value in a variable.
    public static let captureKey = "capture"

    /// Every key a matcher object accepts: the kinds, then the modifier.
    public static var keys: [String] { MatcherKind.keys + [captureKey] }
}

extension Matcher.Kind {
    /// The key this kind is written under.
    public var key: MatcherKind {
        switch self {
        case .equals: return .equals
        case .notEquals: return .notEquals
        case .present: return .present
        case .absent: return .absent
        case .regex: return .regex
        case .contains: return .contains
        case .pkceS256: return .pkceS256
        }
    }
}
