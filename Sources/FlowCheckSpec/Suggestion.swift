/// "Did you mean" for near-miss keys and names.
public enum Suggestion {
    /// The closest candidate within a small edit distance, if any.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            let allowed = max(1, min(3, candidate.count / 3))
            if distance <= allowed, distance < (best?.1 ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.0
    }

    /// A fix-it sentence: "did you mean X? " when one is close, then the list of what is allowed.
    public static func fix(for word: String, in candidates: [String], listName: String) -> String {
        let list = "\(listName): \(candidates.joined(separator: ", "))"
        if let match = closest(to: word, in: candidates) {
            return "did you mean \"\(match)\"? \(list)"
        }
        return list
    }

    /// Levenshtein distance over characters, with adjacent transpositions counted as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }
}
