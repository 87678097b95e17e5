import Foundation

/// Reading a URL that an app was opened with (an OAuth redirect, a backend's return URL),
/// without I/O, for every provider that receives one (Clover, Clever, Braintree).
///
/// The same rules `CloverRedirect` applies, shared so each later provider judges callbacks alike.
enum CallbackURL {
    /// Why a callback's query was refused.
    enum QueryProblem: Error, Sendable, Equatable {
        /// A `%` not followed by two hex digits, or bytes that are not UTF-8.
        case malformed

        /// A parameter appears more than once (RFC 6749 §3.1: "Request and response parameters
        /// MUST NOT be included more than once"); which copy would count is exactly what an
        /// attacker would like to choose.
        case repeated
    }

    /// Whether `url` has `expected`'s scheme, host, port (a default port counts as given), user
    /// info and path. Compared exactly, apart from the case of scheme and host, which RFC 3986
    /// §6.2.2.1 makes case-insensitive; an empty host counts as none (`scheme:/path` and
    /// `scheme:///path` name the same thing). A prefix match would let a sibling path deliver.
    static func isUnder(_ url: URL, expected: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == expected.scheme?.lowercased(),
              normalisedHost(url) == normalisedHost(expected),
              effectivePort(url) == effectivePort(expected),
              url.user == expected.user, url.password == expected.password
        else { return false }
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath
        let wanted = URLComponents(url: expected, resolvingAgainstBaseURL: false)?.percentEncodedPath
        return path != nil && path == wanted
    }

    /// The query's parameters, form-decoded (`+` is a space, as providers encode redirects).
    /// - Returns: Name to value, or the problem: a malformed query or a repeated parameter.
    static func parameters(of url: URL) -> Result<[String: String], QueryProblem> {
        let rawQuery = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let fields = FormURLEncoding.decode(rawQuery) else {
            return .failure(.malformed)
        }
        var parameters: [String: String] = [:]
        for (name, value) in fields {
            guard parameters[name] == nil else {
                return .failure(.repeated)
            }
            parameters[name] = value
        }
        return .success(parameters)
    }

    private static func normalisedHost(_ url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }
}
