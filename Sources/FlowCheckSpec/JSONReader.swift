import Foundation

/// Reads JSON text (RFC 8259) into ``JSONNode``s that carry their line and column.
///
/// Errors name the position of the offending byte and the JSON path of the value being read,
/// so a spec author can jump straight to the mistake.
public struct JSONReader {
    /// A syntax error with its position and the path of the innermost value being read.
    public struct SyntaxError: Error, Sendable, Equatable {
        public var message: String
        public var location: SourceLocation
        public var path: String
        public var fix: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var path: [String] = []
    private var depth = 0
    /// Every bracket still open, innermost last: where it opened and the path of its value.
    private var open: [(bracket: UInt8, location: SourceLocation, path: String)] = []
    /// Nesting deeper than this is refused rather than recursed into (a hostile file must not
    /// exhaust the stack).
    private let maxDepth = 256

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a whole document.
    /// - Throws: ``SyntaxError`` at the first problem.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        var reader = JSONReader(bytes: bytes)
        // A UTF-8 byte order mark is tolerated: some editors on Windows write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        try reader.skipWhitespace()
        let node = try reader.readValue()
        try reader.skipWhitespace()
        if reader.index < reader.bytes.count {
            throw reader.error("unexpected text after the end of the document", fix: "remove everything after the final closing bracket")
        }
        return node
    }

    /// Parses a string of JSON text.
    public static func parse(_ text: String) throws(SyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    // MARK: - Values

    private var here: SourceLocation { SourceLocation(line: line, column: column) }

    private var currentPath: String { JSONPath.render(path) }

    private func error(_ message: String, fix: String) -> SyntaxError {
        SyntaxError(message: message, location: here, path: currentPath, fix: fix)
    }

    private mutating func readValue() throws(SyntaxError) -> JSONNode {
        guard index < bytes.count else {
            if open.isEmpty {
                throw error("unexpected end of file, expected a value", fix: "complete the document; a bracket or brace may be missing")
            }
            throw endOfFile(after: "where a value belongs")
        }
        let start = here
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return JSONNode(.string(try readString()), at: start)
        case UInt8(ascii: "t"): try readLiteral("true"); return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"): try readLiteral("false"); return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"): try readLiteral("null"); return JSONNode(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try readNumber()), at: start)
        case UInt8(ascii: "'"):
            throw error("strings must use double quotes", fix: "replace the single quotes with double quotes")
        default:
            throw error("unexpected character \(describeByte(bytes[index])), expected a value", fix: "a value is a string in double quotes, a number, true, false, null, an object or an array")
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > maxDepth {
            throw error("nesting deeper than \(maxDepth) levels", fix: "flatten the document")
        }
        open.append((bytes[index], here, currentPath))
    }

    private mutating func leave() {
        advance() // } or ]
        depth -= 1
        open.removeLast()
    }

    /// The end of the file where more was expected: a file cut off (often right after a comma,
    /// as an editor's save or a truncated download leaves it). Says where the innermost bracket
    /// still open was opened, since the end of the file says nothing about what is missing.
    private func endOfFile(after what: String) -> SyntaxError {
        guard let last = open.last else {
            return error("unexpected end of file \(what)", fix: "complete the document; a bracket or brace may be missing")
        }
        let kind = last.bracket == UInt8(ascii: "{") ? "object" : "array"
        let closers = String(open.reversed().map { $0.bracket == UInt8(ascii: "{") ? "}" : "]" })
        let where_ = "\(last.location.line):\(last.location.column)"
        return error("unexpected end of file \(what); the last open bracket is the \(kind) at \(where_) (\(last.path))", fix: "the file may be cut off: restore the rest, or complete the \(kind) opened at \(where_) and close what is still open with \(closers)")
    }

    private mutating func readObject() throws(SyntaxError) -> JSONNode {
        let start = here
        try enter()
        advance() // {
        var members: [JSONNode.Member] = []
        try skipWhitespace()
        if peek == UInt8(ascii: "}") {
            leave()
            return JSONNode(.object(members), at: start)
        }
        while true {
            try skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}") {
                    throw error("trailing comma before '}'", fix: "remove the comma after the last member")
                }
                if peek == nil {
                    throw endOfFile(after: members.isEmpty ? "inside an object" : "after a comma")
                }
                throw error("expected a key in double quotes", fix: "write keys as \"key\": value")
            }
            let keyLocation = here
            let key = try readString()
            try skipWhitespace()
            guard peek == UInt8(ascii: ":") else {
                if peek == nil { throw endOfFile(after: "after the key \(SpecText.quoted(key))") }
                throw error("expected ':' after the key \(SpecText.quoted(key))", fix: "separate each key from its value with a colon")
            }
            advance()
            // The member's path from here: a comment or a stray byte where its value should be
            // is reported at the value's path.
            path.append(JSONPath.key(key))
            try skipWhitespace()
            let value = try readValue()
            path.removeLast()
            members.append(JSONNode.Member(key: key, keyLocation: keyLocation, value: value))
            try skipWhitespace()
            if peek == UInt8(ascii: ",") {
                advance()
                continue
            }
            if peek == UInt8(ascii: "}") {
                leave()
                return JSONNode(.object(members), at: start)
            }
            if index >= bytes.count {
                throw endOfFile(after: "inside an object")
            }
            throw error("expected ',' or '}' after an object member", fix: "add a comma between members, or close the object with '}'")
        }
    }

    private mutating func readArray() throws(SyntaxError) -> JSONNode {
        let start = here
        try enter()
        advance() // [
        var items: [JSONNode] = []
        try skipWhitespace()
        if peek == UInt8(ascii: "]") {
            leave()
            return JSONNode(.array(items), at: start)
        }
        while true {
            path.append(JSONPath.index(items.count))
            try skipWhitespace()
            path.removeLast()
            if peek == UInt8(ascii: "]") {
                throw error("trailing comma before ']'", fix: "remove the comma after the last element")
            }
            if peek == nil {
                throw endOfFile(after: items.isEmpty ? "inside an array" : "after a comma")
            }
            path.append(JSONPath.index(items.count))
            let item = try readValue()
            path.removeLast()
            items.append(item)
            try skipWhitespace()
            if peek == UInt8(ascii: ",") {
                advance()
                continue
            }
            if peek == UInt8(ascii: "]") {
                leave()
                return JSONNode(.array(items), at: start)
            }
            if index >= bytes.count {
                throw endOfFile(after: "inside an array")
            }
            throw error("expected ',' or ']' after an array element", fix: "add a comma between elements, or close the array with ']'")
        }
    }

    private mutating func readLiteral(_ word: String) throws(SyntaxError) {
        for expected in word.utf8 {
            guard peek == expected else {
                throw error("invalid literal, expected \(word)", fix: "write true, false or null in lower case, or quote the text")
            }
            advance()
        }
    }

    private mutating func readNumber() throws(SyntaxError) -> String {
        let startIndex = index
        if peek == UInt8(ascii: "-") { advance() }
        guard let first = peek, isDigit(first) else {
            throw error("invalid number", fix: "write numbers like 42, -1 or 3.5")
        }
        advance()
        if first == UInt8(ascii: "0"), let next = peek, isDigit(next) {
            throw error("numbers must not have leading zeros", fix: "remove the leading zero, or quote the value")
        }
        while let c = peek, isDigit(c) { advance() }
        if peek == UInt8(ascii: ".") {
            advance()
            guard let c = peek, isDigit(c) else { throw error("expected a digit after the decimal point", fix: "write numbers like 3.5") }
            while let c = peek, isDigit(c) { advance() }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            advance()
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { advance() }
            guard let c = peek, isDigit(c) else { throw error("expected a digit in the exponent", fix: "write exponents like 1e6") }
            while let c = peek, isDigit(c) { advance() }
        }
        return String(decoding: bytes[startIndex..<index], as: UTF8.self)
    }

    private mutating func readString() throws(SyntaxError) -> String {
        let opened = here
        advance() // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ reader: JSONReader, _ scalars: inout String.UnicodeScalarView, upTo end: Int) {
            if runStart < end {
                scalars.append(contentsOf: String(decoding: reader.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let c = peek else {
                throw error("unterminated string (opened at \(opened.line):\(opened.column))", fix: "close the string with a double quote")
            }
            if c == UInt8(ascii: "\"") {
                flush(self, &scalars, upTo: index)
                advance()
                return String(scalars)
            }
            if c == 0x0A || c == 0x0D {
                // CR LF too: a string left open at the end of its line, not a stray control character.
                throw error("the string opened at \(opened.line):\(opened.column) is not closed before the end of its line", fix: "close it with a double quote on the same line; a line break inside a value is written \\n")
            }
            if c < 0x20 {
                throw error("control character \(describeByte(c)) inside a string", fix: "escape it as \\u00\(String(format: "%02X", c))")
            }
            if c == UInt8(ascii: "\\") {
                flush(self, &scalars, upTo: index)
                advance()
                guard let e = peek else { throw error("unterminated escape", fix: "complete the escape sequence") }
                switch e {
                case UInt8(ascii: "\""): scalars.append("\""); advance()
                case UInt8(ascii: "\\"): scalars.append("\\"); advance()
                case UInt8(ascii: "/"): scalars.append("/"); advance()
                case UInt8(ascii: "b"): scalars.append("\u{08}"); advance()
                case UInt8(ascii: "f"): scalars.append("\u{0C}"); advance()
                case UInt8(ascii: "n"): scalars.append("\n"); advance()
                case UInt8(ascii: "r"): scalars.append("\r"); advance()
                case UInt8(ascii: "t"): scalars.append("\t"); advance()
                case UInt8(ascii: "u"):
                    advance()
                    let unit = try readHex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate in \\u escape", fix: "follow a high surrogate with \\uDC00-\\uDFFF") }
                        advance()
                        guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate in \\u escape", fix: "follow a high surrogate with \\uDC00-\\uDFFF") }
                        advance()
                        let low = try readHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", fix: "follow a high surrogate with \\uDC00-\\uDFFF") }
                        let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        scalars.append(Unicode.Scalar(value)!)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        throw error("unpaired surrogate in \\u escape", fix: "a low surrogate must follow a high one")
                    } else {
                        scalars.append(Unicode.Scalar(unit)!)
                    }
                default:
                    throw error("invalid escape \\\(describeByte(e))", fix: "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                }
                runStart = index
                continue
            }
            advance()
        }
    }

    private mutating func readHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = peek, let digit = hexValue(c) else {
                throw error("expected four hex digits after \\u", fix: "write \\u followed by four hex digits, e.g. \\u00e9")
            }
            value = value * 16 + digit
            advance()
        }
        return value
    }

    // MARK: - Bytes

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func advance() {
        let c = bytes[index]
        index += 1
        if c == 0x0A {
            line += 1
            column = 1
        } else if c & 0xC0 != 0x80 {
            // Continuation bytes of a UTF-8 sequence do not start a new column.
            column += 1
        }
    }

    /// Skips whitespace between tokens, and refuses a comment there: editors and other
    /// formats (JSONC, JSON5) allow them, JSON does not.
    private mutating func skipWhitespace() throws(SyntaxError) {
        while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { advance() }
        if peek == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*") {
            let style = bytes[index + 1] == UInt8(ascii: "/") ? "//" : "/* */"
            throw error("a \(style) comment: JSON has no comments", fix: "remove it; say why in the step's \"note\" or in the spec's \"decisions\" list")
        }
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private func describeByte(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return String(format: "0x%02X", c)
    }
}
