import Foundation

/// A Sendable JSON tree, so parsed bodies can live inside Sendable requests and numbers keep
/// the exact text the client sent (no Double rounding, no NSNumber Bool/Int confusion).
///
/// A deliberate twin of the SDK's `JSONValue` (docs/architecture.md, "Deliberate twins"): the fake
/// reads what was really sent with a parser of its own, so an SDK JSON bug cannot be mirrored.
/// Named apart so the twins are never mistaken for one another.
public enum FakeJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written in the source (or produced by the encoder).
    case number(String)
    case string(String)
    case array([FakeJSON])
    /// Duplicate keys: the last one wins, as with JSONSerialization.
    case object([String: FakeJSON])

    /// Parses RFC 8259 JSON; nil on any syntax error, invalid UTF-8 or nesting deeper than 256.
    public static func parse(_ bytes: [UInt8]) -> FakeJSON? {
        var reader = JSONReader(bytes: bytes)
        return reader.readDocument()
    }

    /// The first key that appears twice in the top-level object of `data`, if it parses. RFC
    /// 8259 §4 leaves what a repeated name means to the reader; as a request parameter it is
    /// ambiguous (RFC 6749 §3.2), so the fakes refuse it.
    public static func repeatedTopLevelKey(in data: Data) -> String? {
        var reader = JSONReader(bytes: [UInt8](data))
        guard reader.readDocument() != nil else { return nil }
        return reader.repeatedKey
    }

    /// Parses RFC 8259 JSON from `data`.
    public static func parse(_ data: Data) -> FakeJSON? {
        parse([UInt8](data))
    }

    /// Converts Foundation-style values (`String`, `Bool`, integers, `Double`, arrays,
    /// `[String: Any]`, `NSNull`, `FakeJSON`, nil) so responses can be written as literals.
    /// Anything else becomes its `String(describing:)` text.
    public init(any value: Any?) {
        guard let value else { self = .null; return }
        switch value {
        case let json as FakeJSON: self = json
        case let bool as Bool: self = .bool(bool)
        case let int as Int: self = .number(String(int))
        case let int as Int64: self = .number(String(int))
        case let int as Int32: self = .number(String(int))
        case let int as UInt: self = .number(String(int))
        case let int as UInt64: self = .number(String(int))
        case let double as Double: self = double.isFinite ? .number(FakeJSON.render(double)) : .null
        case let string as String: self = .string(string)
        case let array as [Any?]: self = .array(array.map { FakeJSON(any: $0) })
        case let array as [Any]: self = .array(array.map { FakeJSON(any: $0) })
        case let object as [String: Any?]: self = .object(object.mapValues { FakeJSON(any: $0) })
        case let object as [String: Any]: self = .object(object.mapValues { FakeJSON(any: $0) })
        // Last: on Linux, testing a Swift collection against a class bridges it to NSArray or
        // NSDictionary first, which cost more than the rest of a request put together.
        case is NSNull: self = .null
        default: self = .string(String(describing: value))
        }
    }

    /// Compact JSON text with object keys sorted, so output is byte-for-byte reproducible.
    public var compactText: String {
        var out = ""
        write(into: &out)
        return out
    }

    /// The value as a string for flat field comparisons: strings as-is, everything else as
    /// its compact JSON text (`3600`, `true`, `null`, `{"a":1}`).
    public var fieldText: String {
        if case .string(let string) = self { return string }
        return compactText
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let bool): out += bool ? "true" : "false"
        case .number(let text): out += text
        case .string(let string): FakeJSON.writeString(string, into: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                FakeJSON.writeString(key, into: &out)
                out += ":"
                fields[key, default: .null].write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func render(_ double: Double) -> String {
        if double == double.rounded(), abs(double) < 1e15 {
            return String(Int64(double))
        }
        return String(double)
    }
}

/// Recursive-descent reader over bytes; every access is bounds-checked so it cannot trap.
private struct JSONReader {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    /// The first key repeated in the top-level object.
    var repeatedKey: String?
    static let maxDepth = 256

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func readDocument() -> FakeJSON? {
        skipWhitespace()
        guard let value = readValue() else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
    }

    private mutating func readValue() -> FakeJSON? {
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return readObject()
        case UInt8(ascii: "["): return readArray()
        case UInt8(ascii: "\""): return readString().map(FakeJSON.string)
        case UInt8(ascii: "t"): return readLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return readLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return readLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return readNumber()
        default: return nil
        }
    }

    private mutating func readLiteral(_ word: String, _ value: FakeJSON) -> FakeJSON? {
        for expected in word.utf8 {
            guard current == expected else { return nil }
            index += 1
        }
        return value
    }

    private mutating func readObject() -> FakeJSON? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONReader.maxDepth else { return nil }
        index += 1
        var fields: [String: FakeJSON] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = readString() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard let value = readValue() else { return nil }
            if depth == 1, repeatedKey == nil, fields[key] != nil { repeatedKey = key }
            fields[key] = value
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(fields)
            default: return nil
            }
        }
    }

    private mutating func readArray() -> FakeJSON? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONReader.maxDepth else { return nil }
        index += 1
        var items: [FakeJSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            guard let value = readValue() else { return nil }
            items.append(value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: return nil
            }
        }
    }

    private mutating func readNumber() -> FakeJSON? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return nil }
        index += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, isDigit(byte) else { return nil }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { return nil }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Reads a string starting at the opening quote; nil on bad escapes, raw control
    /// characters, lone surrogates or invalid UTF-8.
    private mutating func readString() -> String? {
        index += 1
        var out: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(bytes: out, encoding: .utf8)
            case UInt8(ascii: "\\"):
                guard let escape = current else { return nil }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = readUnicodeEscape() else { return nil }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                out.append(byte)
            }
        }
        return nil
    }

    /// Reads the XXXX after `\u`, pairing surrogates.
    private mutating func readUnicodeEscape() -> Unicode.Scalar? {
        guard let high = readHex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard current == UInt8(ascii: "\\") else { return nil }
            index += 1
            guard current == UInt8(ascii: "u") else { return nil }
            index += 1
            guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func readHex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { return nil }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
