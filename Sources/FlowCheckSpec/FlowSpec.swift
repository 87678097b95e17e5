/// One flow: a documented sequence from a seed page, as steps an SDK must get through.
public struct FlowSpec: Sendable {
    /// The spec's path as it was given (relative paths stay relative, so reports are stable).
    public var file: String
    /// The catalogue id from flows.md, e.g. `MLT-AUTH`. Stable and unique across the suite.
    public var id: String
    public var title: String
    /// An optional paragraph for the documentation: why this flow matters.
    public var summary: String?
    public var source: SourceReference
    public var provider: Provider
    public var fixture: Fixture
    /// Where the seed is silent, what this spec decided (written so reports document it).
    public var decisions: [String]
    public var steps: [Step]
    /// Where the spec's top-level object starts.
    public var location: SourceLocation

    public init(
        file: String, id: String, title: String, summary: String? = nil, source: SourceReference,
        provider: Provider, fixture: Fixture, decisions: [String] = [], steps: [Step],
        location: SourceLocation = SourceLocation(line: 1, column: 1)
    ) {
        self.file = file
        self.id = id
        self.title = title
        self.summary = summary
        self.source = source
        self.provider = provider
        self.fixture = fixture
        self.decisions = decisions
        self.steps = steps
        self.location = location
    }
}

/// The seed file and the passage of it that a spec encodes.
public struct SourceReference: Sendable, Equatable {
    public var seed: String
    public var passage: String

    public init(seed: String, passage: String) {
        self.seed = seed
        self.passage = passage
    }
}

/// The provider whose fake server plays the other side of a flow.
public enum Provider: String, Sendable, CaseIterable {
    case moltin
    case clover
    case clever
    case braintree
}

/// Server fixture data, per provider.
public enum Fixture: Sendable, Equatable {
    case moltin(MoltinFixtureSpec)
    case clover(CloverFixtureSpec)
    case clever(CleverFixtureSpec)
    case braintree(BraintreeFixtureSpec)

    /// Every secret the fixture holds (for redaction: none of them may reach a report).
    public var secrets: [String] {
        switch self {
        case .moltin(let fixture): return fixture.clients.map(\.secret)
        case .clover(let fixture): return fixture.apps.map(\.secret) + fixture.employees.map(\.password)
        case .clever(let fixture): return fixture.users.map(\.password)
        case .braintree(let fixture): return [fixture.clientSecret] + fixture.merchants.map(\.password)
        }
    }
}

/// The Clover fake's data: apps with their site URLs, merchants and the apps they installed,
/// employees who log in.
public struct CloverFixtureSpec: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var id: String
        public var secret: String
        public var siteURL: String
        public init(id: String, secret: String, siteURL: String) {
            self.id = id
            self.secret = secret
            self.siteURL = siteURL
        }
    }

    public struct Merchant: Sendable, Equatable {
        public var id: String
        public var name: String
        public var installedApps: [String]
        public init(id: String, name: String, installedApps: [String]) {
            self.id = id
            self.name = name
            self.installedApps = installedApps
        }
    }

    public struct Employee: Sendable, Equatable {
        public var email: String
        public var password: String
        public var merchant: String
        public init(email: String, password: String, merchant: String) {
            self.email = email
            self.password = password
            self.merchant = merchant
        }
    }

    public var apps: [App]
    public var merchants: [Merchant]
    public var employees: [Employee]
    /// Seconds; nil means the fake's defaults (30 minutes, 30 days, 5 minutes).
    public var accessTokenLifetime: Int?
    public var refreshTokenLifetime: Int?
    public var codeLifetime: Int?

    public init(apps: [App], merchants: [Merchant], employees: [Employee], accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil, codeLifetime: Int? = nil) {
        self.apps = apps
        self.merchants = merchants
        self.employees = employees
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.codeLifetime = codeLifetime
    }
}

/// The Clever fake's data: iOS-platform clients with their custom redirect URLs, and users.
public struct CleverFixtureSpec: Sendable, Equatable {
    public struct Client: Sendable, Equatable {
        public var id: String
        public var redirectURL: String
        public init(id: String, redirectURL: String) {
            self.id = id
            self.redirectURL = redirectURL
        }
    }

    public struct User: Sendable, Equatable {
        public var email: String
        public var password: String
        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }
    }

    public var clients: [Client]
    public var users: [User]

    public init(clients: [Client], users: [User]) {
        self.clients = clients
        self.users = users
    }
}

/// The Braintree fake's data: the merchant backend's OAuth client, merchants who approve, and
/// the app's return URL.
public struct BraintreeFixtureSpec: Sendable, Equatable {
    public struct Merchant: Sendable, Equatable {
        public var id: String
        public var email: String
        public var password: String
        public init(id: String, email: String, password: String) {
            self.id = id
            self.email = email
            self.password = password
        }
    }

    public var clientID: String
    public var clientSecret: String
    public var merchants: [Merchant]
    public var returnURL: String

    public init(clientID: String, clientSecret: String, merchants: [Merchant], returnURL: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.merchants = merchants
        self.returnURL = returnURL
    }
}

/// The Moltin fake's data: registered clients and the product catalogue.
public struct MoltinFixtureSpec: Sendable, Equatable {
    public struct Client: Sendable, Equatable {
        public var id: String
        public var secret: String
        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }
    }

    public struct Product: Sendable, Equatable {
        public var id: String
        public var title: String
        public var price: Int
        public init(id: String, title: String, price: Int) {
            self.id = id
            self.title = title
            self.price = price
        }
    }

    public var clients: [Client]
    /// Nil means the fake's default catalogue.
    public var products: [Product]?
    /// Seconds; nil means the tutorial's one hour.
    public var tokenLifetime: Int?

    public init(clients: [Client], products: [Product]? = nil, tokenLifetime: Int? = nil) {
        self.clients = clients
        self.products = products
        self.tokenLifetime = tokenLifetime
    }
}

/// One step: at most one action, then expectations about what followed.
public struct Step: Sendable {
    /// 1-based, as the reports number steps.
    public var number: Int
    public var location: SourceLocation
    public var note: String?
    public var action: Action?
    public var expect: Expectation?

    public init(number: Int, location: SourceLocation, note: String? = nil, action: Action? = nil, expect: Expectation? = nil) {
        self.number = number
        self.location = location
        self.note = note
        self.action = action
        self.expect = expect
    }
}

/// What a step does before its expectations are checked.
public enum Action: Sendable, Equatable {
    /// An SDK call through the driver, e.g. `auth` with its arguments.
    case app(name: String, arguments: [Argument])
    /// Moves the virtual clock shared by the SDK and the fake server.
    case advanceClock(seconds: Int, written: String)
    /// Tells the fake server to misbehave.
    case fault(FaultSpec)
    /// Ends every injected fault.
    case clearFaults
    /// A server-side operation of the provider persona, e.g. `revokeTokens`.
    case server(operation: String)
    /// The scripted browser acts as the user: `login`, `deny`, `open`, `tamper`.
    case browser(operation: String, arguments: [Argument])
    /// The harness itself sends a request to the fake, as any HTTP client would.
    case send(SendSpec)
}

/// A request the harness sends to the fake server itself.
public struct SendSpec: Sendable, Equatable {
    public var method: String
    public var path: Template
    public var headers: [Argument]
    /// Sent as a JSON object of strings when not empty.
    public var json: [Argument]
    /// Sent form-encoded when not empty.
    public var form: [Argument]

    public init(method: String, path: Template, headers: [Argument] = [], json: [Argument] = [], form: [Argument] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.json = json
        self.form = form
    }
}

/// A named argument of an app action.
public struct Argument: Sendable, Equatable {
    public var name: String
    public var value: Template

    public init(name: String, value: Template) {
        self.name = name
        self.value = value
    }
}

/// A server fault: which, on which path, how many times.
public struct FaultSpec: Sendable, Equatable {
    public var kind: String
    /// Nil: every path.
    public var path: String?
    /// Nil: until cleared.
    public var times: Int?
    /// `stall` only: how far the virtual clock moves while the server holds the request, so
    /// an SDK's request timeout (on the same clock) fires without real waiting.
    public var clockAdvance: Int?
    /// The duration as written, for reports.
    public var clockAdvanceWritten: String?

    public init(kind: String, path: String? = nil, times: Int? = nil, clockAdvance: Int? = nil, clockAdvanceWritten: String? = nil) {
        self.kind = kind
        self.path = path
        self.times = times
        self.clockAdvance = clockAdvance
        self.clockAdvanceWritten = clockAdvanceWritten
    }
}

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
