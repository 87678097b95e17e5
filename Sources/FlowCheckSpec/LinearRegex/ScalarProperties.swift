/// The character properties the regex engine needs, defined as NSRegularExpression (ICU) does
/// for the characters specs see; see docs/spec-format.md, "Regular expressions" for where they differ.
enum ScalarProperties {
    /// LF, VT, FF, CR, NEL, LS, PS: what `.` does not match and what `$` may stand before.
    static let lineTerminatorRanges: [ClosedRange<UInt32>] = [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]

    static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (0x0A...0x0D).contains(value) || value == 0x85 || value == 0x2028 || value == 0x2029
    }

    static func belongs(_ scalar: Unicode.Scalar, to kind: ScalarClass) -> Bool {
        switch kind {
        case .digit: return isDigit(scalar)
        case .word: return isWord(scalar)
        case .space: return isSpace(scalar)
        }
    }

    /// `\d`: a decimal digit in any script (Unicode's Nd), as ICU has it.
    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x30...0x39).contains(scalar.value) }
        return scalar.properties.generalCategory == .decimalNumber
    }

    /// `\w`: alphabetic, a mark, a decimal digit, a connector (`_`), ZWNJ or ZWJ, as ICU has it.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let v = scalar.value
            return (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x5F
        }
        if scalar.value == 0x200C || scalar.value == 0x200D { return true }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    /// `\s`: Unicode's White_Space, as ICU has it.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }

    /// The simple case fold: the lowercase of the uppercase, when each is one scalar (`K`, the
    /// Kelvin sign and `k` fold alike; so do `ſ` and `s`, `ς` and `σ`). The dotted and dotless
    /// i fold to themselves, as in Unicode's CaseFolding (no Turkic mapping).
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
        }
        if scalar.value == 0x130 || scalar.value == 0x131 { return scalar }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        return single(upper.properties.lowercaseMapping) ?? single(scalar.properties.lowercaseMapping) ?? scalar
    }

    /// The scalars `(?i)` treats as the same letter as `scalar`: its fold, lowercase, uppercase.
    static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if scalar.isASCII {
            let v = scalar.value
            if (0x41...0x5A).contains(v) { return [Unicode.Scalar(v + 0x20)!] }
            if (0x61...0x7A).contains(v) { return [Unicode.Scalar(v - 0x20)!] }
            return []
        }
        let properties = scalar.properties
        return [fold(scalar), single(properties.lowercaseMapping), single(properties.uppercaseMapping)].compactMap { $0 }.filter { $0 != scalar }
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
