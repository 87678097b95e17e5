import Foundation

/// HTTP Basic client authentication as RFC 6749 §2.3.1 defines it: the client id and secret
/// are each `application/x-www-form-urlencoded` first, then joined with ':' and base64-encoded
/// (RFC 7617).
enum BasicCredentials {
    /// The one Authorization value a correct client sends for `clientID` and `secret`.
    ///
    /// DECISION: the fakes compare the raw header with this byte for byte, so a client must
    /// use the canonical encoding: the HTML form serializer (space as '+', uppercase %XX, see
    /// ``FormURLEncoding/encodeFormComponent(_:)``) and padded standard base64. A blank
    /// secret still keeps its colon, as Clever's native flow requires (seed 004, step 4:
    /// `Base64.encode(ios_client_id + ":")`).
    static func header(clientID: String, secret: String) -> String {
        let userPass = FormURLEncoding.encodeFormComponent(clientID) + ":" + FormURLEncoding.encodeFormComponent(secret)
        return "Basic " + Data(userPass.utf8).base64EncodedString()
    }

    /// The decoded `user:pass` text of a Basic Authorization value (scheme matched
    /// case-insensitively), or nil when it is not one. Used only to spot credentials a device
    /// must not hold.
    static func decodedUserPass(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
