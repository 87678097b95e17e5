/// A text as a reader would decode it, with where each decoded byte came from: every `%XX`
/// (of any byte, unreserved ones included, either case of hex), every `\uXXXX` (surrogate
/// pairs joined) and the JSON escapes `\/`, `\\`, `\"` undone, and base64 wrapped into lines
/// joined again (MIME's 76 columns, PEM's 64: GNU `base64`, Python's `encodebytes` and Java's
/// MIME encoder wrap so), so a secret encoded across a line break is found whole. One pass,
/// linear in the text.
struct NormalizedText {
    /// The decoded bytes.
    private(set) var bytes: [UInt8] = []
    /// For each decoded byte, the span of the original text it was decoded from.
    private var spans: [Range<Int>] = []

    /// A line of base64 this long or longer, then a line break, then more base64: one value
    /// wrapped. Wrapping tools break at 64 or 76 characters; a shorter run before a break is
    /// ordinary text, whose lines are left apart.
    static let wrappedLine = 16

    /// Nil when `original` holds nothing to decode (no `%XX`, no backslash escape, no wrapped base64).
    init?(_ original: [UInt8]) {
        guard original.contains(UInt8(ascii: "%")) || original.contains(UInt8(ascii: "\\")) || Self.mayWrapBase64(original) else { return nil }
        bytes.reserveCapacity(original.count)
        spans.reserveCapacity(original.count)
        var changed = false
        var index = 0
        // Base64 characters decoded in a row so far.
        var run = 0
        while index < original.count {
            if run >= Self.wrappedLine, let length = Self.joinableBreak(original, at: index) {
                // The break inside a wrapped value is dropped: the value reads as one line.
                index += length
                changed = true
                continue
            }
            let byte = original[index]
            run = Self.isBase64(byte) ? run + 1 : 0
            if byte == UInt8(ascii: "%"), index + 2 < original.count, let high = Self.hex(original[index + 1]), let low = Self.hex(original[index + 2]) {
                append(high << 4 | low, from: index..<(index + 3))
                index += 3
                changed = true
                continue
            }
            if byte == UInt8(ascii: "\\"), index + 1 < original.count {
                let next = original[index + 1]
                if next == UInt8(ascii: "/") || next == UInt8(ascii: "\\") || next == UInt8(ascii: "\"") {
                    append(next, from: index..<(index + 2))
                    index += 2
                    changed = true
                    continue
                }
                if next == UInt8(ascii: "u"), let (scalar, length) = Self.unicodeEscape(original, at: index) {
                    let span = index..<(index + length)
                    for unit in String(Character(scalar)).utf8 { append(unit, from: span) }
                    index += length
                    changed = true
                    continue
                }
            }
            append(byte, from: index..<(index + 1))
            index += 1
        }
        guard changed else { return nil }
    }

    /// Whether some line break follows a run of ``wrappedLine`` base64 characters and joins it
    /// to more (``joinableBreak(_:at:)``).
    private static func mayWrapBase64(_ original: [UInt8]) -> Bool {
        var run = 0
        for (index, byte) in original.enumerated() {
            if isBase64(byte) {
                run += 1
                continue
            }
            if run >= wrappedLine, "\n\r\"',\\".utf8.contains(byte), joinableBreak(original, at: index) != nil { return true }
            run = 0
        }
        return false
    }

    /// The length of the joint at `index` when it splits a wrapped base64 value: line breaks,
    /// with the indentation of the next line, and the quotes (and comma) of a value written as
    /// a list of quoted lines (`"...",` then `  "..."`, as YAML, JSON arrays and pretty logs
    /// do); the next line is base64 up to its end (a line break, the end of the text, or a
    /// quote, space, comma, semicolon or bracket after the value's last line). A header line
    /// (`Content-Type:`) or a JSON member (`"name": ...`) is not, so ordinary lines stay apart.
    private static func joinableBreak(_ original: [UInt8], at index: Int) -> Int? {
        let quote: (UInt8) -> Bool = { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }
        var at = index
        if at < original.count, quote(original[at]) { at += 1 }
        if at < original.count, original[at] == UInt8(ascii: ",") { at += 1 }
        guard let length = lineBreaks(original, at: at) else { return nil }
        at += length
        while at < original.count, original[at] == UInt8(ascii: " ") || original[at] == UInt8(ascii: "\t") { at += 1 }
        if at < original.count, quote(original[at]) { at += 1 }
        var end = at
        while end < original.count, isBase64(original[end]) { end += 1 }
        guard end > at else { return nil }
        if end == original.count { return at - index }
        let next = original[end]
        if next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r") || lineBreaks(original, at: end) != nil { return at - index }
        return "\"' ,;)]}<&".utf8.contains(next) ? at - index : nil
    }

    /// How many bytes of line breaks start at `index`: CR and LF, and the escapes `\n` and `\r`
    /// as a one-line rendering of a text (a driver's stderr in a report) shows them; nil if none.
    private static func lineBreaks(_ original: [UInt8], at index: Int) -> Int? {
        var end = index
        while end < original.count {
            let byte = original[end]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                end += 1
            } else if byte == UInt8(ascii: "\\"), end + 1 < original.count, original[end + 1] == UInt8(ascii: "n") || original[end + 1] == UInt8(ascii: "r") {
                end += 2
            } else {
                break
            }
        }
        return end > index ? end - index : nil
    }

    /// A character of base64 or base64url, padding included.
    private static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    private mutating func append(_ byte: UInt8, from span: Range<Int>) {
        bytes.append(byte)
        spans.append(span)
    }

    /// The original span the decoded `range` came from.
    func originalRange(_ range: Range<Int>) -> Range<Int> {
        spans[range.lowerBound].lowerBound..<spans[range.upperBound - 1].upperBound
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `\uXXXX` at `start` (and a low surrogate's `\uXXXX` after a high one): the scalar and
    /// how many bytes it took; nil if it is not one, or a lone surrogate.
    private static func unicodeEscape(_ bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
        guard let first = codeUnit(bytes, at: start) else { return nil }
        if (0xD800...0xDBFF).contains(first) {
            guard let second = codeUnit(bytes, at: start + 6), (0xDC00...0xDFFF).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else { return nil }
            return (scalar, 12)
        }
        guard let scalar = Unicode.Scalar(first) else { return nil }
        return (scalar, 6)
    }

    private static func codeUnit(_ bytes: [UInt8], at start: Int) -> UInt32? {
        guard start + 6 <= bytes.count, bytes[start] == UInt8(ascii: "\\"), bytes[start + 1] == UInt8(ascii: "u") else { return nil }
        var value: UInt32 = 0
        for offset in 2..<6 {
            guard let digit = hex(bytes[start + offset]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
