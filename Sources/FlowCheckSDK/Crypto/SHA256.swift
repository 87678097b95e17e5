/// SHA-256 as FIPS 180-4 §6.2 defines it, written out here because the SDK core takes no
/// package dependencies and Foundation on Linux has no digest API.
///
/// Its one job is PKCE's `S256` transform (RFC 7636 §4.2); it is not constant-time and is not
/// meant for keyed use.
public enum SHA256 {
    /// The 32-byte digest of `data`.
    /// - Parameter data: The message bytes; consumed once, in order.
    /// - Returns: The digest, big-endian words concatenated (FIPS 180-4 §6.2.2 step 4).
    public static func hash<D: Sequence>(_ data: D) -> [UInt8] where D.Element == UInt8 {
        var hasher = Hasher()
        if data.withContiguousStorageIfAvailable({ hasher.update($0) }) == nil {
            for byte in data {
                hasher.update(byte)
            }
        }
        return hasher.finalize()
    }

    /// The running state: the eight hash words, the partial block and the message length.
    private struct Hasher {
        private var h: [UInt32] = SHA256.initialHash
        private var block: [UInt8] = []
        private var length: UInt64 = 0
        private var schedule = [UInt32](repeating: 0, count: 64)

        init() {
            block.reserveCapacity(64)
        }

        mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
            for byte in bytes {
                update(byte)
            }
        }

        mutating func update(_ byte: UInt8) {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                compress()
                block.removeAll(keepingCapacity: true)
            }
        }

        /// Pads (FIPS 180-4 §5.1.1: a 1 bit, zeros to 448 mod 512, the 64-bit bit length) and
        /// returns the digest.
        mutating func finalize() -> [UInt8] {
            let bitLength = length &* 8
            block.append(0x80)
            if block.count > 56 {
                // No room for the length in this block: pad it out and start another.
                block.append(contentsOf: repeatElement(0, count: 64 - block.count))
                compress()
                block.removeAll(keepingCapacity: true)
            }
            block.append(contentsOf: repeatElement(0, count: 56 - block.count))
            for shift in stride(from: 56, through: 0, by: -8) {
                block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
            }
            compress()
            var digest: [UInt8] = []
            digest.reserveCapacity(32)
            for word in h {
                digest.append(UInt8(truncatingIfNeeded: word >> 24))
                digest.append(UInt8(truncatingIfNeeded: word >> 16))
                digest.append(UInt8(truncatingIfNeeded: word >> 8))
                digest.append(UInt8(truncatingIfNeeded: word))
            }
            return digest
        }

        /// FIPS 180-4 §6.2.2: one 512-bit block into the hash words.
        private mutating func compress() {
            for t in 0..<16 {
                let i = t * 4
                schedule[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16
                    | UInt32(block[i + 2]) << 8 | UInt32(block[i + 3])
            }
            for t in 16..<64 {
                let s0 = rotr(schedule[t - 15], 7) ^ rotr(schedule[t - 15], 18) ^ (schedule[t - 15] >> 3)
                let s1 = rotr(schedule[t - 2], 17) ^ rotr(schedule[t - 2], 19) ^ (schedule[t - 2] >> 10)
                schedule[t] = schedule[t - 16] &+ s0 &+ schedule[t - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for t in 0..<64 {
                let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let choose = (e & f) ^ (~e & g)
                let t1 = hh &+ sigma1 &+ choose &+ SHA256.roundConstants[t] &+ schedule[t]
                let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = sigma0 &+ majority
                hh = g
                g = f
                f = e
                e = d &+ t1
                d = c
                c = b
                b = a
                a = t1 &+ t2
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
            h[5] &+= f
            h[6] &+= g
            h[7] &+= hh
        }

        private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
            (x >> n) | (x << (32 - n))
        }
    }

    /// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the
    /// first eight primes.
    private static let initialHash: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first
    /// sixty-four primes.
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}
