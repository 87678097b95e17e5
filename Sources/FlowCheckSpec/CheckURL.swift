/// The keys of a URL expectation (an opened URL or a redirect).
public enum URLCheckKind: String, SpecKeySet {
    /// The whole URL.
    case url
    /// Parts of the URL, as `URLComponents` reads them.
    case scheme, host, path
    /// Query parameters, by name.
    case query
    /// Query parameters that must not be there, whatever their value.
    case forbid
}

/// One check on a URL and its query.
public enum URLCheck: Sendable, Equatable {
    /// The whole URL matches.
    case url(Matcher)
    /// The scheme matches.
    case scheme(Matcher)
    /// The host matches.
    case host(Matcher)
    /// The path matches.
    case path(Matcher)
    /// Query parameters, by name.
    case query([FieldMatcher])
    /// No query parameter of these names, whatever its value: the ones a requirement makes
    /// wrong (a `client_secret` or `code_verifier` in an authorize URL), and no others, since an
    /// authorization server ignores parameters it does not know (RFC 6749 §3.1).
    case forbid([String])

    /// The key this check was written under.
    public var key: URLCheckKind {
        switch self {
        case .url: return .url
        case .scheme: return .scheme
        case .host: return .host
        case .path: return .path
        case .query: return .query
        case .forbid: return .forbid
        }
    }
}

/// Checks on one URL, in ``URLCheckKind`` order; none at all means any URL.
public struct URLExpectation: Sendable, Equatable {
    public var location: SourceLocation
    public var checks: [URLCheck]

    /// A URL expectation written at `location`; no checks: any URL.
    public init(location: SourceLocation, checks: [URLCheck] = []) {
        self.location = location
        self.checks = checks
    }
}
