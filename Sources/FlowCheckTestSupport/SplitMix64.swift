/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator of our own, so the same
/// seed gives the same values on every platform and Swift version (the standard library's
/// generators promise neither): `flowcheck explore`'s flows, `PinnedRandomSource`'s bytes, and
/// tests' random inputs.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for flow `index` of a run seeded with `seed`: each flow's draws depend on the
    /// seed and its index only, so flows are the same whatever order they run or shrink in.
    public static func forFlow(seed: UInt64, index: Int) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return SplitMix64(seed: mixer.next())
    }

    /// A whole number in `0..<bound` (`bound` > 0), by rejection so no value is favoured.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(0) has no value")
        let limit = UInt64(bound)
        let threshold = (0 &- limit) % limit
        while true {
            let value = next()
            if value >= threshold { return Int(value % limit) }
        }
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// True with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// A choice weighted by the integers given with it (each ≥ 0, at least one > 0).
    public mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        let total = choices.reduce(0) { $0 + max(0, $1.1) }
        var roll = below(total)
        for (choice, weight) in choices where weight > 0 {
            if roll < weight { return choice }
            roll -= weight
        }
        return choices[choices.count - 1].0
    }
}
