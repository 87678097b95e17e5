import FlowCheckRunner

/// The one escaping rule of the Markdown report and the step summary: every value is either a
/// code span (or a fenced block) whose fence is longer than any backtick run it holds, or plain
/// text with every Markdown and HTML metacharacter escaped. No value is ever read as Markdown or
/// HTML, so a report shows what the spec said and what the SDK did, literally.
enum MarkdownText {
    /// Characters CommonMark or GitHub read as markup anywhere in a line.
    private static let inlineMarkup: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "|", "&", "~", "#", "$"]

    /// Plain text: metacharacters backslash-escaped, a line start that would open a list, a
    /// heading, a quote or a setext underline escaped, line breaks shown as `\n`, cut after
    /// ``ValueCut/report`` characters. Safe in a paragraph, a list item, a heading and a table cell.
    static func plain(_ text: String, atLineStart: Bool = true) -> String {
        var out = ""
        let cut = ValueCut.cut(text, limit: ValueCut.report)
        for (index, character) in lineBreaksShown(cut).enumerated() {
            if inlineMarkup.contains(character) {
                out += "\\\(character)"
            } else if atLineStart, index == 0, character == "-" || character == "+" || character == "=" {
                out += "\\\(character)"
            } else {
                out.append(character)
            }
        }
        // `1.` or `1)` at the start opens an ordered list.
        if atLineStart, let dot = out.firstIndex(where: { !$0.isNumber }), dot != out.startIndex, out[dot] == "." || out[dot] == ")" {
            out.insert("\\", at: dot)
        }
        return out
    }

    /// A code span showing `text` exactly: a fence one backtick longer than the longest run
    /// inside, padded when the value starts or ends with a backtick or a space; line breaks as
    /// `\n` (a code span cannot hold one); in a table, `|` escaped (GitHub splits cells first).
    static func code(_ text: String, inTable: Bool = false) -> String {
        var body = lineBreaksShown(ValueCut.cut(text, limit: ValueCut.report))
        if inTable { body = body.replacingOccurrences(of: "|", with: "\\|") }
        if body.isEmpty { return "(empty)" }
        let fence = String(repeating: "`", count: longestBacktickRun(body) + 1)
        let pad = body.first == "`" || body.last == "`" || (body.first == " " && body.last == " ") ? " " : ""
        return fence + pad + body + pad + fence
    }

    /// A fenced block holding `lines` verbatim: the fence is longer than any backtick run inside.
    static func fenced(_ lines: [String], info: String) -> String {
        let body = lines.joined(separator: "\n")
        let fence = String(repeating: "`", count: max(3, longestBacktickRun(body) + 1))
        return fence + info + "\n" + body + "\n" + fence + "\n"
    }

    /// One line of a fenced block: a value's line breaks shown as `\n`, cut.
    static func blockLine(_ text: String) -> String {
        lineBreaksShown(ValueCut.cut(text, limit: ValueCut.report))
    }

    /// A narrative of ours with the spec's values in it: our words as plain text (a leading
    /// `1.` of ours stays a list item), each value a code span.
    static func narrative(_ text: String, inTable: Bool = false) -> String {
        NarrativeMarkup.pieces(text).map { piece in
            switch piece {
            case .text(let words): return plain(words, atLineStart: false)
            case .value(let value): return code(value, inTable: inTable)
            }
        }.joined()
    }

    private static func lineBreaksShown(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func longestBacktickRun(_ text: String) -> Int {
        var longest = 0
        var run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }
}
