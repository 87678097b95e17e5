import Foundation

/// A parsed JSON document.
///
/// Used instead of `JSONSerialization` so values are `Sendable` and booleans are never confused
/// with numbers (`NSNumber` bridging would read `1` as `true`).
enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `data`, returning nil when it is not JSON.
    static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The member named `key` when this is an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self {
            return members[key]
        }
        return nil
    }

    /// The object's members, when this is an object.
    var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, when this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, when this is a string.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when this is a boolean.
    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is a number or a string holding a decimal number (some servers
    /// quote their timestamps).
    var numberValue: Double? {
        switch self {
        case .number(let value):
            return value
        case .string(let text):
            return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default:
            return nil
        }
    }

    /// A string, or an integral number written without a fraction: for identifiers that some
    /// APIs send as numbers.
    var identifierValue: String? {
        switch self {
        case .string(let value):
            return value
        case .number(let value) where value.rounded() == value && abs(value) < 9_007_199_254_740_992:
            return String(Int64(value))
        default:
            return nil
        }
    }
}
