/// Why a pattern was refused: a mistake in it, or a construct FlowCheck's linear-time engine
/// does not have. `offset` counts Unicode scalars from 0; messages say "character offset+1".
public struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A construct ICU and others have and FlowCheck refuses, so every match stays linear.
    public enum Unsupported: Sendable, Equatable {
        case backreference(String)
        case lookahead, negativeLookahead, lookbehind, negativeLookbehind
        case atomicGroup
        case possessiveQuantifier
        case inlineFlags(String)
        case scopedFlags
        case comment
        case conditional
        case unicodeProperty
        case quoting
        case namedCharacter
        case controlEscape
        case octalEscape
        /// `\G \X \R \h \H \v \V`.
        case otherEscape(Character)
        case nestedClass
        case setOperation(String)
        case countTooLarge(Int)
        case programTooLarge
    }

    /// A mistake: the pattern is not a regular expression in any dialect FlowCheck reads.
    public enum Mistake: Sendable, Equatable {
        case unclosedGroup
        case unmatchedCloseParenthesis
        case unclosedClass
        case emptyClass
        case nothingToRepeat(Character)
        case repeatedQuantifier(Character)
        case badInterval
        case reversedInterval(Int, Int)
        case reversedRange(Unicode.Scalar, Unicode.Scalar)
        case classEscapeInRange
        case trailingBackslash
        case badHexEscape
        case unknownEscape(Character)
        case unmatchedCloseBrace
        case unknownGroup
        case badGroupName
        case nestedTooDeep
    }

    public enum Problem: Sendable, Equatable {
        case mistake(Mistake)
        case unsupported(Unsupported)
    }

    public let problem: Problem
    /// Where, in Unicode scalars from the start of the pattern (0-based).
    public let offset: Int

    init(_ mistake: Mistake, at offset: Int) {
        self.problem = .mistake(mistake)
        self.offset = offset
    }

    init(_ unsupported: Unsupported, at offset: Int) {
        self.problem = .unsupported(unsupported)
        self.offset = offset
    }

    public var isUnsupported: Bool {
        switch problem {
        case .mistake: return false
        case .unsupported: return true
        }
    }

    /// What is wrong and where, e.g. `'(' at character 1 is never closed`.
    public var message: String { RegexProblemText.message(problem, at: offset + 1) }

    /// How to put it right.
    public var fix: String { RegexProblemText.fix(problem) }

    /// `invalid regular expression /(a/: '(' at character 1 is never closed`, or
    /// `unsupported regular expression /(a)\1/: ...`.
    public func title(pattern: String) -> String {
        "\(isUnsupported ? "unsupported" : "invalid") regular expression /\(pattern)/: \(message)"
    }

    public var description: String { "\(message); \(fix)" }
}
