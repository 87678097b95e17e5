import Foundation

/// A small JSON Schema (2020-12 subset) validator for tests, independent of the code under test.
///
/// It knows exactly the keywords `Tests/Drivers/protocol.schema.json` uses: `$ref` (local
/// `#/...` pointers only), `oneOf`, `type`, `const`, `enum`, `required`, `properties`,
/// `additionalProperties`, `minProperties`, `items`, `uniqueItems`, `minLength` (counted in
/// Unicode scalars, as the specification counts code points), `minimum`, `pattern` (an
/// unanchored `NSRegularExpression` search) and `if`/`then`. The annotations `$schema`, `$id`,
/// `title`, `description`, `format` and `$defs` are ignored (but every schema under `$defs` is checked).
/// Any other keyword anywhere in the schema makes `init` throw, naming it and where it is: a
/// schema change this validator does not understand fails loudly rather than passing silently.
///
/// Booleans and numbers are kept apart, on Linux too, where `JSONSerialization` gives both as
/// `NSNumber` and `NSNumber(1) as? Bool` succeeds: a JSON `true` is not `1`, not an integer and
/// not a number, and `1` is not a boolean.
struct MiniJSONSchema: Sendable {
    /// A JSON value with booleans, integers and other numbers told apart.
    indirect enum Value: Sendable, Equatable, CustomStringConvertible {
        case null
        case bool(Bool)
        case integer(Int)
        case number(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        /// JSON Schema equality: `1 == 1.0`, `true != 1`, strings by code point, objects
        /// regardless of key order.
        static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.bool(x), .bool(y)): return x == y
            case let (.integer(x), .integer(y)): return x == y
            case let (.number(x), .number(y)): return x == y
            case let (.integer(x), .number(y)), let (.number(y), .integer(x)): return Int(exactly: y) == x
            case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
            case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { $0 == $1 }
            case let (.object(x), .object(y)):
                return x.count == y.count && x.allSatisfy { key, value in y[key].map { $0 == value } ?? false }
            default: return false
            }
        }

        /// The JSON Schema type name; a number with no fractional part is an `integer`.
        var typeName: String {
            switch self {
            case .null: return "null"
            case .bool: return "boolean"
            case .integer: return "integer"
            case let .number(d): return d.isFinite && d.rounded() == d ? "integer" : "number"
            case .string: return "string"
            case .array: return "array"
            case .object: return "object"
            }
        }

        var asDouble: Double? {
            switch self {
            case let .integer(i): return Double(i)
            case let .number(d): return d
            default: return nil
            }
        }

        /// Compact JSON, for messages.
        var description: String {
            switch self {
            case .null: return "null"
            case let .bool(b): return b ? "true" : "false"
            case let .integer(i): return String(i)
            case let .number(d): return String(d)
            case let .string(s): return Value.quoted(s)
            case let .array(a): return "[" + a.map(\.description).joined(separator: ",") + "]"
            case let .object(o):
                return "{" + o.keys.sorted().map { "\(Value.quoted($0)):\(o[$0]!.description)" }.joined(separator: ",") + "}"
            }
        }

        static func quoted(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        out += String(format: "\\u%04x", scalar.value)
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
    }

    /// Why a schema was refused, or why an instance could not be read as JSON.
    struct Problem: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// `format` is an annotation in 2020-12 unless a vocabulary asserts it (the report schema's
    /// `date-time` is also held by its `pattern`).
    static let annotationKeywords: Set<String> = ["$schema", "$id", "title", "description", "$defs", "format"]
    static let supportedKeywords: Set<String> = [
        "$ref", "oneOf", "type", "const", "enum", "required", "properties", "additionalProperties",
        "minProperties", "items", "uniqueItems", "minLength", "minimum", "pattern", "if", "then",
    ]
    static let typeNames: Set<String> = ["object", "array", "string", "integer", "number", "boolean", "null"]
    /// Nested `$ref`s and sub-schemas deeper than this are reported, not followed for ever.
    static let maximumDepth = 200

    /// The whole schema document.
    let root: Value

    /// Reads a schema file's bytes. Throws if it is not JSON, uses a keyword this validator
    /// does not know, has a malformed keyword value, a `$ref` that is not local or does not
    /// resolve, or a `pattern` that does not compile.
    init(data: Data) throws {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw Problem(description: "the schema is not JSON: \(error)")
        }
        let value = try Self.value(from: parsed, path: "")
        root = value
        try audit(value, at: "#")
    }

    /// Reads a schema from JSON text.
    init(json: String) throws {
        try self.init(data: Data(json.utf8))
    }

    /// Reads a schema file.
    init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url))
    }

    /// Every way `instance` fails the schema at `pointer` (`#` is the whole document,
    /// `#/$defs/fromDriver` one definition), each naming the instance path (`(root)`,
    /// `/driver/name`, `/capabilities/0`) and the schema location; empty means valid.
    /// `instance` is what `JSONSerialization` returns, or the same built from Swift values
    /// (`[String: Any]`, `[Any]`, `String`, `Bool`, `Int`, `Double`, `NSNull`, `NSNumber`).
    func errors(_ instance: Any, against pointer: String = "#") -> [String] {
        guard let schema = resolve(pointer) else {
            return ["schema pointer \(pointer) does not resolve in this schema"]
        }
        let value: Value
        do {
            value = try Self.value(from: instance, path: "")
        } catch {
            return ["\(error)"]
        }
        var out: [String] = []
        validate(value, schema, instancePath: "", schemaPath: pointer, depth: 0, into: &out)
        return out
    }

    /// The same for JSON text (parsed with `JSONSerialization`, fragments allowed).
    func errors(json: String, against pointer: String = "#") -> [String] {
        do {
            let instance = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
            return errors(instance, against: pointer)
        } catch {
            return ["(root): not JSON: \(error)"]
        }
    }

    // MARK: - Reading Foundation values

    /// Converts `JSONSerialization` output (or equivalent Swift values) to a `Value`.
    static func value(from input: Any, path: String) throws -> Value {
        // Swift's own scalar types first, by exact type: on Linux `NSNumber(1) as? Bool`
        // succeeds, and `Int8` would look like a boolean to `objCType`.
        let kind = type(of: input)
        if kind == Bool.self, let b = input as? Bool { return .bool(b) }
        if kind is any BinaryInteger.Type, let i = input as? any BinaryInteger {
            if let exact = Int(exactly: i) { return .integer(exact) }
            return .number(Double(i))
        }
        if kind is any BinaryFloatingPoint.Type, let f = input as? any BinaryFloatingPoint {
            let d = Double(f)
            guard d.isFinite else { throw Problem(description: "\(display(path)): \(d) is not a JSON number") }
            return .number(d)
        }
        if let s = input as? String { return .string(s) }
        if input is NSNull { return .null }
        if let n = input as? NSNumber {
            // JSONSerialization's booleans are NSNumbers of objCType "c" (char), "B" for C bool.
            let objCType = String(cString: n.objCType)
            switch objCType {
            case "c", "B":
                return .bool(n.boolValue)
            case "d", "f":
                let d = n.doubleValue
                guard d.isFinite else { throw Problem(description: "\(display(path)): \(d) is not a JSON number") }
                return .number(d)
            case "Q", "L", "I", "S", "C":
                let u = n.uint64Value
                return u <= UInt64(Int.max) ? .integer(Int(u)) : .number(n.doubleValue)
            default:
                return .integer(n.intValue)
            }
        }
        if let dictionary = input as? [String: Any] {
            var object: [String: Value] = [:]
            for (key, element) in dictionary {
                object[key] = try value(from: element, path: path + "/" + escape(key))
            }
            return .object(object)
        }
        if let array = input as? [Any] {
            return .array(try array.enumerated().map { try value(from: $1, path: path + "/\($0)") })
        }
        let mirror = Mirror(reflecting: input)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try value(from: wrapped, path: path)
        }
        throw Problem(description: "\(display(path)): a \(kind) is not a JSON value")
    }

    // MARK: - Pointers

    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func display(_ instancePath: String) -> String {
        instancePath.isEmpty ? "(root)" : instancePath
    }

    /// The value at a local pointer (`#`, `#/$defs/x`), or nil.
    func resolve(_ pointer: String) -> Value? {
        guard pointer.hasPrefix("#") else { return nil }
        let fragment = String(pointer.dropFirst())
        guard let decoded = fragment.removingPercentEncoding else { return nil }
        if decoded.isEmpty { return root }
        guard decoded.hasPrefix("/") else { return nil }
        var current = root
        for raw in decoded.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case let .object(o):
                guard let next = o[token] else { return nil }
                current = next
            case let .array(a):
                guard let index = Int(token), a.indices.contains(index) else { return nil }
                current = a[index]
            default:
                return nil
            }
        }
        return current
    }

    // MARK: - Checking the schema itself

    private func audit(_ schema: Value, at path: String) throws {
        func fail(_ message: String) -> Problem { Problem(description: "\(path): \(message)") }
        let keywords: [String: Value]
        switch schema {
        case .bool: return
        case let .object(o): keywords = o
        default: throw fail("a schema must be an object or a boolean, not \(schema.typeName) \(schema)")
        }
        for key in keywords.keys.sorted() {
            let value = keywords[key]!
            let here = path + "/" + Self.escape(key)
            func bad(_ expected: String) -> Problem {
                Problem(description: "\(here): \(key) must be \(expected), not \(value)")
            }
            if Self.annotationKeywords.contains(key) {
                if key == "$defs" {
                    guard case let .object(definitions) = value else { throw bad("an object of schemas") }
                    for name in definitions.keys.sorted() {
                        try audit(definitions[name]!, at: here + "/" + Self.escape(name))
                    }
                }
                continue
            }
            guard Self.supportedKeywords.contains(key) else {
                throw Problem(description: "\(path): unsupported keyword \"\(key)\" (MiniJSONSchema knows only \(Self.supportedKeywords.sorted().joined(separator: ", ")); teach it the keyword before the schema uses it)")
            }
            switch key {
            case "$ref":
                guard case let .string(reference) = value, reference.hasPrefix("#") else { throw bad("a local reference starting with #") }
                guard resolve(reference) != nil else { throw Problem(description: "\(here): \(reference) does not resolve in this schema") }
            case "oneOf":
                guard case let .array(alternatives) = value, !alternatives.isEmpty else { throw bad("a non-empty array of schemas") }
                for (index, alternative) in alternatives.enumerated() { try audit(alternative, at: here + "/\(index)") }
            case "type":
                switch value {
                case let .string(name) where Self.typeNames.contains(name): break
                case let .array(names) where !names.isEmpty && names.allSatisfy({ if case let .string(n) = $0 { Self.typeNames.contains(n) } else { false } }): break
                default: throw bad("one of \(Self.typeNames.sorted().joined(separator: ", ")) or an array of them")
                }
            case "const": break
            case "enum":
                guard case let .array(members) = value, !members.isEmpty else { throw bad("a non-empty array") }
            case "required":
                guard case let .array(names) = value, names.allSatisfy({ if case .string = $0 { true } else { false } }) else { throw bad("an array of strings") }
            case "properties":
                guard case let .object(properties) = value else { throw bad("an object of schemas") }
                for name in properties.keys.sorted() { try audit(properties[name]!, at: here + "/" + Self.escape(name)) }
            case "additionalProperties", "items", "if", "then":
                try audit(value, at: here)
            case "minProperties", "minLength":
                guard let count = Self.nonNegativeInteger(value) else { throw bad("a non-negative integer") }
                _ = count
            case "uniqueItems":
                guard case .bool = value else { throw bad("a boolean") }
            case "minimum":
                guard value.asDouble != nil else { throw bad("a number") }
            case "pattern":
                guard case let .string(pattern) = value else { throw bad("a string") }
                do { _ = try NSRegularExpression(pattern: pattern) } catch {
                    throw Problem(description: "\(here): /\(pattern)/ does not compile: \(error)")
                }
            default:
                throw Problem(description: "\(here): keyword \"\(key)\" is listed as supported but has no check")
            }
        }
    }

    private static func nonNegativeInteger(_ value: Value) -> Int? {
        switch value {
        case let .integer(i) where i >= 0: return i
        case let .number(d) where d >= 0 && d.rounded() == d: return Int(exactly: d)
        default: return nil
        }
    }

    // MARK: - Validation

    private func validate(_ instance: Value, _ schema: Value, instancePath: String, schemaPath: String, depth: Int, into out: inout [String]) {
        let at = Self.display(instancePath)
        guard depth <= Self.maximumDepth else {
            out.append("\(at): schema nesting deeper than \(Self.maximumDepth) at \(schemaPath) (a $ref loop?)")
            return
        }
        let keywords: [String: Value]
        switch schema {
        case .bool(true): return
        case .bool(false):
            out.append("\(at): no value is allowed here (\(schemaPath) is false)")
            return
        case let .object(o): keywords = o
        default:
            out.append("\(at): \(schemaPath) is not a schema")
            return
        }
        func here(_ keyword: String) -> String { schemaPath + "/" + Self.escape(keyword) }

        if case let .string(reference)? = keywords["$ref"] {
            if let target = resolve(reference) {
                validate(instance, target, instancePath: instancePath, schemaPath: reference, depth: depth + 1, into: &out)
            } else {
                out.append("\(at): \(reference) does not resolve (\(here("$ref")))")
            }
        }

        if let type = keywords["type"] {
            let allowed: [String]
            switch type {
            case let .string(name): allowed = [name]
            case let .array(names): allowed = names.compactMap { if case let .string(n) = $0 { n } else { nil } }
            default: allowed = []
            }
            if !allowed.contains(where: { Self.instance(instance, is: $0) }) {
                out.append("\(at): expected type \(allowed.joined(separator: " or ")), got \(instance.typeName) \(Self.short(instance)) (\(here("type")))")
            }
        }

        if let constant = keywords["const"], instance != constant {
            out.append("\(at): expected the constant \(Self.short(constant)), got \(instance.typeName) \(Self.short(instance)) (\(here("const")))")
        }

        if case let .array(members)? = keywords["enum"], !members.contains(where: { $0 == instance }) {
            out.append("\(at): expected one of \(members.map { Self.short($0) }.joined(separator: ", ")), got \(instance.typeName) \(Self.short(instance)) (\(here("enum")))")
        }

        if case let .object(object) = instance {
            if case let .array(names)? = keywords["required"] {
                for case let .string(name) in names where object[name] == nil {
                    out.append("\(at): missing required property \(Value.quoted(name)) (\(here("required")))")
                }
            }
            var declared: [String: Value] = [:]
            if case let .object(properties)? = keywords["properties"] {
                declared = properties
                for name in properties.keys.sorted() {
                    guard let member = object[name] else { continue }
                    validate(member, properties[name]!, instancePath: instancePath + "/" + Self.escape(name),
                             schemaPath: here("properties") + "/" + Self.escape(name), depth: depth + 1, into: &out)
                }
            }
            if let additional = keywords["additionalProperties"] {
                for name in object.keys.sorted() where declared[name] == nil {
                    if case .bool(false) = additional {
                        out.append("\(at): property \(Value.quoted(name)) is not allowed (\(here("additionalProperties")) is false)")
                    } else {
                        validate(object[name]!, additional, instancePath: instancePath + "/" + Self.escape(name),
                                 schemaPath: here("additionalProperties"), depth: depth + 1, into: &out)
                    }
                }
            }
            if let minimum = keywords["minProperties"].flatMap(Self.nonNegativeInteger), object.count < minimum {
                out.append("\(at): expected at least \(minimum) propert\(minimum == 1 ? "y" : "ies"), got \(object.count) (\(here("minProperties")))")
            }
        }

        if case let .array(elements) = instance {
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() {
                    validate(element, items, instancePath: instancePath + "/\(index)", schemaPath: here("items"), depth: depth + 1, into: &out)
                }
            }
            if case .bool(true)? = keywords["uniqueItems"] {
                outer: for i in elements.indices {
                    for j in elements.indices where j > i && elements[i] == elements[j] {
                        out.append("\(at): items \(i) and \(j) are equal (\(Self.short(elements[i]))) but must be unique (\(here("uniqueItems")))")
                        break outer
                    }
                }
            }
        }

        if case let .string(string) = instance {
            if let minimum = keywords["minLength"].flatMap(Self.nonNegativeInteger), string.unicodeScalars.count < minimum {
                out.append("\(at): expected at least \(minimum) character\(minimum == 1 ? "" : "s"), got \(string.unicodeScalars.count) in \(Self.short(instance)) (\(here("minLength")))")
            }
            if case let .string(pattern)? = keywords["pattern"] {
                if let regex = try? NSRegularExpression(pattern: pattern) {
                    let range = NSRange(string.startIndex..<string.endIndex, in: string)
                    if regex.firstMatch(in: string, options: [], range: range) == nil {
                        out.append("\(at): \(Self.short(instance)) does not match /\(pattern)/ (\(here("pattern")))")
                    }
                } else {
                    out.append("\(at): /\(pattern)/ does not compile (\(here("pattern")))")
                }
            }
        }

        if let number = instance.asDouble, let minimum = keywords["minimum"] {
            let below: Bool
            switch (instance, minimum) {
            case let (.integer(x), .integer(m)): below = x < m
            default: below = number < (minimum.asDouble ?? -.infinity)
            }
            if below {
                out.append("\(at): expected at least \(minimum), got \(instance) (\(here("minimum")))")
            }
        }

        if case let .array(alternatives)? = keywords["oneOf"] {
            var results: [(label: String, errors: [String])] = []
            for (index, alternative) in alternatives.enumerated() {
                var branch: [String] = []
                let path = here("oneOf") + "/\(index)"
                validate(instance, alternative, instancePath: instancePath, schemaPath: path, depth: depth + 1, into: &branch)
                var label = path
                if case let .object(o) = alternative, o.count == 1, case let .string(reference)? = o["$ref"] { label = reference }
                results.append((label, branch))
            }
            let matching = results.filter { $0.errors.isEmpty }
            if matching.isEmpty {
                out.append("\(at): matches none of the \(alternatives.count) alternatives of \(here("oneOf")); the closest:")
                let fewest = results.map(\.errors.count).min() ?? 0
                for result in results where result.errors.count == fewest {
                    out.append(contentsOf: result.errors.map { "  under \(result.label): \($0)" })
                }
            } else if matching.count > 1 {
                out.append("\(at): matches \(matching.count) alternatives of \(here("oneOf")) (\(matching.map(\.label).joined(separator: ", "))) but exactly one must match")
            }
        }

        if let condition = keywords["if"] {
            var conditionErrors: [String] = []
            validate(instance, condition, instancePath: instancePath, schemaPath: here("if"), depth: depth + 1, into: &conditionErrors)
            if conditionErrors.isEmpty, let consequence = keywords["then"] {
                validate(instance, consequence, instancePath: instancePath, schemaPath: here("then"), depth: depth + 1, into: &out)
            }
        }
    }

    private static func instance(_ value: Value, is typeName: String) -> Bool {
        switch typeName {
        case "number": return value.asDouble != nil
        default: return value.typeName == typeName
        }
    }

    /// A value for a message, cut short if long.
    private static func short(_ value: Value) -> String {
        let text = value.description
        guard text.count > 80 else { return text }
        return String(text.prefix(77)) + "..."
    }
}
