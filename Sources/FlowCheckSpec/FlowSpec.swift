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
}

/// Server fixture data, per provider.
public enum Fixture: Sendable, Equatable {
    case moltin(MoltinFixtureSpec)

    /// Every secret the fixture holds (for redaction: none of them may reach a report).
    public var secrets: [String] {
        switch self {
        case .moltin(let fixture): return fixture.clients.map(\.secret)
        }
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

    public init(kind: String, path: String? = nil, times: Int? = nil) {
        self.kind = kind
        self.path = path
        self.times = times
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

    public init(
        outcome: Outcome? = nil, error: ErrorExpectation? = nil, result: [FieldMatcher] = [],
        requests: [RequestExpectation]? = nil, store: [FieldMatcher] = [], storeEmpty: Bool? = nil
    ) {
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
