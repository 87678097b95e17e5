import FlowCheckFakeServer
import Foundation
import FlowCheckHarnessHTTP

/// Values whose grammar makes some of their spelling meaningless, read the way their receiver
/// reads them before a check compares them: two requests a server cannot tell apart get the
/// same verdict. Each rule names the passage that makes the difference meaningless.
///
/// What the checks never fold: tokens, codes, `state` and other values a client must send
/// back byte for byte (RFC 6749 §4.1.2 returns the exact state).
enum CanonicalValues {
    // MARK: - Header fields

    /// A request's header field as a check compares it: every field of that name (names are
    /// case-insensitive, RFC 9110 §5.1), each value in its canonical form, joined by ", " as
    /// RFC 9110 §5.3 combines repeated fields (so a second Authorization field shows, and
    /// fails an equality, rather than hiding behind the first). Nil when there is none.
    static func header(_ name: String, values: [String]) -> String? {
        guard !values.isEmpty else { return nil }
        return values.map { header(name, value: $0) }.joined(separator: ", ")
    }

    /// One header value in canonical form, for the fields whose grammar has one:
    /// - `Authorization`, `Proxy-Authorization`: the scheme is case-insensitive (RFC 9110
    ///   §11.1), so it is written as registered (`Bearer`, RFC 6750 §2.1; `Basic`, RFC 7617),
    ///   followed by one space; Basic credentials are read as RFC 6749 §2.3.1 and RFC 7617 say
    ///   a server reads them (base64, padding or not; split at the first colon; each part
    ///   form-decoded) and written again form-encoded and padded, so a client id sent raw
    ///   (`a@b`) and form-encoded (`a%40b`) compare equal when they name the same client, and
    ///   differ when they do not (`a+b` raw reads as "a b").
    /// - `Content-Type`: the media type and parameter names are case-insensitive (RFC 9110
    ///   §8.3.1), as is a charset's value (§8.3.2): lower case, parameters as `; name=value`.
    /// Any other field, or a value that does not parse, is compared as sent.
    static func header(_ name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization": return credentials(value)
        case "content-type": return contentType(value)
        default: return value
        }
    }

    /// Registered spellings of the authentication schemes specs check.
    private static let schemes = ["bearer": "Bearer", "basic": "Basic", "digest": "Digest"]

    static func credentials(_ value: String) -> String {
        let trimmed = value.drop { $0 == " " }
        let scheme = trimmed.prefix { $0 != " " }
        let rest = trimmed.dropFirst(scheme.count).drop { $0 == " " }
        guard let registered = schemes[scheme.lowercased()] else { return value }
        guard !rest.isEmpty else { return registered }
        if registered == "Basic", let canonical = basic(String(rest)) { return "Basic " + canonical }
        return registered + " " + rest
    }

    /// Basic credentials as a server reads them, written again in the one canonical way; nil
    /// when they do not parse (no colon, not base64, not UTF-8, a broken escape).
    private static func basic(_ token: String) -> String? {
        var base64 = token.trimmingCharacters(in: .whitespaces)
        guard !base64.isEmpty, !base64.contains(",") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":"),
              let user = formDecode(text[..<colon]), let password = formDecode(text[text.index(after: colon)...]) else { return nil }
        return Data((HarnessFormEncoding.encode(user) + ":" + HarnessFormEncoding.encode(password)).utf8).base64EncodedString()
    }

    static func contentType(_ value: String) -> String {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parts.first, !type.isEmpty else { return value }
        let parameters = parts.dropFirst().filter { !$0.isEmpty }.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return parameter.lowercased() }
            let name = parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if name == "charset" {
                value = value.lowercased()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            }
            return name + "=" + value
        }
        return ([type.lowercased()] + parameters).joined(separator: "; ")
    }

    /// One `application/x-www-form-urlencoded` component decoded: `+` is a space, `%XX` a byte;
    /// nil for a broken escape or bytes that are not UTF-8 (the fakes' own decoder).
    static func formDecode(_ text: Substring) -> String? {
        HarnessPercentEncoding.decodeFormComponent(text)
    }

    // MARK: - URLs

    /// `url` with its scheme and host in lower case, every other byte as written: RFC 3986
    /// §6.2.2.1's case normalization, the one a browser applies before it loads a URL (paths,
    /// queries and fragments keep their case: they are case-sensitive).
    static func url(_ url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return url }
        let scheme = url[..<colon].lowercased()
        var rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return scheme + ":" + rest }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        // The host is after any userinfo and before any port (an IPv6 literal keeps its colons).
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hostPart = authority[hostStart...]
        let portStart = hostPart.hasPrefix("[") ? hostPart.firstIndex(of: "]").flatMap { hostPart[$0...].firstIndex(of: ":") } : hostPart.firstIndex(of: ":")
        let host = hostPart[..<(portStart ?? hostPart.endIndex)]
        return scheme + "://" + authority[..<hostStart] + host.lowercased() + hostPart[host.endIndex...] + rest[authorityEnd...]
    }

    // MARK: - Fields compared without case

    /// Result, store and answer fields that hold a token type: "The value is case insensitive"
    /// (RFC 6749 §5.1, §7.1), so `bearer` and `Bearer` are the same type.
    static let caseInsensitiveFields: Set<String> = ["tokenType", "token_type"]

    /// The media type of a Content-Type value, lower case and without parameters.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        // Only HTTP's optional whitespace (SP and HTAB, RFC 9110 §5.6.3) is trimmed: a no-break
        // space after the type is part of it, as the fakes read it too.
        return contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingOWS().lowercased()
    }
}
