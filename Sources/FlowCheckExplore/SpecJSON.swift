import FlowCheckSpec

/// A JSON value with its object keys in the order written, printed the way the committed specs
/// are (two-space indent, `"key": value`): an explored flow is an ordinary spec file, byte for
/// byte the same for the same seed.
public indirect enum SpecJSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([SpecJSON])
    case object([(String, SpecJSON)])

    public static func == (lhs: SpecJSON, rhs: SpecJSON) -> Bool {
        lhs.pretty() == rhs.pretty()
    }

    /// The value as pretty-printed JSON text, ending without a newline.
    public func pretty(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch self {
        case .string(let text): return Self.quoted(text)
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.pretty(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { inner + Self.quoted($0.0) + ": " + $0.1.pretty(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7), escaped as the loader's diagnostics escape.
    static func quoted(_ text: String) -> String {
        "\"" + FlowCheckSpec.SpecText.escaped(text) + "\""
    }
}

extension SpecJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Builds the pieces of an explored spec.
public enum SpecText {
    /// A duration as `advanceClock` writes it: `1h2m3s`, `59m1s`, `90s` reads as `1m30s`.
    public static func duration(_ seconds: Int) -> String {
        precondition(seconds > 0, "a clock jump moves forward")
        let hours = seconds / 3600, minutes = seconds % 3600 / 60, rest = seconds % 60
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if rest > 0 { text += "\(rest)s" }
        return text
    }

    /// The requirement ids the invariants cite, once each, in invariant order.
    static let explorationRequirements: [String] = Invariant.allCases.flatMap(\.requirements).reduce(into: []) { ids, id in
        if !ids.contains(id) { ids.append(id) }
    }

    /// A whole spec: the top-level keys in the order the committed specs use.
    public static func spec(id: String, title: String, summary: String, seed: String, passage: String, provider: String, fixture: SpecJSON, decisions: [String], steps: [SpecJSON]) -> SpecJSON {
        .object([
            ("$schema", "../flowcheck.schema.json"),
            ("id", .string(id)),
            ("title", .string(title)),
            ("summary", .string(summary)),
            ("source", .object([("seed", .string(seed)), ("passage", .string(passage))])),
            // What an explored flow checks: the invariants, on every step.
            ("requirements", .array(explorationRequirements.map(SpecJSON.string))),
            ("provider", .string(provider)),
            ("fixture", fixture),
            ("decisions", .array(decisions.map(SpecJSON.string))),
            ("steps", .array(steps)),
        ])
    }
}
