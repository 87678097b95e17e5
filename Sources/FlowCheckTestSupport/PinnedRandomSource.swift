import Foundation
import FlowCheckSDK

/// A deterministic `RandomSource` for tests: SplitMix64 from a seed, so values are reproducible
/// yet distinct from call to call; or a fixed list of byte blocks handed out in order.
///
/// ```swift
/// let random = PinnedRandomSource(seed: 7)
/// let sdk = CloverPaymentSDK(store: store, transport: transport, userAgent: browser, clock: clock, random: random)
/// let pinned = PinnedRandomSource(blocks: [rfc7636Octets])   // PKCE(random:) gets exactly these
/// #expect(PKCE(random: pinned).verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
/// ```
public final class PinnedRandomSource: RandomSource, @unchecked Sendable {
    // `@unchecked`: all mutable state is behind `lock`.
    private let lock = NSLock()
    private var state: UInt64
    private var blocks: [[UInt8]]
    private var served = 0

    /// Creates a source that yields SplitMix64 output from `seed`: the same seed, the same bytes.
    public init(seed: UInt64 = 0x5EED) {
        state = seed
        blocks = []
    }

    /// Creates a source that hands out `blocks` in order, one per `bytes` call, whatever count
    /// is asked, then SplitMix64 output from seed 0.
    public init(blocks: [[UInt8]]) {
        state = 0
        self.blocks = blocks
    }

    /// How many `bytes` calls have been answered.
    public var calls: Int {
        lock.lock()
        defer { lock.unlock() }
        return served
    }

    /// The next pinned block, or `count` bytes of the seeded sequence.
    public func bytes(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        served += 1
        if !blocks.isEmpty {
            return blocks.removeFirst()
        }
        var output: [UInt8] = []
        while output.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for shift in stride(from: 0, to: 64, by: 8) where output.count < count {
                output.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
            }
        }
        return output
    }
}
