import FlowCheckFakeServer
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
public final class PinnedRandomSource: RandomSource, Sendable {
    fileprivate struct State {
        var generator: SplitMix64
        var blocks: [[UInt8]]
        var served = 0
    }

    private let state: Locked<State>

    /// Creates a source that yields SplitMix64 output from `seed`: the same seed, the same bytes.
    public init(seed: UInt64 = 0x5EED) {
        state = Locked(State(generator: SplitMix64(seed: seed), blocks: []))
    }

    /// Creates a source that hands out `blocks` in order, one per `bytes` call, whatever count
    /// is asked, then SplitMix64 output from seed 0.
    public init(blocks: [[UInt8]]) {
        state = Locked(State(generator: SplitMix64(seed: 0), blocks: blocks))
    }

    /// How many `bytes` calls have been answered.
    public var calls: Int {
        state.withLock { $0.served }
    }

    /// The next pinned block, or `count` bytes of the seeded sequence.
    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in state.next(count) }
    }
}

extension PinnedRandomSource.State {
    /// The next pinned block, or `count` bytes of SplitMix64 output.
    mutating func next(_ count: Int) -> [UInt8] {
        served += 1
        if !blocks.isEmpty {
            return blocks.removeFirst()
        }
        var output: [UInt8] = []
        while output.count < count {
            let z = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where output.count < count {
                output.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
            }
        }
        return output
    }
}
