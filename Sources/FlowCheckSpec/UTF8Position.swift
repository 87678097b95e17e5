/// Where a file stops being UTF-8: the first byte that starts no valid UTF-8 sequence (RFC 3629
/// §4: no overlong forms, no surrogates, nothing above U+10FFFF), at the line and column the
/// JSON reader would give it, so an editor jumps to the byte rather than to the file's start.
enum UTF8Position {
    /// The first invalid byte's offset, value and place; nil for valid UTF-8.
    static func firstInvalidByte(in bytes: [UInt8]) -> (offset: Int, byte: UInt8, location: SourceLocation)? {
        var i = 0
        var line = 1
        var column = 1
        // A byte order mark takes no column, as in the reader.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count {
            let length = sequenceLength(bytes, at: i)
            guard length > 0 else { return (i, bytes[i], SourceLocation(line: line, column: column)) }
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
            i += length
        }
        return nil
    }

    /// The length of the valid sequence starting at `i`, or 0.
    private static func sequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        let first = bytes[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard i + length <= bytes.count else { return 0 }
        // The second byte's range depends on the first (overlongs, surrogates); the rest are
        // any continuation byte.
        guard (low...high).contains(bytes[i + 1]) else { return 0 }
        for k in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[i + k]) { return 0 }
        return length
    }
}
