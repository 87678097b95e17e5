import Foundation

/// Shows control characters as text. A server's message or a broken SDK's output may carry an
/// ANSI escape or a NUL; passed to a terminal or a Markdown renderer it would repaint the
/// console or hide text, so reports and the console show `\u{1B}` instead.
public enum ControlCharacters {
    /// The text with every C0 and C1 control character but newline and tab, and every invisible
    /// format character (a zero-width space, a byte order mark, a bidirectional override, a
    /// line separator), written as `\u{X}`: what cannot be seen is shown.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out.append(contentsOf: String(format: "\\u{%X}", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar != "\n" && scalar != "\t" && (scalar.value < 0x20 || scalar.value == 0x7F) }
        if (0x80...0x9F).contains(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
