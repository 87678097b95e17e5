import Foundation
import FlowCheckSDK

/// A deterministic `RandomSource` for tests: SplitMix64 from a seed, so values are reproducible
/// yet distinct from call to call; or a fixed list of byte blocks handed out in order.
///
/// ```swift
/// let random = PinnedRandomSource(seed: 7)
/// let sdk = CloverPaymentSDK(store: store, transport: server, userAgent: browser, clock: clock, random: random)
/// let pinned = PinnedRandomSource(blocks: [rfc7636Octets])   // PKCE(random:) gets exactly these
/// ```
final class PinnedRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var state: UInt64
    private var blocks: [[UInt8]]
    private var served = 0

    init(seed: UInt64 = 0x5EED) {
        state = seed
        blocks = []
    }

    init(blocks: [[UInt8]]) {
        state = 0
        self.blocks = blocks
    }

    /// How many `bytes` calls have been answered.
    var calls: Int {
        lock.lock()
        defer { lock.unlock() }
        return served
    }

    func bytes(_ count: Int) -> [UInt8] {
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
