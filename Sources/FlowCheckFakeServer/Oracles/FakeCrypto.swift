import Foundation

/// The fake server's own SHA-256 and PKCE helpers (FIPS 180-4, RFC 7636 §4.2).
///
/// Deliberately independent of the SDK core's hash: a conformance fake that shared the SDK's
/// SHA-256 would accept the SDK's mistakes. Foundation on Linux offers no SHA-256 and the
/// package takes no dependencies, hence this small implementation. It is for checking PKCE in
/// tests, not for protecting anything; it makes no constant-time promises.
///
/// ```swift
/// FakeCrypto.s256Challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
/// // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" (RFC 7636 Appendix B)
/// ```
public enum FakeCrypto {
    /// The SHA-256 digest of `bytes`.
    /// - Returns: 32 bytes.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var state = initialState
        var schedule = [UInt32](repeating: 0, count: 64)
        let padded = pad(bytes)
        var blockStart = 0
        while blockStart < padded.count {
            compress(&state, padded[blockStart..<(blockStart + 64)], schedule: &schedule)
            blockStart += 64
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Base64url without padding (RFC 4648 §5, as RFC 7636 Appendix A requires).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = ""
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = UInt32(bytes[index])
            let second = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let third = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = first << 16 | second << 8 | third
            // 1 input byte gives 2 characters, 2 give 3, 3 give 4; padding is simply omitted.
            let characters = min(remaining, 3) + 1
            for position in 0..<characters {
                let sextet = Int((group >> UInt32(18 - 6 * position)) & 0x3F)
                text.unicodeScalars.append(base64URLAlphabet[sextet])
            }
            index += 3
        }
        return text
    }

    /// The S256 `code_challenge` for `verifier`: BASE64URL(SHA256(ASCII(verifier))),
    /// RFC 7636 §4.2. The verifier's UTF-8 bytes are hashed; for a valid verifier (unreserved
    /// ASCII only) those are its ASCII bytes.
    public static func s256Challenge(for verifier: String) -> String {
        base64URL(sha256(Array(verifier.utf8)))
    }

    // MARK: - SHA-256 internals

    private static let base64URLAlphabet: [Unicode.Scalar] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

    /// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of
    /// the first eight primes.
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
    /// first sixty-four primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// FIPS 180-4 §5.1.1: append 0x80, zeros up to 56 mod 64, then the bit length big-endian.
    private static func pad(_ bytes: [UInt8]) -> [UInt8] {
        var padded = bytes
        let bitLength = UInt64(bytes.count) &* 8
        padded.append(0x80)
        while padded.count % 64 != 56 {
            padded.append(0)
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        return padded
    }

    /// FIPS 180-4 §6.2.2 for one 64-byte block; `schedule` is reused across blocks so a long
    /// message costs no allocation per block.
    private static func compress(_ state: inout [UInt32], _ block: ArraySlice<UInt8>, schedule w: inout [UInt32]) {
        var offset = block.startIndex
        for t in 0..<16 {
            w[t] = UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16
                | UInt32(block[offset + 2]) << 8 | UInt32(block[offset + 3])
            offset += 4
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for t in 0..<64 {
            let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let choose = (e & f) ^ (~e & g)
            let t1 = h &+ sigma1 &+ choose &+ roundConstants[t] &+ w[t]
            let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = sigma0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
