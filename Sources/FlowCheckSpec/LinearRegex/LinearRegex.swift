/// A regular expression matched in linear time: FlowCheck's own engine for spec `regex`
/// matchers, `--filter` and the loader's fixed patterns.
///
/// The dialect is the common subset of NSRegularExpression (ICU) that specs use, with the same
/// verdicts on the values specs see; see docs/spec-format.md, "Regular expressions". It works on Unicode
/// scalars (as ICU works on code points), searches anywhere in the value like `firstMatch`,
/// and refuses at compile time what would need backtracking (backreferences, lookaround,
/// possessive and atomic forms) or would make the program large (counts above 1000).
///
/// Every search is bounded twice: structurally, by (scalars + 1) × instructions steps, and by
/// a step budget; a search over the budget gives up with ``RegexSearch/gaveUp(steps:)``
/// instead of a verdict.
public struct LinearRegex: Sendable {
    /// Steps one search may take before it gives up: 10 million, room for a 100,000-scalar
    /// value against a 100-instruction program (the committed specs' patterns compile to at
    /// most a few dozen). About 0.3 s in a release build and 2.5 s in a debug build here, so a
    /// search that gives up does so well inside a flow's 30 s watchdog, even several at once;
    /// a cancelled task (a flow that timed out, an interrupted run) stops its search too.
    public static let defaultStepBudget = 10_000_000

    public let pattern: String
    /// Shapes that are harmless here but exponential in a backtracking engine (nested
    /// quantifiers), for `validate` to warn about. Found at compile time and the parse tree
    /// dropped: the static patterns that kept their indirect nodes were reported as leaked by
    /// the spec fuzzer's LeakSanitizer (a fixed 2.4 KB, not growing: apparently it does not
    /// recognise the pointers as Swift stores them in enum payloads).
    public let portabilityWarnings: [RegexWarning]
    let program: RegexProgram

    /// Compiles `pattern`.
    /// - Throws: ``RegexSyntaxError`` for a mistake or an unsupported construct, with its place.
    public init(_ pattern: String) throws(RegexSyntaxError) {
        var parser = RegexParser(pattern)
        let tree = try parser.parse()
        self.pattern = pattern
        self.portabilityWarnings = RegexLint.warnings(in: tree)
        self.program = try RegexCompiler.compile(tree, caseInsensitive: parser.caseInsensitive)
    }

    /// Whether the pattern matches somewhere in `text`, or that the search gave up.
    public func search(_ text: String, stepBudget: Int = LinearRegex.defaultStepBudget) -> RegexSearch {
        var machine = RegexMachine(program: program, scalars: Array(text.unicodeScalars), budget: stepBudget)
        return machine.run()
    }

    /// The number of instructions the pattern compiled to (what a search's cost scales with).
    public var programSize: Int { program.instructions.count }
}

/// The answer of one search.
public enum RegexSearch: Sendable, Equatable {
    case found
    case notFound
    /// The search passed its step budget: no verdict.
    case gaveUp(steps: Int)
}
