import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckSpec
import FlowCheckTestSupport

/// What the engine refuses (with the exact words an author sees), and that every search is
/// bounded: catastrophic shapes finish, and a search over its budget gives up, never hangs.
@Suite(.fast, .timeLimit(.minutes(20)))
struct LinearRegexTests {
    struct Refusal: Sendable, CustomTestStringConvertible {
        var pattern: String
        var title: String
        var fix: String
        var testDescription: String { pattern }
    }

    static let linear = "FlowCheck matches regexes in linear time and has no"

    static let refusals: [Refusal] = [
        Refusal(pattern: "(a)\\1", title: "unsupported regular expression /(a)\\1/: backreference \\1 at character 4",
                fix: "\(linear) backreferences; repeat the group's pattern instead, or capture the value with \"capture\" and compare it with equals \"${name}\""),
        Refusal(pattern: "(?<n>a)\\k<n>", title: "unsupported regular expression /(?<n>a)\\k<n>/: backreference \\k at character 8",
                fix: "\(linear) backreferences; repeat the group's pattern instead, or capture the value with \"capture\" and compare it with equals \"${name}\""),
        Refusal(pattern: "a(?=b)", title: "unsupported regular expression /a(?=b)/: lookahead (?= at character 2",
                fix: "\(linear) lookaround; write what it looks for into the pattern itself, or check it with another matcher"),
        Refusal(pattern: "a(?!b)", title: "unsupported regular expression /a(?!b)/: negative lookahead (?! at character 2",
                fix: "\(linear) lookaround; write what it looks for into the pattern itself, or check it with another matcher"),
        Refusal(pattern: "(?<=a)b", title: "unsupported regular expression /(?<=a)b/: lookbehind (?<= at character 1",
                fix: "\(linear) lookaround; write what it looks for into the pattern itself, or check it with another matcher"),
        Refusal(pattern: "(?<!a)b", title: "unsupported regular expression /(?<!a)b/: negative lookbehind (?<! at character 1",
                fix: "\(linear) lookaround; write what it looks for into the pattern itself, or check it with another matcher"),
        Refusal(pattern: "(?>a+)b", title: "unsupported regular expression /(?>a+)b/: atomic group (?> at character 1",
                fix: "\(linear) atomic groups; use a plain group (?: ) and check the verdict"),
        Refusal(pattern: "a*+b", title: "unsupported regular expression /a*+b/: possessive quantifier at character 3",
                fix: "\(linear) possessive quantifiers; drop the '+' after the quantifier and check the verdict"),
        Refusal(pattern: "a(?i)b", title: "unsupported regular expression /a(?i)b/: inline flags (?i) at character 2",
                fix: "\(linear) inline flags but a leading (?i); put (?i) first for a case-insensitive match, or list both cases ([Aa])"),
        Refusal(pattern: "(?m)^a", title: "unsupported regular expression /(?m)^a/: inline flags (?m) at character 1",
                fix: "\(linear) inline flags but a leading (?i); put (?i) first for a case-insensitive match, or list both cases ([Aa])"),
        Refusal(pattern: "(?i:a)", title: "unsupported regular expression /(?i:a)/: scoped flags (?flags: at character 1",
                fix: "\(linear) inline flags but a leading (?i); put (?i) first for a case-insensitive match, or list both cases ([Aa])"),
        Refusal(pattern: "\\p{L}+", title: "unsupported regular expression /\\p{L}+/: Unicode property class at character 1",
                fix: "\(linear) Unicode property classes; list the characters in a class such as [A-Za-z]"),
        Refusal(pattern: "[a[b]]", title: "unsupported regular expression /[a[b]]/: nested class '[' inside a class at character 3",
                fix: "\(linear) nested classes; list the characters in one class, and escape a literal bracket as \\["),
        Refusal(pattern: "[a-z&&[^m]]", title: "unsupported regular expression /[a-z&&[^m]]/: class set operation && at character 5",
                fix: "\(linear) class set operations; list the characters in one class, or escape the punctuation"),
        Refusal(pattern: "a{1001}", title: "unsupported regular expression /a{1001}/: count 1001 (above 1000) at character 2",
                fix: "\(linear) counts above 1000, to keep the program small; use + or * for \"many\""),
        Refusal(pattern: "(a{1000}){1000}", title: "unsupported regular expression /(a{1000}){1000}/: the pattern compiles to more than 20000 instructions",
                fix: "\(linear) patterns this large; use smaller counts, or + and * for \"many\""),
        Refusal(pattern: "\\Qa.b\\E", title: "unsupported regular expression /\\Qa.b\\E/: quoting \\Q...\\E at character 1",
                fix: "\(linear) \\Q...\\E quoting; escape each metacharacter with a backslash"),
        Refusal(pattern: "\\h", title: "unsupported regular expression /\\h/: escape \\h at character 1",
                fix: "\(linear) such escape; write a character class such as [ \\t] instead"),
        Refusal(pattern: "(a", title: "invalid regular expression /(a/: '(' at character 1 is never closed",
                fix: "add the missing ')', or escape a literal parenthesis as \\("),
        Refusal(pattern: "a)", title: "invalid regular expression /a)/: ')' at character 2 closes no group",
                fix: "remove it, or escape a literal parenthesis as \\)"),
        Refusal(pattern: "([", title: "invalid regular expression /([/: '[' at character 2 is never closed",
                fix: "add the missing ']', or escape a literal bracket as \\["),
        Refusal(pattern: "*a", title: "invalid regular expression /*a/: '*' at character 1 has nothing to repeat",
                fix: "put it after a character, class or group, or escape it as \\*"),
        Refusal(pattern: "a**", title: "invalid regular expression /a**/: '*' at character 3 follows another quantifier",
                fix: "remove one quantifier, or escape a literal * as \\*"),
        Refusal(pattern: "a{,3}", title: "invalid regular expression /a{,3}/: '{' at character 2 does not start a count {m}, {m,} or {m,n}",
                fix: "write a count as {2}, {2,} or {2,5}, or escape a literal brace as \\{"),
        Refusal(pattern: "a{3,2}", title: "invalid regular expression /a{3,2}/: the count {3,2} at character 2 has its larger number first",
                fix: "write {2,3}"),
        Refusal(pattern: "[z-a]", title: "invalid regular expression /[z-a]/: the range z-a at character 2 runs backwards",
                fix: "write a-z"),
        Refusal(pattern: "[\\d-z]", title: "invalid regular expression /[\\d-z]/: the range at character 2 starts or ends with a class escape",
                fix: "put '-' first or last in the class, or escape it as \\-"),
        Refusal(pattern: "ab\\", title: "invalid regular expression /ab\\/: the pattern ends with a lone backslash",
                fix: "escape a literal backslash as \\\\ (doubled again in JSON: \"\\\\\\\\\")"),
        Refusal(pattern: "\\y", title: "invalid regular expression /\\y/: unknown escape \\y at character 1",
                fix: "escape only punctuation; a letter or digit stands for itself without the backslash"),
        Refusal(pattern: "^*", title: "invalid regular expression /^*/: '*' at character 2 has nothing to repeat",
                fix: "put it after a character, class or group, or escape it as \\*"),
    ]

    @Test(arguments: refusals)
    func refusesWithALocatedMessageAndAFix(_ refusal: Refusal) {
        #expect(throws: RegexSyntaxError.self) { try LinearRegex(refusal.pattern) }
        do {
            _ = try LinearRegex(refusal.pattern)
        } catch {
            #expect(error.title(pattern: refusal.pattern) == refusal.title)
            #expect(error.fix == refusal.fix)
        }
    }

    /// The counts at the cap still compile, so a spec may say "up to 1000".
    @Test func countsUpToTheCapCompile() throws {
        #expect(try LinearRegex("^[A-Za-z0-9]{0,1000}$").programSize > 1000)
        #expect(try LinearRegex("a{1000,}").programSize >= 1000)
    }

    /// `(a+)+$` against 100,000 a's and a '!' sends a backtracking engine into exponential
    /// time; here the search is bounded by (scalars + 1) × instructions. The deadline turns a
    /// hang into a named failure; nothing here measures speed (that is the bench's job).
    @Test(arguments: ["(a+)+$", "(a*)*b", "(a|a)*b", "(a|aa)+$", "^(a+)+b", "(?i)(A+)+Z"])
    func catastrophicShapesFinishOnAHundredThousandCharacters(_ pattern: String) async throws {
        let regex = try LinearRegex(pattern)
        let value = String(repeating: "a", count: 100_000) + "!"
        let search = try await boundedValue(of: Task { regex.search(value) }, within: HangBound.standard, waitingFor: "/\(pattern)/ on 100,000 characters")
        #expect(search == .notFound)
        // Bounded structurally: never more steps than (scalars + 1) × instructions, twice over
        // (the consuming pass and the closures).
        #expect(regex.programSize * 2 * 100_002 < LinearRegex.defaultStepBudget)
        let matchingValue = String(repeating: "a", count: 100_000) + (pattern.hasSuffix("b") ? "b" : pattern.hasSuffix("Z") ? "z" : "")
        let matching = try await boundedValue(of: Task { regex.search(matchingValue) }, within: HangBound.standard, waitingFor: "/\(pattern)/ on a matching value")
        #expect(matching == .found)
    }

    @Test func aSearchOverItsBudgetGivesUpInsteadOfAnswering() throws {
        let regex = try LinearRegex("(a+)+$")
        let value = String(repeating: "a", count: 1000) + "!"
        guard case .gaveUp(let steps) = regex.search(value, stepBudget: 500) else {
            Issue.record("a 500-step budget on 1,001 characters did not give up")
            return
        }
        #expect(steps == 501)
        #expect(regex.search(value, stepBudget: LinearRegex.defaultStepBudget) == .notFound)
    }

    struct Warned: Sendable, CustomTestStringConvertible {
        var pattern: String
        var titles: [String]
        var testDescription: String { pattern }
    }

    static let shapes: [Warned] = [
        Warned(pattern: "(a+)+$", titles: ["nested quantifier in /(a+)+$/ at character 5: linear in FlowCheck, exponential in a backtracking engine"]),
        Warned(pattern: "(a*)*", titles: ["nested quantifier in /(a*)*/ at character 5: linear in FlowCheck, exponential in a backtracking engine"]),
        Warned(pattern: "(?:x+y?)*", titles: ["nested quantifier in /(?:x+y?)*/ at character 9: linear in FlowCheck, exponential in a backtracking engine"]),
        Warned(pattern: "(a|a)*", titles: ["repeated alternatives that can match the same text in /(a|a)*/ at character 6: linear in FlowCheck, exponential in a backtracking engine"]),
        Warned(pattern: "(a|ab)+c", titles: ["repeated alternatives that can match the same text in /(a|ab)+c/ at character 7: linear in FlowCheck, exponential in a backtracking engine"]),
        // Separated or single repetitions are what specs use: no warning.
        Warned(pattern: "^[A-Za-z0-9_-]{22,}$", titles: []),
        Warned(pattern: "\\A(SEED-[0-9]{3}-[a-z0-9]+(-[a-z0-9]+)*|RFC[0-9]{4}-[0-9]+(\\.[0-9]+)*)\\z", titles: []),
        Warned(pattern: "(a|b)*", titles: []),
        Warned(pattern: "(a+)?", titles: []),
    ]

    @Test(arguments: shapes)
    func warnsAboutShapesThatAreExponentialElsewhere(_ shape: Warned) throws {
        let regex = try LinearRegex(shape.pattern)
        #expect(regex.portabilityWarnings.map { $0.title(pattern: shape.pattern) } == shape.titles)
    }

    /// NSRegularExpression refuses the mistakes in the table too, but for three it reads in
    /// its own way (`\y` as y, `^*` as a repeated anchor, `[\d-z]` with a literal '-'): FlowCheck
    /// refuses those as ambiguous.
    static let readByICU: Set<String> = ["\\y", "^*", "[\\d-z]"]

    @Test func everyOtherMistakeIsOneNSRegularExpressionRefusesToo() {
        for refusal in Self.refusals where refusal.title.hasPrefix("invalid") {
            #expect(((try? NSRegularExpression(pattern: refusal.pattern)) != nil) == Self.readByICU.contains(refusal.pattern), "/\(refusal.pattern)/")
        }
    }
}
