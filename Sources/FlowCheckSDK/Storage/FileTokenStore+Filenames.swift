// Reversible key <-> file-name mapping.
//
// Kept as is: lowercase ASCII letters, digits, `-`, `_`, and `.` except in first position.
// Everything else, uppercase letters included, becomes `%XX` of its UTF-8 bytes. Escaping
// uppercase keeps keys distinct on case-insensitive file systems (APFS default); never starting
// with `.` keeps key files apart from temporary files and from `.`/`..`. The `.token` suffix
// marks our files so foreign files in the directory are ignored.
extension FileTokenStore {
    static let fileSuffix = ".token"

    /// Longest file name most file systems accept, in bytes.
    private static let maximumFileNameLength = 255

    static func fileName(forKey key: String) throws -> String {
        guard !key.isEmpty else {
            throw OAuthError.storage("a token store key must not be empty")
        }
        var output: [UInt8] = []
        for byte in key.utf8 {
            let keep: Bool
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"):
                keep = true
            case UInt8(ascii: "."):
                keep = !output.isEmpty
            default:
                keep = false
            }
            if keep {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        let name = String(decoding: output, as: UTF8.self) + fileSuffix
        guard name.utf8.count <= maximumFileNameLength else {
            throw OAuthError.storage("a token store key is too long for a file name")
        }
        return name
    }

    /// The key a file name encodes, or nil for files that are not ours.
    static func key(forFileName name: String) -> String? {
        guard name.hasSuffix(fileSuffix), !name.hasPrefix(".") else { return nil }
        let bytes = Array(name.utf8.dropLast(fileSuffix.utf8.count))
        guard !bytes.isEmpty else { return nil }
        guard let key = PercentDecoding.decode(bytes, plusIsSpace: false) else { return nil }
        // Only names this mapping produces count, so a stray file cannot alias a key.
        guard (try? fileName(forKey: key)) == name else { return nil }
        return key
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
