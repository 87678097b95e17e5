import FlowCheckSpec

/// A failed check as data, beside its display text (``CheckFailure/expected`` and
/// ``CheckFailure/actual`` are words for a reader; these are for a program reading the JSON
/// report). Every string in it is redacted like the display text.
public struct FailureValues: Sendable, Equatable {
    /// What failed: one of a step's checks, or an invariant judged after the step.
    public enum Source: Sendable, Equatable {
        case check(CheckKind)
        case invariant(String)
    }

    /// One side of the comparison.
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        /// The value was not there (a missing field, no page).
        case absent
        /// A sensitive field's value: never shown, only its length.
        case masked(characters: Int)
    }

    public var source: Source
    /// The matcher that did not hold; nil for a check that is not a matcher's (a status, a count).
    public var matcher: MatcherKind?
    /// What the spec wanted (a matcher's rendered template or pattern); nil when it is not one value.
    public var expected: Value?
    /// What was there; nil when it is not one value.
    public var actual: Value?

    public init(source: Source, matcher: MatcherKind? = nil, expected: Value? = nil, actual: Value? = nil) {
        self.source = source
        self.matcher = matcher
        self.expected = expected
        self.actual = actual
    }

    /// The same values with every string passed through `scrub` (the redactor).
    func scrubbed(_ scrub: (String) -> String) -> FailureValues {
        func clean(_ value: Value?) -> Value? {
            switch value {
            case .string(let text)?: return .string(scrub(text))
            case .integer?, .absent?, .masked?, nil: return value
            }
        }
        var copy = self
        copy.expected = clean(expected)
        copy.actual = clean(actual)
        if case .invariant(let id) = source { copy.source = .invariant(scrub(id)) }
        return copy
    }
}
