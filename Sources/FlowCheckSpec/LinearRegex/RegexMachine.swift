/// Runs a ``RegexProgram`` over a value's scalars with every thread in step (a Thompson NFA
/// simulation): each scalar is looked at once per live instruction, so a search costs at most
/// (scalars + 1) × instructions steps, whatever the pattern. Nothing backtracks.
///
/// The search is unanchored, like NSRegularExpression's `firstMatch`: a new thread starts at
/// every position (only at 0 for a pattern anchored with `^` or `\A`). It answers yes or no,
/// so it stops at the first thread that reaches `match`.
struct RegexMachine {
    let program: RegexProgram
    let scalars: [Unicode.Scalar]
    let budget: Int

    private var steps = 0
    /// The generation in which each instruction was last added to a list (one list per position).
    private var marks: [Int]
    private var generation = 0
    private var stack: [Int] = []

    init(program: RegexProgram, scalars: [Unicode.Scalar], budget: Int) {
        self.program = program
        self.scalars = scalars
        self.budget = budget
        self.marks = Array(repeating: -1, count: program.instructions.count)
    }

    private enum Closure {
        case matched, more, exhausted
    }

    mutating func run() -> RegexSearch {
        var current: [Int] = []
        var next: [Int] = []
        current.reserveCapacity(program.instructions.count)
        next.reserveCapacity(program.instructions.count)
        generation = 0
        switch addClosure(from: 0, at: 0, into: &current) {
        case .matched: return .found
        case .exhausted: return .gaveUp(steps: steps)
        case .more: break
        }
        let instructions = program.instructions
        for position in 0..<scalars.count {
            if current.isEmpty && program.anchoredAtStart { return .notFound }
            generation += 1
            next.removeAll(keepingCapacity: true)
            let scalar = scalars[position]
            for pc in current {
                steps += 1
                if steps > budget { return .gaveUp(steps: steps) }
                // A flow that timed out, or a run interrupted, stops waiting for the verdict.
                if steps & 0xFFFF == 0, Task.isCancelled { return .gaveUp(steps: steps) }
                let consumes: Bool
                switch instructions[pc] {
                case .scalar(let expected): consumes = expected == scalar
                case .set(let index): consumes = program.sets[index].contains(scalar, foldCase: program.caseInsensitive)
                case .split, .jump, .assert, .match: consumes = false
                }
                guard consumes else { continue }
                switch addClosure(from: pc + 1, at: position + 1, into: &next) {
                case .matched: return .found
                case .exhausted: return .gaveUp(steps: steps)
                case .more: break
                }
            }
            if !program.anchoredAtStart {
                switch addClosure(from: 0, at: position + 1, into: &next) {
                case .matched: return .found
                case .exhausted: return .gaveUp(steps: steps)
                case .more: break
                }
            }
            swap(&current, &next)
        }
        return .notFound
    }

    /// Adds the consuming instructions reachable from `start` without consuming, at `position`.
    private mutating func addClosure(from start: Int, at position: Int, into list: inout [Int]) -> Closure {
        stack.append(start)
        while let pc = stack.popLast() {
            if marks[pc] == generation { continue }
            marks[pc] = generation
            steps += 1
            if steps > budget {
                stack.removeAll()
                return .exhausted
            }
            switch program.instructions[pc] {
            case .match:
                stack.removeAll()
                return .matched
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if holds(assertion, at: position) { stack.append(pc + 1) }
            case .scalar, .set: list.append(pc)
            }
        }
        return .more
    }

    private func holds(_ assertion: RegexAssertion, at position: Int) -> Bool {
        let count = scalars.count
        switch assertion {
        case .startOfInput: return position == 0
        case .endOfInput: return position == count
        case .endOfInputOrBeforeFinalTerminator:
            if position == count { return true }
            if position == count - 1 {
                // Not between the CR and LF of a final CR LF: the pair is one line end.
                let last = scalars[count - 1]
                return ScalarProperties.isLineTerminator(last) && !(last == "\n" && count >= 2 && scalars[count - 2] == "\r")
            }
            return position == count - 2 && scalars[count - 2] == "\r" && scalars[count - 1] == "\n"
        case .wordBoundary: return isWordBefore(position) != isWordAfter(position)
        case .notWordBoundary: return isWordBefore(position) == isWordAfter(position)
        }
    }

    private func isWordBefore(_ position: Int) -> Bool { position > 0 && ScalarProperties.isWord(scalars[position - 1]) }
    private func isWordAfter(_ position: Int) -> Bool { position < scalars.count && ScalarProperties.isWord(scalars[position]) }
}
