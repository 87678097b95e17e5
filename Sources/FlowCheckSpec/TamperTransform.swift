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

    /// What the transform does, as reports say it.
    public var summary: String {
        switch self {
        case .flipCase: return "with the case of every letter swapped"
        case .dropLast: return "without its last character"
        case .append: return "with a suffix appended"
        case .empty: return "present but empty"
        }
    }

    /// Whether it takes a `value` (the suffix).
    public var takesValue: Bool {
        switch self {
        case .append: return true
        case .flipCase, .dropLast, .empty: return false
        }
    }
}

/// One transform as a spec wrote it: `{"transform": "append", "value": "-x"}`.
public enum TamperTransform: Sendable, Equatable {
    case flipCase
    case dropLast
    case append(Template)
    case empty

    public var kind: TamperTransformKind {
        switch self {
        case .flipCase: return .flipCase
        case .dropLast: return .dropLast
        case .append: return .append
        case .empty: return .empty
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
