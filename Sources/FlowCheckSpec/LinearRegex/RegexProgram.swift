/// One instruction of a Thompson NFA program (Russ Cox, "Regular Expression Matching: the
/// Virtual Machine Approach"): consuming instructions move a thread one scalar on; the others
/// are followed at once.
enum RegexInstruction: Sendable, Equatable {
    case scalar(Unicode.Scalar)
    /// Index into ``RegexProgram/sets``.
    case set(Int)
    case split(Int, Int)
    case jump(Int)
    case assert(RegexAssertion)
    case match
}

/// A compiled pattern: instructions, the sets they test, and whether every match must start
/// at the value's start (so the search stops as soon as no thread is left).
struct RegexProgram: Sendable {
    var instructions: [RegexInstruction] = []
    var sets: [ScalarSet] = []
    var anchoredAtStart = false
    /// Sets are case-closed and tested with the scalar's fold too.
    var caseInsensitive = false
}

/// Turns a ``RegexNode`` tree into a ``RegexProgram``. Counted repetition is unrolled, so the
/// program's size is bounded by ``maximumProgramSize`` and refused above it.
struct RegexCompiler {
    static let maximumProgramSize = 20_000

    private var program = RegexProgram()

    static func compile(_ node: RegexNode, caseInsensitive: Bool) throws(RegexSyntaxError) -> RegexProgram {
        var compiler = RegexCompiler()
        compiler.program.caseInsensitive = caseInsensitive
        compiler.program.anchoredAtStart = isAnchoredAtStart(node)
        do {
            try compiler.emit(node)
            try compiler.append(.match)
        } catch {
            throw RegexSyntaxError(.programTooLarge, at: 0)
        }
        return compiler.program
    }

    private struct TooLarge: Error {}

    @discardableResult
    private mutating func append(_ instruction: RegexInstruction) throws(TooLarge) -> Int {
        guard program.instructions.count < Self.maximumProgramSize else { throw TooLarge() }
        program.instructions.append(instruction)
        return program.instructions.count - 1
    }

    private mutating func set(_ set: ScalarSet) throws(TooLarge) {
        program.sets.append(program.caseInsensitive ? set.caseClosed() : set)
        try append(.set(program.sets.count - 1))
    }

    private mutating func emit(_ node: RegexNode) throws(TooLarge) {
        switch node {
        case .empty: break
        case .scalar(let scalar):
            if program.caseInsensitive && !ScalarProperties.caseVariants(of: scalar).isEmpty {
                try set(ScalarSet(ranges: [scalar.value...scalar.value]))
            } else {
                try append(.scalar(scalar))
            }
        case .set(let s): try set(s)
        case .assertion(let assertion): try append(.assert(assertion))
        case .concatenation(let items): for item in items { try emit(item) }
        case .group(let inner): try emit(inner)
        case .alternation(let branches):
            var jumpsToEnd: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = try append(.split(0, 0))
                    try emit(branch)
                    jumpsToEnd.append(try append(.jump(0)))
                    program.instructions[split] = .split(split + 1, program.instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumpsToEnd { program.instructions[jump] = .jump(program.instructions.count) }
        case .repetition(let body, let min, let max, _):
            guard let max else {
                if min == 0 {
                    // L: split body, out; body; jump L; out:
                    let split = try append(.split(0, 0))
                    try emit(body)
                    try append(.jump(split))
                    program.instructions[split] = .split(split + 1, program.instructions.count)
                } else {
                    // min - 1 copies, then L: body; split L, out
                    for _ in 0..<(min - 1) { try emit(body) }
                    let loop = program.instructions.count
                    try emit(body)
                    let split = try append(.split(loop, 0))
                    program.instructions[split] = .split(loop, split + 1)
                }
                return
            }
            for _ in 0..<min { try emit(body) }
            // (body (body (body)?)?)?: every split skips to one end.
            var splits: [Int] = []
            for _ in min..<max {
                splits.append(try append(.split(0, 0)))
                try emit(body)
            }
            let end = program.instructions.count
            for split in splits { program.instructions[split] = .split(split + 1, end) }
        }
    }

    /// Whether every match must begin at the start of the value (`^...`, `\A...`).
    static func isAnchoredAtStart(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.startOfInput): return true
        case .concatenation(let items): return items.first.map(isAnchoredAtStart) ?? false
        case .alternation(let branches): return branches.allSatisfy(isAnchoredAtStart)
        case .group(let inner): return isAnchoredAtStart(inner)
        case .repetition(let body, let min, _, _): return min > 0 && isAnchoredAtStart(body)
        case .empty, .scalar, .set, .assertion: return false
        }
    }
}
