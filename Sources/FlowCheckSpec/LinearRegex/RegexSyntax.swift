/// The parsed form of a pattern: what ``RegexParser`` produces and ``RegexCompiler`` reads.
indirect enum RegexNode: Sendable, Equatable {
    case empty
    case scalar(Unicode.Scalar)
    case set(ScalarSet)
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case group(RegexNode)
    /// `e*`, `e+`, `e?`, `e{m,n}` (lazy or not: a yes/no search gives the same verdict);
    /// `max` nil is unbounded; `offset` is the quantifier's place in the pattern.
    case repetition(RegexNode, min: Int, max: Int?, offset: Int)
}

/// A zero-width test between two scalars.
enum RegexAssertion: Sendable, Equatable {
    /// `^` and `\A` (FlowCheck has no multiline mode: both mean the start of the value).
    case startOfInput
    /// `\z`.
    case endOfInput
    /// `$` and `\Z`: the end, or just before a line terminator (or CR LF) that ends the value,
    /// as in NSRegularExpression.
    case endOfInputOrBeforeFinalTerminator
    /// `\b`.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}

/// The class escapes `\d \w \s` (and their negations).
enum ScalarClass: Sendable, Equatable {
    case digit, word, space
}

/// A set of scalars: ranges plus class escapes, possibly negated (`[^...]`, `.`, `\D`).
struct ScalarSet: Sendable, Equatable {
    struct ClassItem: Sendable, Equatable {
        var kind: ScalarClass
        var negated: Bool
    }

    /// Sorted and merged once the set is complete (see ``normalized()``).
    var ranges: [ClosedRange<UInt32>] = []
    var classes: [ClassItem] = []
    var negated = false

    /// `.`: anything but a line terminator.
    static let dot = ScalarSet(ranges: ScalarProperties.lineTerminatorRanges, negated: true)

    static func escape(_ kind: ScalarClass, negated: Bool) -> ScalarSet {
        ScalarSet(classes: [ClassItem(kind: kind, negated: negated)])
    }

    /// The ranges sorted and overlapping or touching ones merged, for a binary search.
    func normalized() -> ScalarSet {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var copy = self
        copy.ranges = merged
        return copy
    }

    /// The set with every member's case variants added (for `(?i)`): a scalar then belongs when
    /// it or its case fold does. Very large ranges are left as they are (their members' variants
    /// are mostly in them already), which keeps compiling bounded.
    func caseClosed() -> ScalarSet {
        var copy = self
        var budget = 20_000
        for range in ranges where range.count <= budget {
            budget -= range.count
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                for variant in ScalarProperties.caseVariants(of: scalar) where !range.contains(variant.value) {
                    copy.ranges.append(variant.value...variant.value)
                }
            }
        }
        return copy.normalized()
    }

    /// Whether `scalar` belongs; `foldCase`: the set is case-closed and the scalar's fold counts too.
    func contains(_ scalar: Unicode.Scalar, foldCase: Bool) -> Bool {
        var inside = rangesContain(scalar.value)
        if !inside && foldCase {
            let folded = ScalarProperties.fold(scalar)
            if folded != scalar { inside = rangesContain(folded.value) }
        }
        if !inside {
            for item in classes where ScalarProperties.belongs(scalar, to: item.kind) != item.negated {
                inside = true
                break
            }
        }
        return inside != negated
    }

    private func rangesContain(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value {
                low = middle + 1
            } else if ranges[middle].lowerBound > value {
                high = middle
            } else {
                return true
            }
        }
        return false
    }
}
