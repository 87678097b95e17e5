/// What must hold after a step's action: the checks its `expect` object wrote.
public struct Expectation: Sendable, Equatable {
    /// How an SDK call ended.
    public enum Outcome: String, Sendable, Equatable, CaseIterable {
        case ok, error
        /// Success or an error value, whichever (never a crash): for a step whose other checks
        /// say what matters whatever the call decided (a derived variant's injected token that
        /// must never be stored, whether the SDK refused the redirect or went on without it).
        case any
    }

    /// At most one check per ``CheckKind``, in ``CheckKind`` order.
    public var checks: [Check]

    /// An expectation of these checks; none: only the implied outcome of a call.
    public init(_ checks: [Check] = []) {
        self.checks = checks
    }

    /// The outcome this expectation demands, after defaults: an `error` check demands an
    /// error (the loader refuses it beside `"outcome": "ok"`), unless `outcome` is `any`: then
    /// the call may end either way, and `error` says what a failure must be, `result` what a
    /// success must give. Without either the call must succeed, so an unexpected error never
    /// passes silently.
    public var effectiveOutcome: Outcome {
        var written: Outcome?
        var error = false
        for check in checks {
            if case .error = check { error = true }
            if case .outcome(let outcome) = check { written = outcome }
        }
        if written == .any { return .any }
        return error ? .error : written ?? .ok
    }

    /// The error kind the `error` check names, if any (for messages about a call that succeeded).
    public var expectedErrorKind: String? {
        for case .error(let errorChecks) in checks {
            for case .kind(let kind) in errorChecks { return kind }
        }
        return nil
    }

    /// The checks to run and narrate, in ``CheckKind`` order whatever order they were built
    /// in. After an SDK call the outcome is always among them, as ``effectiveOutcome``:
    /// written or not, the verdict on the call is checked.
    public static func checks(of expectation: Expectation?, afterCall: Bool) -> [Check] {
        var checks = expectation?.checks ?? []
        if afterCall {
            checks = [.outcome(expectation?.effectiveOutcome ?? .ok)] + checks.filter { $0.kind != .outcome }
        }
        let rank = Dictionary(uniqueKeysWithValues: CheckKind.allCases.enumerated().map { ($1, $0) })
        // Stable: two checks of one kind (only a hand-made expectation has them) keep their order.
        return checks.enumerated().sorted { (rank[$0.element.kind]!, $0.offset) < (rank[$1.element.kind]!, $1.offset) }.map(\.element)
    }
}

/// A matcher on a named field.
public struct FieldMatcher: Sendable, Equatable {
    public var field: String
    public var matcher: Matcher

    public init(field: String, matcher: Matcher) {
        self.field = field
        self.matcher = matcher
    }
}
