/// The families of adversarial variants the runner derives from every committed flow: the same
/// attack tried at every place of every flow where it applies, each variant with its expected
/// outcome given by a rule ( ``DerivedRule``), not written by hand.
///
/// A closed set: the deriver, the reports' family × provider table and the loader's opt-out
/// switch over it with no `default:`.
public enum DerivedFamily: String, CaseIterable, Sendable, Comparable {
    /// The redirect or callback the SDK is handed, rewritten: a parameter changed, repeated,
    /// removed or injected; the URL a near miss of the registered one; credentials added.
    case tamper
    /// A logout, on the same SDK instance or on a new one after a relaunch, while each request
    /// of the flow is held in flight.
    case interleave
    /// The store's write dies before its commit at every write, then a relaunch and a logout.
    case storeCrash
    /// Every answer the SDK reads, garbled (a truncated document, an HTML page) or reshaped as
    /// its documents allow (a member it does not know, one expiry field of two, ...).
    case answer

    /// One line for reports.
    public var summary: String {
        switch self {
        case .tamper: return "redirect and callback tampers: each parameter changed, repeated, removed or injected with encoded delimiters; scheme, host and path near misses; credentials and fragments added; the redirect handed over again once its login has ended; rewrites the RFCs make equivalent"
        case .interleave: return "a logout, on the same SDK instance or on a new one after a relaunch over the same store, while each request of a login, renewal or API call is held in flight, then released"
        case .storeCrash: return "every store write crashed before its commit, then a relaunch and a logout: nothing of the token left"
        case .answer: return "every answer the SDK reads garbled (a truncated JSON document, an HTML page or a JSON object of none of its shapes sent with 200), and reshaped as its documents allow (unknown members, one of two expiry fields or none where the default holds, the error text under another documented name, no challenge beside a documented body)"
        }
    }

    public static func < (lhs: DerivedFamily, rhs: DerivedFamily) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The rule that gives a derived variant its expected outcome, with the requirements that make
/// it one.
public struct DerivedRule: Sendable, Equatable {
    /// `DRV-REFUSED`, ...
    public var id: String
    /// What a conforming SDK does, in one sentence.
    public var statement: String
    /// Requirement ids (in the catalogue).
    public var requirements: [String]

    public init(id: String, statement: String, requirements: [String]) {
        self.id = id
        self.statement = statement
        self.requirements = requirements
    }
}

/// Where a derived variant comes from: its flow, family, variant name and rule.
public struct Derivation: Sendable, Equatable {
    /// The id of the committed flow it was derived from.
    public var parent: String
    public var family: DerivedFamily
    /// The variant's name within the flow, e.g. `state.case` or `step5.host.suffix`.
    public var variant: String
    public var rule: DerivedRule
    /// What was done to the flow, in words for reports.
    public var description: String

    public init(parent: String, family: DerivedFamily, variant: String, rule: DerivedRule, description: String) {
        self.parent = parent
        self.family = family
        self.variant = variant
        self.rule = rule
        self.description = description
    }

    /// The derived flow's id: `CLE-LOGIN~tamper.state.case`. Stable: built from the flow's id
    /// and the variant's place and kind only.
    public var id: String { "\(parent)~\(family.rawValue).\(variant)" }
}

/// A flow's opt-out of a family (`"notDerived": [{"family": "tamper", "why": "..."}]`): no
/// variant of that family is derived from it, and reports show the reason.
public struct DerivedOptOut: Sendable, Equatable {
    public var family: DerivedFamily
    public var why: String
    public var location: SourceLocation

    public init(family: DerivedFamily, why: String, location: SourceLocation) {
        self.family = family
        self.why = why
        self.location = location
    }

    /// The keys of one opt-out object.
    public static let keys = ["family", "why"]
}

/// How a provider's redirects are judged by the derived families, declared beside its kit.
public struct DerivationProfile: Sendable {
    /// What a redirect parameter stands for, so a tamper of it has a rule.
    public enum ParameterRole: Sendable, Equatable {
        /// Binds the redirect to the login the SDK started (`state`): any change is refused on
        /// the device, before any request (RFC 6749 §10.12).
        case bindsLogin
        /// A credential the server checks (`code`): a changed one logs nobody in, though the
        /// SDK may learn that only from the token endpoint.
        case credential
        /// Must be there and not empty (an emptied or removed one is refused, no request); what
        /// its value must be, no document says, so other changes are not tried.
        case required(String)
        /// No document says what the SDK must do with a changed value: not tampered, for this
        /// reason.
        case unjudged(String)
    }

    /// What the SDK must do with credential-like parameters its provider never puts in this
    /// redirect (`access_token`, `token`, a fragment).
    public enum InjectedCredentials: Sendable, Equatable {
        /// Ignore them and go on as without them (RFC 6749 §4.1.2: the client ignores response
        /// parameters it does not recognise); never store or send the injected value.
        case ignored
        /// Refuse the whole URL (a provider whose seed says a token never comes this way).
        case refused(because: String, requirements: [String])
    }

    /// An answer the SDK reads and acts on (a token endpoint's, an API's), for the `answer`
    /// family: garbled wherever a flow's call gets it, and reshaped as listed.
    public struct ParsedAnswer: Sendable {
        /// The request path; one ending in `/` is a prefix (`/v3/merchants/`).
        public var path: String
        /// Reshapes of the answer (fault kinds with ``FaultKind/isReshape``) that a conforming
        /// client reads as the original.
        public var equivalent: [EquivalentShape]

        public init(path: String, equivalent: [EquivalentShape] = []) {
            self.path = path
            self.equivalent = equivalent
        }

        /// Whether a request to `requestPath` gets this answer.
        public func matches(_ requestPath: String) -> Bool {
            path.hasSuffix("/") ? requestPath.hasPrefix(path) && requestPath.count > path.count : requestPath == path
        }
    }

    /// A reshape a conforming client reads as the original answer, and the document that says so.
    public struct EquivalentShape: Sendable {
        /// The reshape's fault kind (`unknownMembers`, ...).
        public var fault: String
        /// The statuses of the answers it is tried on (a flow's first request to the path that
        /// expects one of them is where it starts).
        public var statuses: [ClosedRange<Int>]
        /// Why a conforming client reads it as the original.
        public var why: String
        /// Whether it is tried on a flow with this fixture (a documented default lifetime holds
        /// only where the fixture's lifetime is that default).
        public var appliesTo: @Sendable (any ProviderFixture) -> Bool

        /// A 429's or 503's `Retry-After` as the HTTP-date it names (the `retryAfterDate`
        /// reshape): an answer shape of every provider whose answers carry one.
        public static let retryAfterDate = EquivalentShape("retryAfterDate", statuses: 429...429, 503...503, why: "RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date; the date names the same instant, so a client that waits, waits as long")

        public init(_ fault: String, statuses: ClosedRange<Int>..., why: String, appliesTo: @escaping @Sendable (any ProviderFixture) -> Bool = { _ in true }) {
            self.fault = fault
            self.statuses = statuses
            self.why = why
            self.appliesTo = appliesTo
        }
    }

    /// The redirect's query parameters and their roles; one not listed is not tampered.
    public var parameters: [String: ParameterRole]
    public var injectedCredentials: InjectedCredentials
    /// Families that never apply to the provider, with why (the table shows it).
    public var notApplicable: [DerivedFamily: String]
    /// The app action that ends the session on the user's request (a logout), for the
    /// interleavings; nil: none.
    public var logoutAction: String?
    /// The answers the SDK reads, for the `answer` family; none: the family has no place.
    public var answers: [ParsedAnswer]
    /// App actions that begin a session (a login, a setup, a token the app hands over): no
    /// relaunch interleaving is derived around their requests. The new instance's logout ends
    /// the session the store holds; a login still pending in the old instance is another,
    /// newer one, and no document says one instance must cancel another's (in an app, the
    /// relaunch ended the process that started it). The logout on the same instance is
    /// derived for them as for every call.
    public var sessionStarts: Set<String>
    /// Why a request of the session still in flight in an instance the app relaunched away
    /// from must not write back after the new instance's logout (a written flow that says so);
    /// nil: the relaunch interleavings are not derived for the provider. In an app a relaunch
    /// ends the process whose request was in flight, so only a provider whose own flows
    /// settle what a late answer may do gets them; the others keep the logout on the same
    /// instance.
    public var relaunchInFlight: String?
    /// Why a redirect handed over again once its login has ended (exchanged, denied, failed)
    /// must be refused with no request, for the `replayed` tampers; nil: not derived. A
    /// provider whose login is also bound by PKCE may let a replayed code reach the token
    /// endpoint (the verifier refuses it there, RFC 9700 §2.1), and one whose return URL
    /// carries no state has nothing that is spent.
    public var replaysRefused: String?

    public init(parameters: [String: ParameterRole] = [:], injectedCredentials: InjectedCredentials = .ignored, notApplicable: [DerivedFamily: String] = [:], logoutAction: String? = nil, sessionStarts: Set<String> = [], relaunchInFlight: String? = nil, replaysRefused: String? = nil, answers: [ParsedAnswer] = []) {
        self.replaysRefused = replaysRefused
        self.answers = answers
        self.sessionStarts = sessionStarts
        self.relaunchInFlight = relaunchInFlight
        self.parameters = parameters
        self.injectedCredentials = injectedCredentials
        self.notApplicable = notApplicable
        self.logoutAction = logoutAction
    }
}
