import Foundation

/// `application/x-www-form-urlencoded` and percent-decoding rules, shared by query and body
/// parsing so both agree on what a client meant.
///
/// Internal because FlowCheckSDK exports its own `FormURLEncoding`; a second public one would
/// make the name ambiguous in any file importing both modules.
enum FormURLEncoding {
    /// Decodes `a=1&b=x+y` into ordered pairs, or nil if any escape is malformed or the
    /// decoded bytes are not UTF-8 (a strict answer, so a harness can flag a broken encoder).
    ///
    /// '+' means space, empty segments (`a=1&&b=2`) are skipped, a name without '=' gets "".
    static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)]? {
        decodePairs(bytes, strict: true)
    }

    /// Lenient variant for query strings: bad escapes stay literal, bad UTF-8 becomes U+FFFD.
    static func decodeLeniently(_ text: Substring) -> [(name: String, value: String)] {
        decodePairs(Array(text.utf8), strict: false) ?? []
    }

    /// Percent-decodes a path segment (no '+' rule), leniently.
    static func decodePath(_ text: Substring) -> String {
        percentDecode(Array(text.utf8)[...], plusIsSpace: false, strict: false) ?? String(text)
    }

    /// Percent-encodes `text` for a query component: every byte but RFC 3986 unreserved
    /// characters becomes %XX (space too, so the result reads the same with or without the
    /// '+' rule).
    static func encodeComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Encodes `text` the way an HTML form does (the WHATWG `application/x-www-form-urlencoded`
    /// byte serializer): ASCII letters, digits and `*-._` stay, a space becomes '+', every
    /// other UTF-8 byte becomes %XX with uppercase hex.
    ///
    /// This is the encoding RFC 6749 §2.3.1 applies to a client id and secret before HTTP
    /// Basic; Appendix B's example (" %&+£€" -> "+%25%26%2B%C2%A3%E2%82%AC") comes out byte
    /// for byte. It differs from ``encodeComponent(_:)`` on space and `~`, which is why the
    /// Basic header check has its own function rather than reusing the query encoder.
    static func encodeFormComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if formUnescaped.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == UInt8(ascii: " ") {
                out += "+"
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// One `application/x-www-form-urlencoded` component decoded strictly ('+' is space, %XX
    /// is UTF-8), or nil if an escape is malformed or the result is not UTF-8.
    static func decodeFormComponent(_ text: Substring) -> String? {
        percentDecode(Array(text.utf8)[...], plusIsSpace: true, strict: true)
    }

    private static let formUnescaped = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8)

    private static func decodePairs(_ bytes: [UInt8], strict: Bool) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for segment in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = segment.firstIndex(of: UInt8(ascii: "=")) {
                name = segment[segment.startIndex..<equals]
                value = segment[segment.index(after: equals)...]
            } else {
                name = segment
                value = []
            }
            guard let decodedName = percentDecode(name, plusIsSpace: true, strict: strict),
                  let decodedValue = percentDecode(value, plusIsSpace: true, strict: strict)
            else { return nil }
            result.append((name: decodedName, value: decodedValue))
        }
        return result
    }

    private static func percentDecode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool, strict: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if bytes.endIndex - index >= 3,
                   let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                    out.append(high << 4 | low)
                    index += 3
                    continue
                }
                if strict { return nil }
                out.append(byte)
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index += 1
        }
        if let text = String(bytes: out, encoding: .utf8) { return text }
        return strict ? nil : String(decoding: out, as: UTF8.self)
    }

    /// The value of one hex digit, either case.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
