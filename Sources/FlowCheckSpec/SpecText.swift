/// Spec text as diagnostics quote it: a JSON string (escaped, so a line feed in a key or value
/// never splits the one-line `file:line:col: error:` form) and cut to a sane length with a
/// marker, so a 10 KB value does not bury the message.
public enum SpecText {
    /// The most characters of spec text a diagnostic quotes.
    public static let quoteLimit = 80

    /// `text` as a JSON string literal, cut after ``quoteLimit`` characters with a marker
    /// saying how many were left out: `"abc…"(+120 characters)`.
    public static func quoted(_ text: String, limit: Int = quoteLimit) -> String {
        guard text.count > limit else { return "\"" + escaped(text) + "\"" }
        return "\"" + escaped(String(text.prefix(limit))) + "…\"(+\(text.count - limit) characters)"
    }

    /// `text` escaped as the inside of a JSON string (RFC 8259 §7): quotes, backslashes and
    /// every control character, plus DEL and the Unicode line and paragraph separators, which
    /// some terminals and editors also break lines at.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: appendControlEscaped(scalar, to: &out)
            }
        }
        return out
    }

    /// `text` with only its control characters escaped (as JSON would): the last guard of the
    /// one-line form for any message part that was not quoted with ``quoted(_:limit:)``.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isBreaking) else { return text }
        var out = ""
        for scalar in text.unicodeScalars { appendControlEscaped(scalar, to: &out) }
        return out
    }

    /// A character that shows nothing (a zero-width space, a byte order mark, a bidirectional
    /// override, a C1 control): escaped where a diagnostic quotes spec text, so an id that
    /// differs from another only by one can be seen to.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x80 else { return false }
        if (0x80...0x9F).contains(scalar.value) { return true }
        return scalar.properties.generalCategory == .format
    }

    private static func isBreaking(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static func appendControlEscaped(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        case _ where isBreaking(scalar) || isInvisible(scalar):
            // As JSON writes it: past U+FFFF, a surrogate pair.
            let units = scalar.value > 0xFFFF ? [0xD800 + ((scalar.value - 0x10000) >> 10), 0xDC00 + ((scalar.value - 0x10000) & 0x3FF)] : [scalar.value]
            for unit in units {
                let hex = String(unit, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
        default:
            out.unicodeScalars.append(scalar)
        }
    }
}
