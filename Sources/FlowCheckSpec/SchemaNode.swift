/// A JSON value with ordered keys, for the generated JSON Schema (`flowcheck schema`).
///
/// The schema is produced from code (the provider registry and the check kinds) so it cannot
/// drift from what the loader accepts; key order is kept so the committed file is stable.
public indirect enum SchemaNode: Sendable, Equatable {
    case object([Member])
    case array([SchemaNode])
    case string(String)
    case integer(Int)
    case bool(Bool)

    /// One key and its value.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: SchemaNode

        public init(_ key: String, _ value: SchemaNode) {
            self.key = key
            self.value = value
        }
    }

    /// Pretty-printed JSON, two spaces a level, as the committed schema file is written.
    public func rendered(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .string(let text): return Self.quote(text)
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .array(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy(\.isScalar) { return "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]" }
            return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { inner + Self.quote($0.key) + ": " + $0.value.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .string, .integer, .bool: return true
        case .object, .array: return false
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + SpecText.escaped(text) + "\""
    }
}

// MARK: - Building blocks, so every part of the schema says the same thing the same way

extension SchemaNode {
    /// `{"type": "object", "properties": ..., "required": ..., "additionalProperties": false}`.
    public static func closedObject(_ properties: [(String, SchemaNode)], required: [String] = [], description: String? = nil, minProperties: Int? = nil) -> SchemaNode {
        var members: [Member] = [Member("type", .string("object"))]
        if let description { members.append(Member("description", .string(description))) }
        if let minProperties { members.append(Member("minProperties", .integer(minProperties))) }
        members.append(Member("properties", .object(properties.map { Member($0.0, $0.1) })))
        if !required.isEmpty { members.append(Member("required", .array(required.map(SchemaNode.string)))) }
        members.append(Member("additionalProperties", .bool(false)))
        return .object(members)
    }

    /// A string of at least one character (the loader refuses empty strings).
    public static let nonEmptyString = SchemaNode.object([Member("type", .string("string")), Member("minLength", .integer(1))])

    /// A string.
    public static let anyString = SchemaNode.object([Member("type", .string("string"))])

    /// A fixture secret: at least ``SpecReader/minimumSecretLength`` characters, so reports can mask it.
    public static let secret = SchemaNode.object([
        Member("type", .string("string")), Member("minLength", .integer(SpecReader.minimumSecretLength)),
        Member("description", .string("At least \(SpecReader.minimumSecretLength) characters, so reports can mask it.")),
    ])

    /// A string matching `pattern`.
    public static func pattern(_ pattern: String, description: String? = nil) -> SchemaNode {
        var members = [Member("type", .string("string")), Member("pattern", .string(pattern))]
        if let description { members.append(Member("description", .string(description))) }
        return .object(members)
    }

    /// A whole number in `range`.
    public static func integer(in range: ClosedRange<Int>) -> SchemaNode {
        .object([Member("type", .string("integer")), Member("minimum", .integer(range.lowerBound)), Member("maximum", .integer(range.upperBound))])
    }

    /// An array of `items`.
    public static func array(of items: SchemaNode, minItems: Int? = nil) -> SchemaNode {
        var members = [Member("type", .string("array"))]
        if let minItems { members.append(Member("minItems", .integer(minItems))) }
        members.append(Member("items", items))
        return .object(members)
    }

    /// One of the given strings.
    public static func oneOf(_ values: [String]) -> SchemaNode {
        .object([Member("enum", .array(values.map(SchemaNode.string)))])
    }

    /// A reference into `$defs`.
    public static func ref(_ name: String) -> SchemaNode {
        .object([Member("$ref", .string("#/$defs/\(name)"))])
    }
}
