/// The keys of one entry of `expect.requests`.
public enum RequestCheckKind: String, SpecKeySet {
    /// The HTTP method, in capitals.
    case method
    /// The path, without the query.
    case path
    /// Which of the provider's origins (hosts) the request came in on.
    case origin
    /// Query parameters, by name.
    case query
    /// Header fields, by name in any case.
    case headers
    /// Fields of a form body and of a JSON object body, by name.
    case form, json
    /// Fields of the body, whichever of a form or a JSON object the request sent.
    case body
    /// Query, form and JSON fields that must not be there, whatever their value.
    case forbid
    /// The status the server answered with.
    case status
    /// Fields of the server's JSON answer.
    case responseJson
    /// The request may be missing from the list (a renewal the documents leave to the SDK).
    case optional
}

/// One check on a request the server saw (and on its answer).
public enum RequestCheck: Sendable, Equatable {
    /// The method is exactly this.
    case method(String)
    /// The decoded path matches.
    case path(Matcher)
    /// The request came in on this origin of the provider's (e.g. Clover's `web` or `api`).
    case origin(String)
    /// Query parameters, by name.
    case query([FieldMatcher])
    /// Header fields, by name in any case.
    case headers([FieldMatcher])
    /// Fields of an `application/x-www-form-urlencoded` body.
    case form([FieldMatcher])
    /// Top-level fields of a JSON object body.
    case json([FieldMatcher])
    /// Fields of the body, read as a form or as a JSON object by its Content-Type: for an
    /// endpoint that takes either (Clever's token endpoint).
    case body([FieldMatcher])
    /// No query, form or JSON field of these names, whatever its value: the fields a
    /// requirement makes wrong (`client_secret` from a public client, RFC 6749 §2.3 and §10.1),
    /// and no others, since servers ignore parameters they do not know (RFC 6749 §3.1, §3.2).
    case forbid([String])
    /// The server answered with this status.
    case status(Int)
    /// Fields of the server's JSON answer (e.g. to capture a token a `send` step obtained).
    case responseJson([FieldMatcher])
    /// The request may be missing: when the request in its place is not of its method and path,
    /// the list goes on without it (`"optional": false`, the default, decodes to nothing).
    case optional

    /// The key this check was written under.
    public var key: RequestCheckKind {
        switch self {
        case .method: return .method
        case .path: return .path
        case .origin: return .origin
        case .query: return .query
        case .headers: return .headers
        case .form: return .form
        case .json: return .json
        case .body: return .body
        case .forbid: return .forbid
        case .status: return .status
        case .responseJson: return .responseJson
        case .optional: return .optional
        }
    }
}

/// One request the server must have seen: its checks, in ``RequestCheckKind`` order.
public struct RequestExpectation: Sendable, Equatable {
    public var location: SourceLocation
    public var checks: [RequestCheck]

    /// A request expectation written at `location`; no checks: any request.
    public init(location: SourceLocation, checks: [RequestCheck] = []) {
        self.location = location
        self.checks = checks
    }

    /// Whether the request may be missing from its list.
    public var isOptional: Bool { checks.contains(.optional) }
}
