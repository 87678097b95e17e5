/// The `application/x-www-form-urlencoded` serializer of the WHATWG URL standard, as a browser
/// applies it to a submitted form: UTF-8 bytes, ASCII letters, digits and `*-._` kept, space as
/// `+`, every other byte `%XX` in upper-case hex.
///
/// ``FakeBrowserUser``'s own, on purpose: it judges the SDK, so it shares no code with the SDK's
/// `FormURLEncoding` (an SDK encoding bug must not be mirrored by the browser that checks it;
/// see "Deliberate twins" in docs/architecture.md). Tested against the standard's rules, never
/// against the SDK.
///
/// ```swift
/// BrowserFormEncoding.encode([("email", "a b@example.com"), ("action", "login")])
/// // "email=a+b%40example.com&action=login"
/// ```
enum BrowserFormEncoding {
    /// `name=value` pairs, each side serialized, joined by `&`, in order.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { serialize($0.0) + "=" + serialize($0.1) }.joined(separator: "&")
    }

    /// One name or value, serialized byte by byte.
    static func serialize(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                output += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
            }
        }
        return output
    }

    private static let hexDigits = "0123456789ABCDEF".map(String.init)
}
