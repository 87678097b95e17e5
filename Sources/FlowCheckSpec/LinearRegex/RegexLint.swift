/// A pattern shape that FlowCheck matches in linear time but a backtracking engine
/// (NSRegularExpression, PCRE, JavaScript, Java) may take exponential time on.
public struct RegexWarning: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `(a+)+`, `(a*)*`, `(a+b?)*`: a repetition of a repetition.
        case nestedQuantifier
        /// `(a|a)*`, `(a|ab)+`: repeated alternatives that can start with the same character.
        case overlappingAlternatives
    }

    public var kind: Kind
    /// The outer quantifier's place, in Unicode scalars from 0.
    public var offset: Int

    /// `nested quantifier in /(a+)+$/ at character 5: ...`.
    public func title(pattern: String) -> String {
        let shape: String
        switch kind {
        case .nestedQuantifier: shape = "nested quantifier"
        case .overlappingAlternatives: shape = "repeated alternatives that can match the same text"
        }
        return "\(shape) in /\(pattern)/ at character \(offset + 1): linear in FlowCheck, exponential in a backtracking engine"
    }

    public var fix: String {
        switch kind {
        case .nestedQuantifier: return "repeat once, e.g. (a+)+ as a+, so the spec stays safe if its patterns are ported to NSRegularExpression, PCRE or JavaScript"
        case .overlappingAlternatives: return "make the alternatives start differently, e.g. (a|ab)* as (ab?)*, so the spec stays safe if its patterns are ported to a backtracking engine"
        }
    }
}

/// Finds ``RegexWarning`` shapes in a parsed pattern. A heuristic: it flags the classic
/// catastrophic shapes and leaves separated repetitions such as `([a-z]+-)*` alone.
enum RegexLint {
    static func warnings(in node: RegexNode) -> [RegexWarning] {
        var found: [RegexWarning] = []
        visit(node, &found)
        return found
    }

    private static func visit(_ node: RegexNode, _ found: inout [RegexWarning]) {
        switch node {
        case .empty, .scalar, .set, .assertion: break
        case .concatenation(let items), .alternation(let items): for item in items { visit(item, &found) }
        case .group(let inner): visit(inner, &found)
        case .repetition(let body, _, let max, let offset):
            if repeatsMoreThanOnce(max) {
                if isRepetitionSpine(body) {
                    found.append(RegexWarning(kind: .nestedQuantifier, offset: offset))
                } else if hasOverlappingAlternatives(body) {
                    found.append(RegexWarning(kind: .overlappingAlternatives, offset: offset))
                }
            }
            visit(body, &found)
        }
    }

    private static func repeatsMoreThanOnce(_ max: Int?) -> Bool { max.map { $0 > 1 } ?? true }

    /// Whether the node is, apart from optional parts, a repetition that may repeat more than once.
    private static func isRepetitionSpine(_ node: RegexNode) -> Bool {
        switch node {
        case .group(let inner): return isRepetitionSpine(inner)
        case .repetition(_, _, let max, _): return repeatsMoreThanOnce(max)
        case .alternation(let branches): return branches.contains(where: isRepetitionSpine)
        case .concatenation(let items):
            return items.contains(where: isRepetitionSpine) && items.allSatisfy { isRepetitionSpine($0) || isOptional($0) }
        case .empty, .scalar, .set, .assertion: return false
        }
    }

    private static func isOptional(_ node: RegexNode) -> Bool {
        switch node {
        case .empty, .assertion: return true
        case .repetition(_, let min, _, _): return min == 0
        case .group(let inner): return isOptional(inner)
        case .scalar, .set, .concatenation, .alternation: return false
        }
    }

    private static func hasOverlappingAlternatives(_ node: RegexNode) -> Bool {
        switch node {
        case .group(let inner): return hasOverlappingAlternatives(inner)
        case .alternation(let branches):
            let firsts = branches.map(firstScalars)
            for i in firsts.indices {
                for j in firsts.indices where j > i {
                    if let a = firsts[i], let b = firsts[j], overlaps(a, b) { return true }
                }
            }
            return false
        case .empty, .scalar, .set, .assertion, .concatenation, .repetition: return false
        }
    }

    /// The scalars a match of `node` can start with, when that is a plain list of ranges.
    private static func firstScalars(_ node: RegexNode) -> [ClosedRange<UInt32>]? {
        switch node {
        case .scalar(let scalar): return [scalar.value...scalar.value]
        case .set(let set): return set.negated || !set.classes.isEmpty ? nil : set.ranges
        case .group(let inner): return firstScalars(inner)
        case .concatenation(let items): return items.first.flatMap(firstScalars)
        case .repetition(let body, let min, _, _): return min > 0 ? firstScalars(body) : nil
        case .alternation(let branches):
            var all: [ClosedRange<UInt32>] = []
            for branch in branches {
                guard let ranges = firstScalars(branch) else { return nil }
                all += ranges
            }
            return all
        case .empty, .assertion: return nil
        }
    }

    private static func overlaps(_ a: [ClosedRange<UInt32>], _ b: [ClosedRange<UInt32>]) -> Bool {
        a.contains { x in b.contains { x.overlaps($0) } }
    }
}
