import Foundation

/// Removes secrets from text bound for a report or the console.
///
/// Two layers: transcripts are redacted by structure (sensitive form and JSON fields,
/// `Authorization` values) before they become text, and then every string is scrubbed of each
/// known secret in the forms it travels in (raw, form-encoded, percent-encoded, JSON-escaped).
public struct Redactor: Sendable {
    /// What stands in for a secret.
    public static let mask = "‹redacted›"

    /// Field names whose values are secret wherever they appear (form, JSON, query, arguments).
    public static let sensitiveFieldPattern = "(secret|token|password|verifier|assertion|authorization|^code$|_code$|[a-z]code$)"

    /// Secrets shorter than this are not scrubbed from free text: masking every "a" would wreck
    /// the report. Structured redaction still hides them in transcripts.
    public static let minimumLength = 4

    private var index = SecretIndex()
    private var origins: [(String, String)] = []
    /// Where each ``fragmentLength``-byte piece of a long secret occurs: the secret (in
    /// ``fragmentSources``) and the offset, for ``scrubbingFragments(_:)``.
    private var pieces: [FragmentKey: [(secret: Int, offset: Int)]] = [:]
    private var fragmentSources: [[UInt8]] = []

    /// The shortest piece of a secret ``scrubbingFragments(_:)`` masks: 12 characters, 48 bits
    /// of a hex token, which ordinary text does not share with a random value.
    public static let fragmentLength = 12
    /// Finds secrets no list names (``FlowCheckFakeServer/MintedSecret/spans(in:)``: what the
    /// fakes issued, known by its shape): spans of a text's UTF-8 bytes.
    private let recognise: (@Sendable ([UInt8]) -> [Range<Int>])?

    /// Whether ``add(_:)`` indexes the pieces of secrets, for ``scrubbingFragments(_:)``.
    private let indexesFragments: Bool

    /// - Parameters:
    ///   - recognise: also masks what it finds, in the text as it is and as a reader would
    ///     decode it, as the listed secrets are masked.
    ///   - fragments: index the pieces of each secret too, so ``scrubbingFragments(_:)`` finds
    ///     them (a redactor for text a driver wrote); off, it masks whole forms only.
    public init(secrets: [String] = [], recognising recognise: (@Sendable ([UInt8]) -> [Range<Int>])? = nil, fragments: Bool = false) {
        self.recognise = recognise
        indexesFragments = fragments
        add(secrets)
    }

    /// Registers more secrets, in all their travelling forms. Costs only the new secrets'
    /// forms: masking does not slow down as secrets accumulate (see ``SecretIndex``).
    public mutating func add(_ secrets: [String]) {
        for secret in secrets where secret.count >= Self.minimumLength {
            for form in Self.forms(of: secret) where form.count >= Self.minimumLength {
                index.insert(form)
            }
            // Pieces only of secrets longer than a piece: a shorter one is masked whole or not at all.
            let bytes = Array(secret.utf8)
            if indexesFragments, bytes.count > Self.fragmentLength {
                let number = fragmentSources.count
                fragmentSources.append(bytes)
                for offset in 0...(bytes.count - Self.fragmentLength) {
                    pieces[FragmentKey(bytes, offset), default: []].append((number, offset))
                }
            }
        }
    }

    /// ``scrub(_:)``, and then every piece of a known secret of ``fragmentLength`` characters or
    /// more masked too, as it is written (no encoding): for text a driver or an SDK wrote, where
    /// a secret turns up cut (`token[:28]`, a token logged in two halves, a line wrapped mid-
    /// token), which no whole form matches. Indexing pieces costs, so a redactor does it only
    /// when asked (``init(secrets:recognising:fragments:)``).
    public func scrubbingFragments(_ text: String) -> String {
        guard !pieces.isEmpty else { return scrub(text) }
        // Pieces are one more recogniser of the index's pass, beside the shape-based one:
        // found in the text as it is and as a reader decodes it, masked with the whole forms.
        let recognise = self.recognise
        return index.replacingForms(in: namingOrigins(text), with: Self.mask) { bytes in
            (recognise?(bytes) ?? []) + fragmentSpans(in: bytes)
        }
    }

    /// The spans of `bytes` that are a piece of ``fragmentLength`` or more bytes of an indexed
    /// secret, each as long as it goes on matching that secret.
    private func fragmentSpans(in bytes: [UInt8]) -> [Range<Int>] {
        guard bytes.count >= Self.fragmentLength else { return [] }
        var spans: [Range<Int>] = []
        var start = 0
        while start <= bytes.count - Self.fragmentLength {
            var longest: Range<Int>?
            for (secret, offset) in pieces[FragmentKey(bytes, start)] ?? [] {
                let source = fragmentSources[secret]
                guard source[offset..<(offset + Self.fragmentLength)].elementsEqual(bytes[start..<(start + Self.fragmentLength)]) else { continue }
                var end = start + Self.fragmentLength
                var at = offset + Self.fragmentLength
                while end < bytes.count, at < source.count, bytes[end] == source[at] { end += 1; at += 1 }
                if longest.map({ end > $0.upperBound }) ?? true { longest = start..<end }
            }
            if let longest {
                spans.append(longest)
                start = longest.upperBound
            } else {
                start += 1
            }
        }
        return spans
    }

    /// A ``fragmentLength``-byte piece of text, as a dictionary key.
    private struct FragmentKey: Hashable, Sendable {
        let low: UInt64
        let high: UInt32

        init(_ bytes: [UInt8], _ start: Int) {
            var low: UInt64 = 0
            for offset in 0..<8 { low = low << 8 | UInt64(bytes[start + offset]) }
            var high: UInt32 = 0
            for offset in 8..<12 { high = high << 8 | UInt32(bytes[start + offset]) }
            self.low = low
            self.high = high
        }
    }

    /// Replaces a server origin (`http://127.0.0.1:54321`) with a stable name such as `{moltin}`,
    /// so reports do not change with the ephemeral port.
    public mutating func addOrigin(_ origin: String, as name: String) {
        origins.append((origin, name))
        if let host = URL(string: origin).flatMap({ url in url.port.map { "\(url.host ?? ""):\($0)" } }) {
            origins.append((host, name))
        }
    }

    /// The text with every secret masked and every origin named.
    public func scrub(_ text: String) -> String {
        // A secret that contains another is masked whole (the longer form wins).
        index.replacingForms(in: namingOrigins(text), with: Self.mask, recognising: recognise)
    }

    /// `text` with every server origin replaced by its name.
    private func namingOrigins(_ text: String) -> String {
        var result = text
        for (origin, name) in origins {
            result = Self.replacing(origin, with: name, in: result)
        }
        return result
    }

    /// Whether `needle`'s UTF-8 bytes occur in `text`'s.
    static func occurs(_ needle: String, in text: String) -> Bool {
        firstMatch(Array(needle.utf8), in: Array(text.utf8), from: 0) != nil
    }

    /// `text` with every occurrence of `needle` replaced, compared as UTF-8 bytes (which cannot
    /// match across characters: UTF-8 is self-synchronising). `String.contains` and
    /// `replacingOccurrences` go through NSString on Linux, and scrubbing runs for every needle
    /// over every string of every report: they were the largest cost of building a result.
    static func replacing(_ needle: String, with replacement: String, in text: String) -> String {
        let pattern = Array(needle.utf8)
        let bytes = Array(text.utf8)
        guard var match = firstMatch(pattern, in: bytes, from: 0) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        while true {
            out.append(contentsOf: bytes[copied..<match])
            out.append(contentsOf: replacement.utf8)
            copied = match + pattern.count
            guard let next = firstMatch(pattern, in: bytes, from: copied) else { break }
            match = next
        }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    private static func firstMatch(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, pattern.count <= bytes.count - start else { return nil }
        var index = start
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var offset = 1
                while offset < pattern.count, bytes[index + offset] == pattern[offset] { offset += 1 }
                if offset == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }

    /// Names that look sensitive but are public by design: a PKCE challenge is sent in the
    /// clear (RFC 7636 §4.3), a token's type and expiry say nothing of the token.
    static let publicFields: Set<String> = [
        "token_type", "tokentype", "code_challenge", "codechallenge", "code_challenge_method", "codechallengemethod",
        "response_type", "responsetype", "grant_type", "granttype",
    ]

    /// Form and query field names shown with their values in transcripts and failures. Any
    /// other name is masked too: when an SDK encodes a form body wrongly (`&` or `=` left
    /// unescaped), pieces of a secret turn up as field names and values of their own.
    static let publicFormFields: Set<String> = [
        "grant_type", "client_id", "response_type", "redirect_uri", "code_challenge", "code_challenge_method", "state",
        "scope", "merchant_id", "action", "request_id", "email", "error", "error_description",
    ]

    /// True when a form field of this name may be shown at all (its value still masked when sensitive).
    static func isNameShowable(_ field: String) -> Bool {
        publicFormFields.contains(field)
            || (isSensitive(field: field) && (1...40).contains(field.utf8.count) && field.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
            })
    }

    /// True when a field of this name carries a secret.
    public static func isSensitive(field: String) -> Bool {
        let lowered = field.lowercased()
        if publicFields.contains(lowered) || lowered.hasSuffix("expiration") || lowered.hasSuffix("expiresat") { return false }
        // `sensitiveFieldPattern` by hand: compiling the regex on every call cost more than the
        // rest of rendering a transcript.
        if sensitiveWords.contains(where: { occurs($0, in: lowered) }) { return true }
        let bytes = Array(lowered.utf8)
        guard bytes.count >= 4, bytes.suffix(4).elementsEqual("code".utf8) else { return false }
        guard bytes.count > 4 else { return true }
        let before = bytes[bytes.count - 5]
        return before == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(before)
    }

    /// The words of `sensitiveFieldPattern` that may appear anywhere in a name.
    private static let sensitiveWords = ["secret", "token", "password", "verifier", "assertion", "authorization"]

    /// The forms a secret takes on the wire and in text.
    static func forms(of secret: String) -> [String] {
        // Letters, digits, `-`, `.` and `_` are left as they are by every encoding below but
        // base64: the common case (issued tokens, codes), without building each form to find
        // it equal to the secret.
        if secret.utf8.allSatisfy(isPlain) { return [secret, Data(secret.utf8).base64EncodedString()] + base64Cores(of: secret) }
        var forms = [secret]
        let formEncoded = formEncode(secret)
        forms.append(formEncoded)
        forms.append(formEncoded.replacingOccurrences(of: "+", with: "%20"))
        // Lower-case hex is as valid a percent-encoding (RFC 3986 §2.1) and some clients send it.
        let lowerHex = lowercasingHex(formEncoded)
        forms.append(lowerHex)
        forms.append(lowerHex.replacingOccurrences(of: "+", with: "%20"))
        if let hostEncoded = secret.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) { forms.append(hostEncoded) }
        if let json = try? JSONSerialization.data(withJSONObject: [secret], options: [.fragmentsAllowed]),
           let text = String(data: json, encoding: .utf8) {
            forms.append(String(text.dropFirst(2).dropLast(2)))
        }
        forms.append(Data(secret.utf8).base64EncodedString())
        return forms + base64Cores(of: secret)
    }

    /// The part of base64 and base64url text that only the secret's bytes decide, at each of
    /// the three places it can start in a group of three bytes: the secret inside a longer
    /// encoded value (`Basic` of `id:secret`, a JSON document encoded whole), padded or not.
    /// The few characters at either end that its neighbours share are left as they are.
    static func base64Cores(of secret: String) -> [String] {
        let bytes = Array(secret.utf8)
        var cores: [String] = []
        for lead in 0..<3 {
            // `lead` bytes before it; whole groups of the secret's own bytes after them.
            let skip = lead == 0 ? 0 : 3 - lead
            let whole = (bytes.count - skip) / 3 * 3
            // At least eight characters: a shorter core would turn up in ordinary text.
            guard whole >= 6 else { continue }
            let standard = Data(bytes[skip..<(skip + whole)]).base64EncodedString()
            cores.append(standard)
            cores.append(base64URL(standard))
        }
        return cores
    }

    /// Base64 text in the URL-safe alphabet (`-` for `+`, `_` for `/`), byte by byte:
    /// `replacingOccurrences` goes through NSString on Linux, and building these forms for
    /// every issued secret of every flow made it a twelfth of the suite's CPU time.
    static func base64URL(_ standard: String) -> String {
        String(decoding: standard.utf8.map { byte in
            byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
        }, as: UTF8.self)
    }

    /// A byte no encoding of ``forms(of:)`` changes (form and host encoding, JSON escaping).
    static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// `encoded` with the two hex digits after each `%` in lower case.
    private static func lowercasingHex(_ encoded: String) -> String {
        var out: [UInt8] = []
        var hexLeft = 0
        for byte in encoded.utf8 {
            if hexLeft > 0, (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) {
                out.append(byte + 32)
            } else {
                out.append(byte)
            }
            hexLeft = byte == UInt8(ascii: "%") ? 2 : max(hexLeft - 1, 0)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func formEncode(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: " "): out.append("+")
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
