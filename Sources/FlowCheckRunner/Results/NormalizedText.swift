/// A text as a reader would decode it, with where each decoded byte came from: every `%XX`
/// (of any byte, unreserved ones included, either case of hex), every `\uXXXX` (surrogate
/// pairs joined) and the JSON escapes `\/`, `\\`, `\"` undone. One pass, linear in the text.
struct NormalizedText {
    /// The decoded bytes.
    private(set) var bytes: [UInt8] = []
    /// For each decoded byte, the span of the original text it was decoded from.
    private var spans: [Range<Int>] = []

    /// Nil when `original` holds nothing to decode (no `%XX`, no backslash escape).
    init?(_ original: [UInt8]) {
        guard original.contains(UInt8(ascii: "%")) || original.contains(UInt8(ascii: "\\")) else { return nil }
        bytes.reserveCapacity(original.count)
        spans.reserveCapacity(original.count)
        var changed = false
        var index = 0
        while index < original.count {
            let byte = original[index]
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
