/// What must hold after a step's action.
public struct Expectation: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case ok, error
    }

    /// Nil with no `error` either means `ok`: an unexpected error never passes silently.
    public var outcome: Outcome?
    public var error: ErrorExpectation?
    /// Fields of the call's result, e.g. `productCount`.
    public var result: [FieldMatcher]
    /// Nil: requests are not checked. Otherwise the exact, ordered list the server saw since the previous step.
    public var requests: [RequestExpectation]?
    public var store: [FieldMatcher]
    /// True: the SDK's store holds nothing at all.
    public var storeEmpty: Bool?
    /// What the browser saw since the previous step.
    public var browser: BrowserExpectation?
    /// Values no request since the previous step may carry, in any encoding (e.g. an app secret).
    public var neverSent: [Template]

    public init(
        outcome: Outcome? = nil, error: ErrorExpectation? = nil, result: [FieldMatcher] = [],
        requests: [RequestExpectation]? = nil, store: [FieldMatcher] = [], storeEmpty: Bool? = nil,
        browser: BrowserExpectation? = nil, neverSent: [Template] = []
    ) {
        self.browser = browser
        self.neverSent = neverSent
        self.outcome = outcome
        self.error = error
        self.result = result
        self.requests = requests
        self.store = store
        self.storeEmpty = storeEmpty
    }

    /// The outcome this expectation demands, after defaults.
    public var effectiveOutcome: Outcome { outcome ?? (error == nil ? .ok : .error) }
}

/// The error an SDK call must end in.
public struct ErrorExpectation: Sendable, Equatable {
    public var kind: String?
    public var message: Matcher?

    public init(kind: String? = nil, message: Matcher? = nil) {
        self.kind = kind
        self.message = message
    }
}

/// One request the server must have seen.
public struct RequestExpectation: Sendable, Equatable {
    public var location: SourceLocation
    public var method: String?
    public var path: Matcher?
    public var query: [FieldMatcher]
    public var headers: [FieldMatcher]
    public var form: [FieldMatcher]
    public var json: [FieldMatcher]
    /// True: form, query and JSON fields not listed must not be there.
    public var strict: Bool
    /// The status the server answered with.
    public var status: Int?
    /// Fields of the server's JSON answer (e.g. to capture a token a `send` step obtained).
    public var responseJson: [FieldMatcher] = []

    public init(
        location: SourceLocation, method: String? = nil, path: Matcher? = nil, query: [FieldMatcher] = [],
        headers: [FieldMatcher] = [], form: [FieldMatcher] = [], json: [FieldMatcher] = [], strict: Bool = false,
        status: Int? = nil
    ) {
        self.location = location
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.form = form
        self.json = json
        self.strict = strict
        self.status = status
    }
}

/// A matcher on a named field.
public struct FieldMatcher: Sendable, Equatable {
    public var field: String
    public var matcher: Matcher

    public init(field: String, matcher: Matcher) {
        self.field = field
        self.matcher = matcher
    }
}

/// What the browser saw: the URLs the SDK opened, the page it showed, the redirect it captured.
public struct BrowserExpectation: Sendable, Equatable {
    /// Nil: not checked. Otherwise the exact list of URLs the SDK opened since the previous step.
    public var opened: [URLExpectation]?
    /// The redirect the last browser action captured (its `Location`).
    public var redirect: URLExpectation?
    /// True: the last browser action ended without a redirect.
    public var noRedirect: Bool?
    /// The status of the last page the browser loaded.
    public var pageStatus: Int?
    /// Text the last page must contain.
    public var pageContains: Template?
    /// Whether the SDK dismissed the browser since the previous step.
    public var dismissed: Bool?

    public init(opened: [URLExpectation]? = nil, redirect: URLExpectation? = nil, noRedirect: Bool? = nil, pageStatus: Int? = nil, pageContains: Template? = nil, dismissed: Bool? = nil) {
        self.opened = opened
        self.redirect = redirect
        self.noRedirect = noRedirect
        self.pageStatus = pageStatus
        self.pageContains = pageContains
        self.dismissed = dismissed
    }
}

/// Checks on a URL and its query.
public struct URLExpectation: Sendable, Equatable {
    public var location: SourceLocation
    /// The whole URL.
    public var url: Matcher?
    public var scheme: Matcher?
    public var host: Matcher?
    public var path: Matcher?
    public var query: [FieldMatcher]
    /// True: query parameters not listed must not be there.
    public var strict: Bool

    public init(location: SourceLocation, url: Matcher? = nil, scheme: Matcher? = nil, host: Matcher? = nil, path: Matcher? = nil, query: [FieldMatcher] = [], strict: Bool = false) {
        self.location = location
        self.url = url
        self.scheme = scheme
        self.host = host
        self.path = path
        self.query = query
        self.strict = strict
    }
}
