/// How a step's narrative marks the values it quotes from the spec, so each report can show them
/// by its own rule (a Markdown code span with a long enough fence, a quoted string on a
/// console) instead of trusting a backtick the value itself may hold.
///
/// A value sits between two private-use characters that no spec text keeps: any the value
/// carried are replaced with U+FFFD before it is marked.
public enum NarrativeMarkup {
    public static let open: Unicode.Scalar = "\u{E000}"
    public static let close: Unicode.Scalar = "\u{E001}"

    /// One run of a narrative: words of ours, or a value quoted from the spec.
    public enum Piece: Sendable, Equatable {
        case text(String)
        case value(String)
    }

    /// `value` marked as a quoted value.
    public static func value(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        out.append(open)
        for scalar in value.unicodeScalars {
            out.append(scalar == open || scalar == close ? "\u{FFFD}" : scalar)
        }
        out.append(close)
        return String(out)
    }

    /// The narrative split into our words and the values it quotes.
    public static func pieces(_ narrative: String) -> [Piece] {
        var pieces: [Piece] = []
        var current = String.UnicodeScalarView()
        var inValue = false
        func flush() {
            if inValue { pieces.append(.value(String(current))) } else if !current.isEmpty { pieces.append(.text(String(current))) }
            current = String.UnicodeScalarView()
        }
        for scalar in narrative.unicodeScalars {
            if scalar == open, !inValue {
                flush()
                inValue = true
            } else if scalar == close, inValue {
                flush()
                inValue = false
            } else {
                current.append(scalar)
            }
        }
        flush()
        return pieces
    }

    /// The narrative as plain text: each value in double quotes.
    public static func plain(_ narrative: String) -> String {
        pieces(narrative).map { piece in
            switch piece {
            case .text(let text): return text
            case .value(let value): return "\"\(value)\""
            }
        }.joined()
    }
}
