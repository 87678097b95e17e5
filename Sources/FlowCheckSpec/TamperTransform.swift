/// The closed set of ways a `tamper` step may rewrite a parameter of the captured redirect from
/// its own value, so a spec can say "the captured state with its case changed" without knowing
/// the state. The decoder, the scripted browser, the narrative and the schema switch over it
/// with no `default:`.
public enum TamperTransformKind: String, CaseIterable, Sendable {
    /// Every letter's case swapped (`aB3` → `Ab3`): catches a case-insensitive comparison.
    case flipCase
    /// The last character removed: catches a comparison by the received value's length
    /// (`strncmp` with the shorter length, `sent.hasPrefix(received)`).
    case dropLast
    /// A suffix appended: catches a prefix comparison (`received.hasPrefix(sent)`).
    case append
    /// The parameter kept, its value made empty: catches "empty means no state".
    case empty
    /// A prefix put before the value: catches a suffix comparison (a host look-alike
    /// `evilpos.example.com` taken for `pos.example.com`).
    case prepend
    /// The parameter repeated, the given value first and the captured one after: catches a
    /// client that checks one occurrence and uses the other (RFC 6749 §3.1: a parameter is
    /// never sent twice).
    case repeatFirst
    /// The parameter repeated, the captured value first and the given one after.
    case repeatLast
    /// Text appended as written, not encoded (`%26`, `%3D`, `%23`): catches a client that
    /// decodes twice or splits the query after decoding it.
    case inject
    /// The first unreserved character of the value written percent-encoded (`a` as `%61`): the
    /// same value by RFC 3986 §2.3, so a client must read it as the original.
    case percentEncode
    /// The first unreserved character written as `%25` and its hex (`a` as `%2561`): decoded
    /// once, as RFC 3986 asks, another value (`%61`); decoded twice, the original. Catches a
    /// client that decodes twice.
    case doubleEncode

    /// What the transform does, as reports say it.
    public var summary: String {
        switch self {
        case .flipCase: return "with the case of every letter swapped"
        case .dropLast: return "without its last character"
        case .append: return "with a suffix appended"
        case .empty: return "present but empty"
        case .prepend: return "with a prefix put before it"
        case .repeatFirst: return "repeated, another value first"
        case .repeatLast: return "repeated, another value last"
        case .inject: return "with encoded text appended as written"
        case .percentEncode: return "with its first unreserved character percent-encoded (the same value)"
        case .doubleEncode: return "with its first unreserved character percent-encoded twice (another value, unless decoded twice)"
        }
    }

    /// What its `value` is, for messages; nil for a kind that takes none.
    public var valueRole: String? {
        switch self {
        case .append: return "the suffix"
        case .prepend: return "the prefix"
        case .repeatFirst, .repeatLast: return "the other value"
        case .inject: return "the text, written as given"
        case .flipCase, .dropLast, .empty, .percentEncode, .doubleEncode: return nil
        }
    }

    /// Whether it takes a `value` (the suffix, prefix, other value or injected text).
    public var takesValue: Bool {
        switch self {
        case .append, .prepend, .repeatFirst, .repeatLast, .inject: return true
        case .flipCase, .dropLast, .empty, .percentEncode, .doubleEncode: return false
        }
    }
}

/// One transform as a spec wrote it: `{"transform": "append", "value": "-x"}`.
public enum TamperTransform: Sendable, Equatable {
    case flipCase
    case dropLast
    case append(Template)
    case empty
    case prepend(Template)
    case repeatFirst(Template)
    case repeatLast(Template)
    case inject(Template)
    case percentEncode
    case doubleEncode

    public var kind: TamperTransformKind {
        switch self {
        case .flipCase: return .flipCase
        case .dropLast: return .dropLast
        case .append: return .append
        case .empty: return .empty
        case .prepend: return .prepend
        case .repeatFirst: return .repeatFirst
        case .repeatLast: return .repeatLast
        case .inject: return .inject
        case .percentEncode: return .percentEncode
        case .doubleEncode: return .doubleEncode
        }
    }

    /// The value it takes, for the kinds that take one.
    public var value: Template? {
        switch self {
        case .append(let value), .prepend(let value), .repeatFirst(let value), .repeatLast(let value), .inject(let value): return value
        case .flipCase, .dropLast, .empty, .percentEncode, .doubleEncode: return nil
        }
    }

    /// The transform of `kind` with `value` (ignored by the kinds that take none; nil when a
    /// value-taking kind has none).
    public static func make(_ kind: TamperTransformKind, value: Template?) -> TamperTransform? {
        // No default: a new kind must be built here.
        switch kind {
        case .flipCase: return .flipCase
        case .dropLast: return .dropLast
        case .empty: return .empty
        case .percentEncode: return .percentEncode
        case .doubleEncode: return .doubleEncode
        case .append: return value.map { .append($0) }
        case .prepend: return value.map { .prepend($0) }
        case .repeatFirst: return value.map { .repeatFirst($0) }
        case .repeatLast: return value.map { .repeatLast($0) }
        case .inject: return value.map { .inject($0) }
        }
    }

    /// The keys a transform object may have.
    public static let keys = ["transform", "value"]
}

/// A transform on one named parameter of the captured redirect.
public struct ParameterTransform: Sendable, Equatable {
    public var parameter: String
    public var transform: TamperTransform
    public var location: SourceLocation

    public init(parameter: String, transform: TamperTransform, location: SourceLocation) {
        self.parameter = parameter
        self.transform = transform
        self.location = location
    }
}
