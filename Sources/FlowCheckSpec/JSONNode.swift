/// A 1-based line and column in a spec file. Columns count Unicode scalars, as editors do for text.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A JSON value that remembers where it stood in its file, so every spec error can point at it.
///
/// Foundation's `JSONSerialization` forgets positions and key order; specs need both (positions
/// for diagnostics, order for stable documentation), hence this small reader of our own.
public struct JSONNode: Sendable, Equatable {
    /// One member of an object, with the position of its key.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: JSONNode
    }

    /// The value itself. Numbers keep their source text so nothing is lost to floating point.
    public indirect enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    public var value: Value
    public var location: SourceLocation

    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// The JSON type's name as a spec author would say it ("a string", "an object").
    public var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The members when this is an object.
    public var members: [Member]? {
        if case .object(let members) = value { return members }
        return nil
    }

    /// The scalar as text: strings as they are, numbers and booleans as written. Nil otherwise.
    public var scalarText: String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }
}
