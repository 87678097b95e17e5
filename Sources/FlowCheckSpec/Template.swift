/// A string that may refer to captured variables as `${name}`.
public struct Template: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case variable(String)
    }

    /// A mistake in the `${...}` syntax. The loader refuses a spec with one, at its place; a
    /// template built elsewhere keeps the text as written (an unclosed `${` stays literal).
    public enum Problem: Sendable, Equatable {
        /// `${` with no `}` after it, at this character offset.
        case unclosed(at: Int)
        /// `${}`, at this character offset: a variable with no name.
        case emptyName(at: Int)
    }

    let parts: [Part]
    public let raw: String
    /// Every syntax mistake, in order.
    public let problems: [Problem]

    /// Parses `${name}` references; `$${` stands for a literal `${`.
    public init(_ raw: String) {
        self.raw = raw
        var parts: [Part] = []
        var problems: [Problem] = []
        var literal = ""
        var rest = Substring(raw)
        while let range = rest.range(of: "${") {
            if range.lowerBound > rest.startIndex, rest[rest.index(before: range.lowerBound)] == "$" {
                literal += rest[rest.startIndex..<rest.index(before: range.lowerBound)] + "${"
                rest = rest[range.upperBound...]
                continue
            }
            let offset = raw.distance(from: raw.startIndex, to: range.lowerBound)
            guard let close = rest[range.upperBound...].firstIndex(of: "}") else {
                problems.append(.unclosed(at: offset))
                break
            }
            if close == range.upperBound { problems.append(.emptyName(at: offset)) }
            literal += rest[rest.startIndex..<range.lowerBound]
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.variable(String(rest[range.upperBound..<close])))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.problems = problems
    }

    /// The names referred to, in order.
    public var variables: [String] {
        parts.compactMap { if case .variable(let name) = $0 { return name } else { return nil } }
    }

    /// The text with every known variable substituted (an unknown one stays as written).
    public func render(_ variables: [String: String]) -> String {
        parts.map { part in
            switch part {
            case .literal(let s): return s
            case .variable(let name): return variables[name] ?? "${\(name)}"
            }
        }.joined()
    }

    /// The raw text in double quotes, for reports.
    public var quoted: String { "\"\(raw)\"" }
}
