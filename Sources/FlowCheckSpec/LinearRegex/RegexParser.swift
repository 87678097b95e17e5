/// Reads a pattern into a ``RegexNode`` tree, refusing what the engine does not have (see
/// ``RegexSyntaxError``). Works on Unicode scalars; recursion is bounded by ``maximumDepth``.
struct RegexParser {
    /// Counts above this are refused, so a program's size stays bounded.
    static let maximumCount = 1000
    /// Groups nested deeper are refused (the parser and compiler recurse per level).
    static let maximumDepth = 100

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0
    /// A leading `(?i)`.
    private(set) var caseInsensitive = false

    init(_ pattern: String) {
        self.scalars = Array(pattern.unicodeScalars)
    }

    /// The whole pattern.
    mutating func parse() throws(RegexSyntaxError) -> RegexNode {
        if scalars.starts(with: "(?i)".unicodeScalars) {
            caseInsensitive = true
            index = 4
        }
        let node = try alternation()
        if index < scalars.count {
            // `alternation` stops only at the end or at a ')'.
            throw RegexSyntaxError(.unmatchedCloseParenthesis, at: index)
        }
        return node
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(_ ahead: Int) -> Unicode.Scalar? { index + ahead < scalars.count ? scalars[index + ahead] : nil }

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try concatenation()]
        while peek == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            let start = index
            let atom = try self.atom()
            items.append(try quantified(atom, atomStart: start))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    // MARK: - Atoms

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let start = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "(": return try group(openedAt: start)
        case "[": return .set(try characterClass(openedAt: start))
        case ".": return .set(.dot)
        case "^": return .assertion(.startOfInput)
        case "$": return .assertion(.endOfInputOrBeforeFinalTerminator)
        case "\\": return try escape(at: start)
        case "*", "+", "?", "{": throw RegexSyntaxError(.nothingToRepeat(Character(scalar)), at: start)
        case "}": throw RegexSyntaxError(.unmatchedCloseBrace, at: start)
        default: return .scalar(scalar)
        }
    }

    private mutating func group(openedAt start: Int) throws(RegexSyntaxError) -> RegexNode {
        if peek == "?" {
            index += 1
            guard let kind = peek else { throw RegexSyntaxError(.unknownGroup, at: start) }
            switch kind {
            case ":": index += 1
            case "=": throw RegexSyntaxError(.lookahead, at: start)
            case "!": throw RegexSyntaxError(.negativeLookahead, at: start)
            case ">": throw RegexSyntaxError(.atomicGroup, at: start)
            case "#": throw RegexSyntaxError(.comment, at: start)
            case "(": throw RegexSyntaxError(.conditional, at: start)
            case "<":
                if peek(1) == "=" { throw RegexSyntaxError(.lookbehind, at: start) }
                if peek(1) == "!" { throw RegexSyntaxError(.negativeLookbehind, at: start) }
                // A named group is a plain group here (nothing refers back to it).
                index += 1
                let nameStart = index
                while let c = peek, c.properties.isAlphabetic || ScalarProperties.isDigit(c), c.isASCII { index += 1 }
                guard index > nameStart, peek == ">", !ScalarProperties.isDigit(scalars[nameStart]) else { throw RegexSyntaxError(.badGroupName, at: start) }
                index += 1
            default:
                var flags = ""
                var end = index
                while end < scalars.count, scalars[end].properties.isAlphabetic || scalars[end] == "-", scalars[end].isASCII {
                    flags.unicodeScalars.append(scalars[end])
                    end += 1
                }
                guard !flags.isEmpty, end < scalars.count else { throw RegexSyntaxError(.unknownGroup, at: start) }
                if scalars[end] == ":" { throw RegexSyntaxError(.scopedFlags, at: start) }
                if scalars[end] == ")" { throw RegexSyntaxError(.inlineFlags(flags), at: start) }
                throw RegexSyntaxError(.unknownGroup, at: start)
            }
        }
        depth += 1
        guard depth <= Self.maximumDepth else { throw RegexSyntaxError(.nestedTooDeep, at: start) }
        let inner = try alternation()
        depth -= 1
        guard peek == ")" else { throw RegexSyntaxError(.unclosedGroup, at: start) }
        index += 1
        return .group(inner)
    }

    // MARK: - Quantifiers

    private mutating func quantified(_ atom: RegexNode, atomStart: Int) throws(RegexSyntaxError) -> RegexNode {
        guard let scalar = peek, "*+?{".unicodeScalars.contains(scalar) else { return atom }
        let start = index
        let bounds: (min: Int, max: Int?)
        switch scalar {
        case "*": bounds = (0, nil); index += 1
        case "+": bounds = (1, nil); index += 1
        case "?": bounds = (0, 1); index += 1
        default: bounds = try interval()
        }
        if case .assertion = atom { throw RegexSyntaxError(.nothingToRepeat(Character(scalar)), at: start) }
        if peek == "?" {
            index += 1 // lazy: the same verdict for a yes/no search
        } else if peek == "+" {
            throw RegexSyntaxError(.possessiveQuantifier, at: index)
        }
        if let next = peek, "*+?{".unicodeScalars.contains(next) {
            throw RegexSyntaxError(.repeatedQuantifier(Character(next)), at: index)
        }
        return .repetition(atom, min: bounds.min, max: bounds.max, offset: start)
    }

    /// `{m}`, `{m,}` or `{m,n}`, strictly (ICU refuses `{,n}` and spaces too).
    private mutating func interval() throws(RegexSyntaxError) -> (min: Int, max: Int?) {
        let start = index
        index += 1
        guard let low = try number(intervalAt: start) else { throw RegexSyntaxError(.badInterval, at: start) }
        var high: Int? = low
        if peek == "," {
            index += 1
            high = try number(intervalAt: start)
        }
        guard peek == "}" else { throw RegexSyntaxError(.badInterval, at: start) }
        index += 1
        if let high, high < low { throw RegexSyntaxError(.reversedInterval(low, high), at: start) }
        return (low, high)
    }

    private mutating func number(intervalAt start: Int) throws(RegexSyntaxError) -> Int? {
        var value: Int?
        while let c = peek, c.isASCII, ScalarProperties.isDigit(c) {
            // Read to the last digit, so the message names the count as written (saturating
            // far above the limit, so no count overflows).
            value = min((value ?? 0) * 10 + Int(c.value - 0x30), 1_000_000_000_000)
            index += 1
        }
        if let value, value > Self.maximumCount { throw RegexSyntaxError(.countTooLarge(value), at: start) }
        return value
    }

    // MARK: - Escapes

    /// An escape outside a class; `start` is the backslash.
    private mutating func escape(at start: Int) throws(RegexSyntaxError) -> RegexNode {
        guard let c = peek else { throw RegexSyntaxError(.trailingBackslash, at: start) }
        switch c {
        case "d": index += 1; return .set(.escape(.digit, negated: false))
        case "D": index += 1; return .set(.escape(.digit, negated: true))
        case "w": index += 1; return .set(.escape(.word, negated: false))
        case "W": index += 1; return .set(.escape(.word, negated: true))
        case "s": index += 1; return .set(.escape(.space, negated: false))
        case "S": index += 1; return .set(.escape(.space, negated: true))
        case "b": index += 1; return .assertion(.wordBoundary)
        case "B": index += 1; return .assertion(.notWordBoundary)
        case "A": index += 1; return .assertion(.startOfInput)
        case "z": index += 1; return .assertion(.endOfInput)
        case "Z": index += 1; return .assertion(.endOfInputOrBeforeFinalTerminator)
        default: return .scalar(try scalarEscape(at: start))
        }
    }

    /// An escape that stands for one scalar (`\t`, `\u0041`, `\.`), in or out of a class.
    private mutating func scalarEscape(at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        guard let c = peek else { throw RegexSyntaxError(.trailingBackslash, at: start) }
        index += 1
        switch c {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "a": return "\u{07}"
        case "e": return "\u{1B}"
        case "u": return try hex(digits: 4, at: start)
        case "x":
            if peek == "{" {
                index += 1
                let value = try hexValue(upTo: 6, at: start)
                guard peek == "}" else { throw RegexSyntaxError(.badHexEscape, at: start) }
                index += 1
                return value
            }
            return try hex(digits: 2, at: start)
        case "0": throw RegexSyntaxError(.octalEscape, at: start)
        case "1"..."9":
            var reference = "\\\(c)"
            while let d = peek, ("0"..."9").contains(d) { reference.unicodeScalars.append(d); index += 1 }
            throw RegexSyntaxError(.backreference(reference), at: start)
        case "k": throw RegexSyntaxError(.backreference("\\k"), at: start)
        case "p", "P": throw RegexSyntaxError(.unicodeProperty, at: start)
        case "Q", "E": throw RegexSyntaxError(.quoting, at: start)
        case "N": throw RegexSyntaxError(.namedCharacter, at: start)
        case "c": throw RegexSyntaxError(.controlEscape, at: start)
        case "G", "X", "R", "h", "H", "v", "V": throw RegexSyntaxError(.otherEscape(Character(c)), at: start)
        default:
            if c.isASCII && (c.properties.isAlphabetic || ScalarProperties.isDigit(c)) {
                throw RegexSyntaxError(.unknownEscape(Character(c)), at: start)
            }
            return c
        }
    }

    private mutating func hex(digits: Int, at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let c = peek, let digit = Self.hexDigit(c) else { throw RegexSyntaxError(.badHexEscape, at: start) }
            value = value * 16 + digit
            index += 1
        }
        guard let scalar = Unicode.Scalar(value) else { throw RegexSyntaxError(.badHexEscape, at: start) }
        return scalar
    }

    private mutating func hexValue(upTo digits: Int, at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        var value: UInt32 = 0
        var count = 0
        while count < digits, let c = peek, let digit = Self.hexDigit(c) {
            value = value * 16 + digit
            index += 1
            count += 1
        }
        guard count > 0, let scalar = Unicode.Scalar(value) else { throw RegexSyntaxError(.badHexEscape, at: start) }
        return scalar
    }

    private static func hexDigit(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": return c.value - 0x30
        case "a"..."f": return c.value - 0x61 + 10
        case "A"..."F": return c.value - 0x41 + 10
        default: return nil
        }
    }

    // MARK: - Classes

    /// `[...]` after its `[`: ranges, escapes, a leading `^`; no nested sets or set operations.
    private mutating func characterClass(openedAt start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var set = ScalarSet()
        if peek == "^" {
            set.negated = true
            index += 1
        }
        if peek == "]" { throw RegexSyntaxError(.emptyClass, at: start) }
        while true {
            guard let c = peek else { throw RegexSyntaxError(.unclosedClass, at: start) }
            let itemStart = index
            if c == "]" {
                index += 1
                return set.normalized()
            }
            if c == "[" { throw RegexSyntaxError(.nestedClass, at: itemStart) }
            if (c == "&" && peek(1) == "&") || (c == "-" && peek(1) == "-") || (c == "~" && peek(1) == "~") {
                throw RegexSyntaxError(.setOperation("\(c)\(c)"), at: itemStart)
            }
            let low: Unicode.Scalar
            switch try classAtom() {
            case .scalar(let scalar): low = scalar
            case .escape(let item):
                if peek == "-", let after = peek(1), after != "]" { throw RegexSyntaxError(.classEscapeInRange, at: itemStart) }
                set.classes.append(item)
                continue
            }
            guard peek == "-", let after = peek(1), after != "]" else {
                set.ranges.append(low.value...low.value)
                continue
            }
            index += 1
            if after == "[" { throw RegexSyntaxError(.nestedClass, at: index) }
            switch try classAtom() {
            case .scalar(let high):
                guard low.value <= high.value else { throw RegexSyntaxError(.reversedRange(low, high), at: itemStart) }
                set.ranges.append(low.value...high.value)
            case .escape: throw RegexSyntaxError(.classEscapeInRange, at: itemStart)
            }
        }
    }

    private enum ClassAtom {
        case scalar(Unicode.Scalar)
        case escape(ScalarSet.ClassItem)
    }

    private mutating func classAtom() throws(RegexSyntaxError) -> ClassAtom {
        let start = index
        let c = scalars[index]
        index += 1
        guard c == "\\" else { return .scalar(c) }
        switch peek {
        case "d": index += 1; return .escape(.init(kind: .digit, negated: false))
        case "D": index += 1; return .escape(.init(kind: .digit, negated: true))
        case "w": index += 1; return .escape(.init(kind: .word, negated: false))
        case "W": index += 1; return .escape(.init(kind: .word, negated: true))
        case "s": index += 1; return .escape(.init(kind: .space, negated: false))
        case "S": index += 1; return .escape(.init(kind: .space, negated: true))
        default: return .scalar(try scalarEscape(at: start))
        }
    }
}
