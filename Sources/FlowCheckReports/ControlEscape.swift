/// The one loop behind each sink's escaping: chosen characters replaced as that sink needs
/// (`%0A` in a workflow command, `\n` on the console), and every other control character
/// (C0, C1, the Unicode line and paragraph separators) written as `\u{X}` text.
enum ControlEscape {
    static func escaped(_ text: String, special: [Unicode.Scalar: String]) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if let replacement = special[scalar] {
                out += replacement
            } else if isControl(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
