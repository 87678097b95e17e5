/// The words a spec may use whatever its provider: browser operations, error kinds, faults.
/// Each provider's own words (app actions, store fields, server operations) are in its kit.
///
/// The loader checks every spec against these lists, so a typo is caught before anything runs,
/// and the lists are what "did you mean" suggests from.
public enum Vocabulary {
    /// An app action: what the driver must do, and its arguments.
    public struct ActionSignature: Sendable {
        public var name: String
        public var required: [String]
        public var optional: [String]
        /// What the call stands for, as reports say it after the call ("the tutorial's Products").
        public var summary: String
        /// The result fields the driver reports; an entry ending in "." is a prefix ("fired.").
        public var results: [String] = []
        /// The arguments that may be a ``TamperTransform`` object instead of a value.
        public var transformable: [String] = []
        /// Each argument's type. Every argument has one (a test holds each kit to it); one not
        /// listed would be read as ``ArgumentType/text``.
        public var types: [String: ArgumentType] = [:]
        /// Arguments that belong to some values of another only (``DependentArgument``).
        public var dependents: [DependentArgument] = []
        /// The call removes the stored token because the app asked it to (a logout): INV-KEEP,
        /// which forbids losing a token to a transient failure, does not judge it.
        public var clearsStore = false
        /// Whether the call ends a login the SDK opened the browser for (INV-DISMISS).
        public var endsLogin: LoginEnding = .never

        public init(name: String, required: [String], optional: [String], summary: String, results: [String] = [], types: [String: ArgumentType] = [:]) {
            self.name = name
            self.required = required
            self.optional = optional
            self.summary = summary
            self.results = results
            self.types = types
        }

        /// This action, declared as ending a login (INV-DISMISS).
        public func endingLogin(_ ending: LoginEnding = .always) -> Self {
            var copy = self
            copy.endsLogin = ending
            return copy
        }

        /// This action, declared as removing the stored token on the app's request.
        public func clearingStore() -> Self {
            var copy = self
            copy.clearsStore = true
            return copy
        }

        /// This action, with `argument` needed when `other` is one of `values` and ignored by
        /// the driver otherwise.
        public func requiring(_ argument: String, when other: String, is values: [String]) -> Self {
            var copy = self
            copy.dependents.append(DependentArgument(argument: argument, on: other, values: values))
            return copy
        }

        /// The type of the argument `name`.
        public func type(of name: String) -> ArgumentType { types[name] ?? .text }
    }

    /// An optional argument the driver reads only for some values of another: `environment`'s
    /// `baseURL`, read when `name` is `custom`. The loader demands it for those values and
    /// refuses it for the others, where the driver would silently ignore it.
    public struct DependentArgument: Sendable, Equatable {
        public var argument: String
        /// The argument whose value decides.
        public var on: String
        /// The values of ``on`` that need ``argument``.
        public var values: [String]
    }

    /// What an action's argument must be, as the driver interprets it. The loader checks every
    /// value against it, and the schema says it. A count or a word is read by the driver as
    /// written, so it takes no `${variables}`; a URL may (its literal start is checked).
    public enum ArgumentType: Sendable, Equatable {
        /// Any text (a client id, a password, a label).
        case text
        /// An absolute URL: a scheme, then the rest (`https://...`, `com.example.app:/cb`).
        case url
        /// A whole number in the range.
        case count(ClosedRange<Int>)
        /// One of the listed words.
        case oneOf([String])
        /// Some of the listed words, separated by commas (`"state,code"`), each once.
        case listOf([String])
    }

    /// What the scripted browser can do, and its arguments: one signature per
    /// ``BrowserOperation``, in its order.
    public static let browserOperations: [ActionSignature] = BrowserOperation.allCases.map(\.signature)

    /// The redirect parameters a `tamper` may set or transform.
    public static let tamperParameters = ["state", "code", "client_id", "merchant_id", "error", "access_token", "token"]

    /// The parts of the captured redirect's URL a `tamper` may set or transform, besides its
    /// query: a near miss of the scheme, host or path, a userinfo or port added, a fragment.
    public static let tamperURLParts = ["scheme", "host", "port", "userinfo", "path", "fragment"]

    /// Variables every spec may use without capturing them: the fake's base URL and the
    /// redirect the browser last captured.
    public static let builtinVariables = ["baseURL", "redirect"]

    /// `baseURL.ORIGIN` for every origin of a provider with more than one (Clover's
    /// `${baseURL.web}`, its login host); `baseURL` is the first (primary) origin's.
    public static func originVariables(_ origins: [String]) -> [String] {
        origins.count > 1 ? origins.map { "baseURL.\($0)" } : []
    }

    /// Error kinds an SDK call can end in, as drivers report them. The RFC each comes from is in
    /// docs/spec-format.md.
    public static let errorKinds = [
        "transport", "serverError", "invalidResponse", "tokenEndpoint", "tokenRejected", "httpStatus",
        "notLoggedIn", "storage", "configuration", "authorization", "stateMismatch",
    ]

    /// Faults the fake server can be told to produce.
    public static let faultKinds = [
        "unreachable", "serverError", "nonJSONBody", "tokenNotValid",
        "connectionReset", "stall", "htmlServerError", "truncatedJSON", "redirectLoop",
        "rateLimited", "invalidGrant", "serviceUnavailable", "hold",
        "unknownMembers", "withoutExpires", "errorsMember", "withoutChallenge", "withoutExpiry", "otherJSON", "retryAfterDate",
    ]
}

/// Whether an app call can end a login the SDK opened the browser for, so the SDK must have
/// dismissed it (INV-DISMISS). The judge decides from what happened whether it did: the call
/// succeeded, spent the code in a token request, or received the provider's error answer for
/// this login (RFC 6749 §4.1.2.1, carrying the login's state). A redirect the SDK refuses as
/// not this login's (another state, a look-alike host) ends nothing: the login goes on.
public enum LoginEnding: Sendable, Equatable {
    /// The call has nothing to do with a login's end.
    case never
    /// The call receives the login's redirect.
    case always
    /// As ``always``, but a success whose result has `field` equal to `value` means the SDK
    /// ignored what it was given (an untrusted URL), and the login goes on.
    case unlessResult(field: String, is: String)
}
