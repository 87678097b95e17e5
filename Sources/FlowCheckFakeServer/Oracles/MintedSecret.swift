import Foundation

/// The secrets the fakes issue (codes, access and refresh tokens): random bytes from the system
/// CSPRNG and a tag that only this process can make, written as lowercase hex.
///
/// The tag lets the process know its own secrets by shape, without keeping them: the fakes
/// forget old ones (``RetainedTable``), and `flowcheck serve`'s redactor still masks a
/// forgotten token a client sends weeks later, in any encoding the redactor decodes, while it
/// keeps no string per issued secret.
///
/// - the random part is `byteCount` bytes, as before the tag: RFC 6749 §10.10 asks that a
///   token be guessed with a probability of at most 2^-128 (16 bytes) and should be at most
///   2^-160 (20 bytes); the tag adds nothing to that and takes nothing from it;
/// - the tag is a 64-bit SipHash (Swift's `Hasher`, which the runtime seeds afresh in every
///   process) of a 16-byte key this process draws when it starts and the random part, so text
///   that merely looks like hex is not masked by chance (one in 2^64). It only has to tell this
///   process's secrets from look-alikes, not resist forgery, and it is cheap: the redactor checks
///   every window of a secret's length in every run of hex digits of every line it masks.
///
/// ```swift
/// let token = MintedSecret.mint(byteCount: 20)   // 56 hex digits
/// MintedSecret.spans(in: Array("Bearer \(token)".utf8))   // [7..<63]
/// ```
public enum MintedSecret {
    /// Bytes of tag after the random part.
    static let tagLength = 8
    /// The random parts the fakes use: codes are 16 bytes, tokens 20.
    static let randomLengths = [16, 20]
    /// Hex digits of a minted secret, shortest first.
    static let hexLengths = randomLengths.map { ($0 + tagLength) * 2 }

    /// The tag's key, drawn once per process (beside the seed the runtime gives `Hasher`).
    private static let key: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// A fresh secret: `byteCount` random bytes and their tag, as lowercase hex.
    public static func mint(byteCount: Int) -> String {
        let random = Persona.randomBytes(byteCount)
        var tag = tag(of: random).littleEndian
        return Persona.hex(random + withUnsafeBytes(of: &tag) { Array($0) })
    }

    /// Whether `text` is a secret this process minted (lowercase or uppercase hex).
    public static func isMinted(_ text: String) -> Bool {
        isMinted(Array(text.utf8)[...])
    }

    /// The spans of `bytes` that are secrets this process minted: as they are (hex, either
    /// case), and inside base64 or base64url text at each of the three places a secret can
    /// start in a group of three bytes, padded or not (a base64 match covers the characters
    /// the secret's bytes decide, and the ones it shares with its neighbours).
    /// Linear in the text: only runs of hex digits as long as a secret are checked.
    public static func spans(in bytes: [UInt8]) -> [Range<Int>] {
        var found = hexSpans(in: bytes[...])
        // Base64 runs long enough to hold the shortest secret's hex digits.
        let shortest = (hexLengths[0] * 4 + 2) / 3
        var start = 0
        while start < bytes.count {
            guard isBase64(bytes[start]) else { start += 1; continue }
            var end = start
            while end < bytes.count, isBase64(bytes[end]) { end += 1 }
            if end - start >= shortest {
                for lead in 0..<4 where end - start - lead >= shortest {
                    let decoded = decodeBase64(bytes[(start + lead)..<end])
                    for span in hexSpans(in: decoded[...]) {
                        // Decoded byte i came from characters lead + i/3*4 up to the next group.
                        let lower = start + lead + span.lowerBound / 3 * 4
                        let upper = min(end, start + lead + (span.upperBound + 2) / 3 * 4)
                        found.append(lower..<upper)
                    }
                }
            }
            start = end
        }
        return found
    }

    // MARK: - Recognising

    /// Spans of `bytes` (positions from its start) that are minted secrets written in hex.
    private static func hexSpans(in bytes: ArraySlice<UInt8>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard nibble(bytes[start]) != nil else { start += 1; continue }
            var end = start
            while end < bytes.endIndex, nibble(bytes[end]) != nil { end += 1 }
            var position = start
            // Every window of a secret's length in the run: a secret glued to other hex digits
            // is still one.
            while position + hexLengths[0] <= end {
                var matched = false
                for length in hexLengths where position + length <= end && isMinted(bytes[position..<(position + length)]) {
                    found.append((position - bytes.startIndex)..<(position - bytes.startIndex + length))
                    position += length
                    matched = true
                    break
                }
                if !matched { position += 1 }
            }
            start = end
        }
        return found
    }

    /// Whether the hex digits `digits` are random bytes followed by their tag. No allocation:
    /// the redactor calls it for every window of every long run of hex digits.
    private static func isMinted(_ digits: ArraySlice<UInt8>) -> Bool {
        guard hexLengths.contains(digits.count), digits.allSatisfy({ nibble($0) != nil }) else { return false }
        let split = digits.endIndex - 2 * tagLength
        // The tag was written little-endian.
        let written = bytes(ofHex: digits[split...]).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        return tag(of: bytes(ofHex: digits[..<split])) == written
    }

    /// The bytes hex digits (all valid, an even number) stand for, decoded as they are read.
    private static func bytes(ofHex digits: ArraySlice<UInt8>) -> LazyMapSequence<StrideTo<Int>, UInt8> {
        stride(from: digits.startIndex, to: digits.endIndex, by: 2).lazy.map { index in
            (nibble(digits[index]) ?? 0) << 4 | (nibble(digits[index + 1]) ?? 0)
        }
    }

    /// The 64-bit tag of `random` under the process's key.
    private static func tag(of random: some Sequence<UInt8>) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        var count = 0
        for byte in random {
            hasher.combine(byte)
            count += 1
        }
        hasher.combine(count)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        FormURLEncoding.hexValue(byte)
    }

    // MARK: - Base64

    private static func isBase64(_ byte: UInt8) -> Bool {
        sextet(byte) != nil
    }

    /// The six bits of a base64 or base64url character.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    /// The bytes `characters` (base64 or base64url, no padding) decode to; a last partial
    /// group gives the whole bytes it holds.
    private static func decodeBase64(_ characters: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { break }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
