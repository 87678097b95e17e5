/// `application/x-www-form-urlencoded` as the WHATWG URL standard defines it (§5.2 serializer,
/// §5.1 parser).
///
/// Bytes left as they are: ASCII letters, digits and `*-._`. A space becomes `+`; every other
/// byte of the UTF-8 encoding becomes `%XX` with uppercase hex.
///
/// The tutorial (seed 003, "Percent Escaping String") encodes with `.urlHostAllowed`, which lets
/// `&`, `=` and `+` through unescaped, so a client secret containing them reaches the server
/// altered. This encoder escapes everything outside the set above.
public enum FormURLEncoding {
    /// Encodes fields as `name=value` pairs joined by `&`, keeping their order.
    ///
    /// - Parameter fields: Name/value pairs; order is preserved because servers (and the Moltin
    ///   wire contract) may check it.
    /// - Returns: The body text, ASCII only.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { encodeComponent($0.0) + "=" + encodeComponent($0.1) }.joined(separator: "&")
    }

    /// Encodes one name or value.
    ///
    /// - Parameter s: Any string; it is encoded as UTF-8.
    /// - Returns: The escaped text, ASCII only.
    public static func encodeComponent(_ s: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if isUnescaped(byte) {
                output.append(byte)
            } else if byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes a form body into its fields, in order.
    ///
    /// Empty `&`-separated pieces are skipped and a piece without `=` has an empty value, as in
    /// the WHATWG parser. Unlike that parser, which passes malformed escapes through, this one is
    /// strict because it exists to check exactly what was sent.
    /// - Parameter body: The body text.
    /// - Returns: The fields, or nil when a `%` is not followed by two hex digits or the decoded
    ///   bytes are not valid UTF-8.
    public static func decode(_ body: String) -> [(String, String)]? {
        // Split on bytes, not Characters: a combining mark after `&` or `=` would otherwise fuse
        // with the delimiter into one grapheme and hide it.
        var fields: [(String, String)] = []
        for piece in Array(body.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                name = piece[..<equals]
                value = piece[(equals + 1)...]
            } else {
                name = piece
                value = []
            }
            guard let decodedName = decodeComponent(name), let decodedValue = decodeComponent(value) else {
                return nil
            }
            fields.append((decodedName, decodedValue))
        }
        return fields
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnescaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static func decodeComponent(_ slice: ArraySlice<UInt8>) -> String? {
        PercentDecoding.decode(slice, plusIsSpace: true)
    }
}
