/// Base64 with the URL- and filename-safe alphabet and no padding (RFC 4648 §5, as RFC 7636
/// Appendix A prescribes for PKCE and as OAuth `state` values travel in query strings).
public enum Base64URL {
    /// Encodes `bytes` without `=` padding.
    /// - Parameter bytes: Any bytes.
    /// - Returns: Text over `[A-Za-z0-9-_]`, `ceil(4 * count / 3)` characters long.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
            output.append(alphabet[Int(group & 0x3F)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url text.
    ///
    /// Strict, because it exists to check what was sent: padding, whitespace, characters of the
    /// standard alphabet (`+`, `/`), an impossible length (one character past a group) and
    /// non-zero leftover bits (a non-canonical encoding) are all refused.
    /// - Parameter text: The encoded text.
    /// - Returns: The bytes, or nil when `text` is not canonical unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            guard let value = value(of: byte) else { return nil }
            values.append(value)
        }
        let remainder = values.count % 4
        guard remainder != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let group = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6 | values[index + 3]
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            output.append(UInt8(truncatingIfNeeded: group >> 8))
            output.append(UInt8(truncatingIfNeeded: group))
            index += 4
        }
        switch remainder {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: (values[index] << 18 | values[index + 1] << 12) >> 16))
        case 3:
            guard values[index + 2] & 0x03 == 0 else { return nil }
            let group = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            output.append(UInt8(truncatingIfNeeded: group >> 8))
        default:
            break
        }
        return output
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
