/// What a ``Matcher`` says about a value: a verdict, or none because the check could not be
/// finished (a regex search over its step budget). "Gave up" is never a verdict on the SDK.
public enum MatchOutcome: Sendable, Equatable {
    case matched
    case notMatched
    /// No verdict, with why (for the failure text).
    case gaveUp(reason: String)

    init(_ verdict: Bool) {
        self = verdict ? .matched : .notMatched
    }
}
