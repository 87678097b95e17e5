/// The words for each ``RegexSyntaxError``: one place, so the table test pins them all.
enum RegexProblemText {
    static let linear = "FlowCheck matches regexes in linear time and has no"

    static func message(_ problem: RegexSyntaxError.Problem, at place: Int) -> String {
        switch problem {
        case .mistake(let mistake):
            switch mistake {
            case .unclosedGroup: return "'(' at character \(place) is never closed"
            case .unmatchedCloseParenthesis: return "')' at character \(place) closes no group"
            case .unclosedClass: return "'[' at character \(place) is never closed"
            case .emptyClass: return "the class at character \(place) is empty or starts with ']'"
            case .nothingToRepeat(let c): return "'\(c)' at character \(place) has nothing to repeat"
            case .repeatedQuantifier(let c): return "'\(c)' at character \(place) follows another quantifier"
            case .badInterval: return "'{' at character \(place) does not start a count {m}, {m,} or {m,n}"
            case .reversedInterval(let m, let n): return "the count {\(m),\(n)} at character \(place) has its larger number first"
            case .reversedRange(let a, let b): return "the range \(a.escapedForDiagnostic)-\(b.escapedForDiagnostic) at character \(place) runs backwards"
            case .classEscapeInRange: return "the range at character \(place) starts or ends with a class escape"
            case .trailingBackslash: return "the pattern ends with a lone backslash"
            case .badHexEscape: return "the escape at character \(place) needs hexadecimal digits"
            case .unknownEscape(let c): return "unknown escape \\\(c) at character \(place)"
            case .unmatchedCloseBrace: return "'}' at character \(place) closes no count"
            case .unknownGroup: return "'(?' at character \(place) starts no known group"
            case .badGroupName: return "the group name at character \(place) is not letters and digits closed by '>'"
            case .nestedTooDeep: return "groups nest more than \(RegexParser.maximumDepth) deep at character \(place)"
            }
        case .unsupported(let construct):
            let what: String
            switch construct {
            case .backreference(let reference): what = "backreference \(reference)"
            case .lookahead: what = "lookahead (?="
            case .negativeLookahead: what = "negative lookahead (?!"
            case .lookbehind: what = "lookbehind (?<="
            case .negativeLookbehind: what = "negative lookbehind (?<!"
            case .atomicGroup: what = "atomic group (?>"
            case .possessiveQuantifier: what = "possessive quantifier"
            case .inlineFlags(let flags): what = "inline flags (?\(flags))"
            case .scopedFlags: what = "scoped flags (?flags:"
            case .comment: what = "comment (?#"
            case .conditional: what = "conditional (?("
            case .unicodeProperty: what = "Unicode property class"
            case .quoting: what = "quoting \\Q...\\E"
            case .namedCharacter: what = "named character \\N{...}"
            case .controlEscape: what = "control escape \\c"
            case .octalEscape: what = "octal escape \\0"
            case .otherEscape(let c): what = "escape \\\(c)"
            case .nestedClass: what = "nested class '[' inside a class"
            case .setOperation(let op): what = "class set operation \(op)"
            case .countTooLarge(let n): what = "count \(n) (above \(RegexParser.maximumCount))"
            case .programTooLarge: return "the pattern compiles to more than \(RegexCompiler.maximumProgramSize) instructions"
            }
            return "\(what) at character \(place)"
        }
    }

    static func fix(_ problem: RegexSyntaxError.Problem) -> String {
        switch problem {
        case .mistake(let mistake):
            switch mistake {
            case .unclosedGroup: return "add the missing ')', or escape a literal parenthesis as \\("
            case .unmatchedCloseParenthesis: return "remove it, or escape a literal parenthesis as \\)"
            case .unclosedClass: return "add the missing ']', or escape a literal bracket as \\["
            case .emptyClass: return "escape a literal bracket inside a class as \\]"
            case .nothingToRepeat(let c): return "put it after a character, class or group, or escape it as \\\(c)"
            case .repeatedQuantifier(let c): return "remove one quantifier, or escape a literal \(c) as \\\(c)"
            case .badInterval: return "write a count as {2}, {2,} or {2,5}, or escape a literal brace as \\{"
            case .reversedInterval(let m, let n): return "write {\(n),\(m)}"
            case .reversedRange(let a, let b): return "write \(b.escapedForDiagnostic)-\(a.escapedForDiagnostic)"
            case .classEscapeInRange: return "put '-' first or last in the class, or escape it as \\-"
            case .trailingBackslash: return "escape a literal backslash as \\\\ (doubled again in JSON: \"\\\\\\\\\")"
            case .badHexEscape: return "write \\u0041, \\x41 or \\x{1F600}"
            case .unknownEscape: return "escape only punctuation; a letter or digit stands for itself without the backslash"
            case .unmatchedCloseBrace: return "escape a literal brace as \\}"
            case .unknownGroup: return "use ( ) or (?: ) for a group"
            case .badGroupName: return "write a named group as (?<name>...), or use (?: )"
            case .nestedTooDeep: return "flatten the groups"
            }
        case .unsupported(let construct):
            switch construct {
            case .backreference: return "\(linear) backreferences; repeat the group's pattern instead, or capture the value with \"capture\" and compare it with equals \"${name}\""
            case .lookahead, .negativeLookahead, .lookbehind, .negativeLookbehind: return "\(linear) lookaround; write what it looks for into the pattern itself, or check it with another matcher"
            case .atomicGroup: return "\(linear) atomic groups; use a plain group (?: ) and check the verdict"
            case .possessiveQuantifier: return "\(linear) possessive quantifiers; drop the '+' after the quantifier and check the verdict"
            case .inlineFlags, .scopedFlags: return "\(linear) inline flags but a leading (?i); put (?i) first for a case-insensitive match, or list both cases ([Aa])"
            case .comment: return "\(linear) comments in patterns; move the words to the step's \"note\""
            case .conditional: return "\(linear) conditionals; write the alternatives with |"
            case .unicodeProperty: return "\(linear) Unicode property classes; list the characters in a class such as [A-Za-z]"
            case .quoting: return "\(linear) \\Q...\\E quoting; escape each metacharacter with a backslash"
            case .namedCharacter, .controlEscape, .octalEscape: return "\(linear) such escape; write the character as \\uXXXX or \\xHH"
            case .otherEscape: return "\(linear) such escape; write a character class such as [ \\t] instead"
            case .nestedClass: return "\(linear) nested classes; list the characters in one class, and escape a literal bracket as \\["
            case .setOperation: return "\(linear) class set operations; list the characters in one class, or escape the punctuation"
            case .countTooLarge: return "\(linear) counts above \(RegexParser.maximumCount), to keep the program small; use + or * for \"many\""
            case .programTooLarge: return "\(linear) patterns this large; use smaller counts, or + and * for \"many\""
            }
        }
    }
}

extension Unicode.Scalar {
    /// The scalar as a pattern would write it: printable ASCII as itself, anything else as \u{...}.
    var escapedForDiagnostic: String {
        (0x21...0x7E).contains(value) ? String(self) : "\\u{\(String(value, radix: 16, uppercase: true))}"
    }
}
