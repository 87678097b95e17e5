import Foundation

/// HTTP Basic client authentication as RFC 6749 §2.3.1 defines it: the client id and secret
/// are each `application/x-www-form-urlencoded` first, then joined with ':' and base64-encoded
/// (RFC 7617). The one place every fake reads a Basic `Authorization` value.
struct BasicCredentials: Equatable {
    /// The client id, form-decoded.
    var clientID: String
    /// The secret, form-decoded; empty when nothing follows the colon.
    var secret: String

    init(clientID: String, secret: String) {
        self.clientID = clientID
        self.secret = secret
    }

    /// The one Authorization value a canonical client sends for `clientID` and `secret`: the
    /// HTML form serializer (space as '+', uppercase %XX, see
    /// ``FormURLEncoding/encodeFormComponent(_:)``) and padded standard base64. A blank
    /// secret still keeps its colon, as Clever's native flow requires (seed 004, step 4:
    /// `Base64.encode(ios_client_id + ":")`).
    static func header(clientID: String, secret: String) -> String {
        let userPass = FormURLEncoding.encodeFormComponent(clientID) + ":" + FormURLEncoding.encodeFormComponent(secret)
        return "Basic " + Data(userPass.utf8).base64EncodedString()
    }

    /// Reads an `Authorization` value the way the RFCs define it, so every client library's
    /// spelling of the same credentials is the same credentials:
    /// - the scheme `Basic` matched case-insensitively, then `1*SP` (RFC 9110 §11.1, §11.4);
    /// - the token68 decoded as standard base64, padding optional;
    /// - the text split at the first ':' (RFC 7617 §2), no colon is not a credential;
    /// - each part form-decoded (RFC 6749 §2.3.1), so a raw `client_id$sandbox$abc` (what
    ///   requests, httpx and authlib send) and its form encoding `client_id%24sandbox%24abc`
    ///   read the same. A malformed escape or non-UTF-8 text is not a credential.
    /// - Returns: nil for anything else.
    init?(authorization value: String) {
        guard let userPass = Self.userPass(value),
              let colon = userPass.firstIndex(of: ":"),
              let clientID = FormURLEncoding.decodeFormComponent(userPass[..<colon]),
              let secret = FormURLEncoding.decodeFormComponent(userPass[userPass.index(after: colon)...])
        else { return nil }
        self.clientID = clientID
        self.secret = secret
    }

    /// The credentials of `request`: exactly one `Authorization` field holding Basic
    /// credentials, or nil (none, two, or not Basic).
    init?(_ request: HTTPRequest) {
        let values = request.headers.values(for: "Authorization")
        guard values.count == 1 else { return nil }
        self.init(authorization: values[0])
    }

    /// The decoded `user:pass` text of a Basic Authorization value, before form-decoding, or
    /// nil when it is not one. Used to spot credentials a device must not hold.
    static func decodedUserPass(_ header: String) -> String? {
        userPass(header).map(String.init)
    }

    private static func userPass(_ value: String) -> Substring? {
        let bytes = Array(value.utf8)
        let scheme = Array("basic".utf8)
        guard bytes.count > scheme.count + 1,
              zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }),
              bytes[scheme.count] == 0x20
        else { return nil }
        var start = scheme.count
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        var token = String(decoding: bytes[start..<end], as: UTF8.self)
        guard !token.isEmpty, !token.contains(" ") else { return nil }
        if token.utf8.count % 4 != 0, !token.hasSuffix("=") {
            token += String(repeating: "=", count: 4 - token.utf8.count % 4)
        }
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8) else { return nil }
        return Substring(text)
    }
}
