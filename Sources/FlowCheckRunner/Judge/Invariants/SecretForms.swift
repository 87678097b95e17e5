import Foundation
import FlowCheckFakeServer

/// The forms a secret takes in text, for judging leaks (INV-LEAK, INV-SECRET-WIRE).
///
/// Deliberately its own code, not the ``Redactor``'s: the redactor masks for display, and a
/// fault in what it masks must never make a leak pass. A test holds this list to a superset of
/// the redactor's forms.
struct SecretForms: Sendable {
    /// Secrets shorter than this are not looked for in free text: a four-letter value turns up
    /// in ordinary words. Fixture secrets, issued tokens, codes and verifiers are all longer.
    static let minimumLength = 6

    /// Each secret with the forms to look for, longest form first.
    private(set) var needles: [(secret: String, forms: [[UInt8]])] = []
    private var known: Set<String> = []

    /// The forms of a fixture's secrets, built once per list: every flow of a provider starts
    /// from the same ones, and building their forms was a measurable share of a short flow.
    static func of(_ secrets: [String]) -> SecretForms {
        if let built = built.withLock({ $0[secrets] }) { return built }
        var forms = SecretForms()
        forms.add(secrets)
        built.withLock { cache in
            // Fixtures are few; a caller making secrets up by the thousand gets no cache.
            if cache.count < 256 { cache[secrets] = forms }
        }
        return forms
    }

    private static let built = Locked<[[String]: SecretForms]>([:])

    /// Adds secrets not yet known.
    mutating func add<S: Sequence<String>>(_ secrets: S) {
        for secret in secrets where secret.utf8.count >= Self.minimumLength && known.insert(secret).inserted {
            needles.append((secret, Self.forms(of: secret).map { Array($0.utf8) }))
        }
    }

    /// The first secret that occurs in `text` in any of its forms, if one does.
    func firstOccurring(in text: String) -> String? {
        let haystacks = Self.readings(of: text)
        for (secret, forms) in needles {
            for form in forms where haystacks.contains(where: { Self.occurs(form, in: $0) }) {
                return secret
            }
        }
        return nil
    }

    /// The secret raw, form-encoded (upper- and lower-case hex, `+` or `%20` for a space),
    /// percent-encoded with RFC 3986's unreserved set, JSON-escaped (with and without `\/`), and
    /// base64 (standard and URL-safe, with and without padding).
    static func forms(of secret: String) -> [String] {
        var forms: [String] = [secret]
        // Letters, digits, `-`, `.` and `_` are left as they are by every percent-encoding and
        // JSON escape (checked here, apart from the redactor's own test of the same bytes).
        let plain = secret.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        for upper in [true, false] where !plain {
            let form = encode(secret, keep: formSafe, spaceAsPlus: true, upper: upper)
            forms += [form, form.replacingOccurrences(of: "+", with: "%20"), encode(secret, keep: unreserved, spaceAsPlus: false, upper: upper)]
        }
        if !plain {
            forms.append(jsonEscaped(secret, slash: false))
            forms.append(jsonEscaped(secret, slash: true))
        }
        let base64 = Data(secret.utf8).base64EncodedString()
        let unpadded = String(decoding: base64.utf8.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
        let urlSafe = urlAlphabet(unpadded)
        forms += [base64, unpadded, urlSafe]
        // Inside a longer encoded value (`Basic` of `id:secret`): encoded behind 0, 1 and 2
        // other bytes, the characters whose groups hold the secret's bytes alone.
        for lead in 0..<3 {
            let encoded = Array(Data(Array(repeating: 0, count: lead) + Array(secret.utf8)).base64EncodedString().utf8)
            let total = lead + secret.utf8.count
            // Groups of four characters: the first one shares its bytes with the lead, and a
            // last partial group with whatever follows.
            let start = lead == 0 ? 0 : 4
            let groups = total / 3 - (lead == 0 ? 0 : 1)
            guard groups * 4 >= 8, start + groups * 4 <= encoded.count else { continue }
            let core = String(decoding: encoded[start..<(start + groups * 4)], as: UTF8.self)
            forms += [core, urlAlphabet(core)]
        }
        var seen = Set<String>()
        return forms.filter { seen.insert($0).inserted }.sorted { $0.utf8.count > $1.utf8.count }
    }

    /// Base64 in the URL-safe alphabet, mapped byte by byte (NSString's `replacingOccurrences`
    /// cost more than the rest of building the forms).
    private static func urlAlphabet(_ base64: String) -> String {
        String(decoding: base64.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }, as: UTF8.self)
    }

    /// The text as it stands, and as it reads once percent-decoded (with `+` as a space) and
    /// once any HTTP Basic credentials in it are base64-decoded: a secret split by an encoding
    /// this list does not name still shows up in a decoded reading.
    static func readings(of text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        var readings = [bytes]
        if occurs(Array("\\u".utf8), in: bytes) {
            // JSON's `\uXXXX` (a JSON library's `\u003d` for `=`), in any text (multi-line,
            // with quotes of its own): every escape of four hex digits undone, byte by byte.
            readings.append(unicodeUnescaped(bytes))
        }
        if bytes.contains(UInt8(ascii: "%")) || bytes.contains(UInt8(ascii: "+")) {
            // With `+` as a space (forms) and as itself (paths, and encoders that leave `+`
            // alone, such as the URL-host set the tutorial uses).
            readings.append(percentDecoded(bytes, plusIsSpace: true))
            readings.append(percentDecoded(bytes, plusIsSpace: false))
        }
        var texts = [text]
        if let joined = unwrapped(bytes) {
            // Base64 wrapped into lines (MIME's 76 columns, PEM's 64) reads as one value.
            readings.append(joined)
            texts.append(String(decoding: joined, as: UTF8.self))
        }
        for text in texts {
            for token in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "," || $0 == "\"" }) where token.count >= 8 {
                if let data = Data(base64Encoded: String(token)) ?? Data(base64Encoded: padded(token)) {
                    readings.append(Array(data))
                }
            }
        }
        return readings
    }

    /// `bytes` with each line break (CR, LF, or their escapes `\n` and `\r` in a one-line
    /// rendering), with the next line's indentation and the quotes of a list of quoted lines,
    /// dropped where a line of 16 or more base64 characters goes on with a line that is base64
    /// to its end; nil when there is none.
    static func unwrapped(_ bytes: [UInt8]) -> [UInt8]? {
        func base64(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "+/=-_".utf8.contains(byte)
        }
        func breakLength(at index: Int) -> Int {
            var end = index
            while end < bytes.count {
                if bytes[end] == UInt8(ascii: "\n") || bytes[end] == UInt8(ascii: "\r") {
                    end += 1
                } else if bytes[end] == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "n") || bytes[end + 1] == UInt8(ascii: "r") {
                    end += 2
                } else {
                    break
                }
            }
            return end - index
        }
        // Made at the first join (most texts have none): the bytes before it, then the rest.
        var out: [UInt8]?
        var run = 0
        var index = 0
        while index < bytes.count {
            if run >= 16, !base64(bytes[index]) {
                // The joint: a closing quote and comma, the line breaks, the next line's
                // indentation and opening quote (a value written as a list of quoted lines).
                // Joined only when the next line is base64 to its end: a header line or a JSON
                // member stays apart.
                var at = index
                if at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") { at += 1 }
                if at < bytes.count, bytes[at] == UInt8(ascii: ",") { at += 1 }
                let length = breakLength(at: at)
                if length > 0 {
                    at += length
                    while at < bytes.count, bytes[at] == UInt8(ascii: " ") || bytes[at] == UInt8(ascii: "\t") { at += 1 }
                    if at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") { at += 1 }
                    var end = at
                    while end < bytes.count, base64(bytes[end]) { end += 1 }
                    if end > at,
                       end == bytes.count || breakLength(at: end) > 0 || "\"' ,;)]}<&".utf8.contains(bytes[end]) {
                        if out == nil { out = Array(bytes[..<index]) }
                        index = at
                        continue
                    }
                }
            }
            run = base64(bytes[index]) ? run + 1 : 0
            out?.append(bytes[index])
            index += 1
        }
        return out
    }

    /// `bytes` with each `\uXXXX` written as the UTF-8 of its character (a surrogate pair
    /// joined; a lone surrogate, or fewer than four hex digits, left as it is).
    static func unicodeUnescaped(_ bytes: [UInt8]) -> [UInt8] {
        func unit(at start: Int) -> UInt32? {
            guard start + 6 <= bytes.count, bytes[start] == UInt8(ascii: "\\"), bytes[start + 1] == UInt8(ascii: "u") else { return nil }
            var value: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = hex(bytes[start + offset]) else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if let first = unit(at: index) {
                if (0xD800...0xDBFF).contains(first), let second = unit(at: index + 6), (0xDC00...0xDFFF).contains(second),
                   let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) {
                    out += Array(String(Character(scalar)).utf8)
                    index += 12
                    continue
                }
                if let scalar = Unicode.Scalar(first) {
                    out += Array(String(Character(scalar)).utf8)
                    index += 6
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    /// URL-safe base64 made standard and padded (a byte loop: this runs on every token-like
    /// word of every text judged).
    private static func padded(_ text: Substring) -> String {
        var bytes: [UInt8] = text.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        bytes += repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func percentDecoded(_ bytes: [UInt8], plusIsSpace: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let formSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8)

    private static func encode(_ text: String, keep: Set<UInt8>, spaceAsPlus: Bool, upper: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            if keep.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                out += "+"
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: upper) + String(byte & 0x0F, radix: 16, uppercase: upper)
            }
        }
        return out
    }

    private static func jsonEscaped(_ text: String, slash: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += slash ? "\\/" : "/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    static func occurs(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= bytes.count else { return false }
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first {
                var offset = 1
                while offset < needle.count, bytes[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            index += 1
        }
        return false
    }
}
