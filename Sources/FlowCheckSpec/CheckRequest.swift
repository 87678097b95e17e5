/// The keys of one entry of `expect.requests`.
public enum RequestCheckKind: String, SpecKeySet {
    case method, path, query, headers, form, json
    /// Query, form and JSON fields not listed must not be there.
    case strict
    /// The status the server answered with.
    case status
    /// Fields of the server's JSON answer.
    case responseJson
}

/// One check on a request the server saw (and on its answer).
public enum RequestCheck: Sendable, Equatable {
    case method(String)
    case path(Matcher)
    case query([FieldMatcher])
    case headers([FieldMatcher])
    case form([FieldMatcher])
    case json([FieldMatcher])
    /// No query, form or JSON field beyond those listed (`"strict": false`, the default, decodes to nothing).
    case strict
    case status(Int)
    /// Fields of the server's JSON answer (e.g. to capture a token a `send` step obtained).
    case responseJson([FieldMatcher])

    /// The key this check was written under.
    public var key: RequestCheckKind {
        switch self {
        case .method: return .method
        case .path: return .path
        case .query: return .query
        case .headers: return .headers
        case .form: return .form
        case .json: return .json
        case .strict: return .strict
        case .status: return .status
        case .responseJson: return .responseJson
        }
    }
}

/// One request the server must have seen: its checks, in ``RequestCheckKind`` order.
public struct RequestExpectation: Sendable, Equatable {
    public var location: SourceLocation
    public var checks: [RequestCheck]

    public init(location: SourceLocation, checks: [RequestCheck] = []) {
        self.location = location
        self.checks = checks
    }
}
