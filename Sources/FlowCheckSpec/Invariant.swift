import Foundation

/// A rule the runner checks after every step of every flow, whatever the spec says: each cites
/// the requirements it enforces (ids in the requirement catalogue), and a violation fails the
/// flow at that step like any expectation. A spec opts a step out of one with a written reason
/// (`"allow": [{"invariant": "INV-EXPIRED", "why": "..."}]`); the report lists every opt-out.
///
/// A closed set: the checker switches over it with no `default:`, so a new invariant is a case
/// the compiler chases into the runner, the schema and the table in docs/invariants-and-requirements.md.
public enum Invariant: String, CaseIterable, Sendable, Comparable {
    /// No credential reaches the app in anything the SDK hands it, in any encoding.
    case leak = "INV-LEAK"
    /// No request carries an access token at or past its expiry by the fake's clock.
    case expired = "INV-EXPIRED"
    /// A secret that stays on the server (or with the user) never leaves the device in an SDK request.
    case secretWire = "INV-SECRET-WIRE"
    /// Credentials go only to the origins meant to receive them, never in clear text off loopback.
    case origin = "INV-ORIGIN"
    /// A transient failure never deletes or replaces the stored token.
    case keep = "INV-KEEP"
    /// Every login that ends dismisses the browser it opened.
    case dismiss = "INV-DISMISS"
    /// A file-backed store is owner-only and replaced atomically, with no leftover file.
    case store = "INV-STORE"
    /// `state` and PKCE verifiers are fresh, unrelated and unguessable across logins.
    case random = "INV-RANDOM"
    /// Within one call, a request answered with `Retry-After` is not sent again before then.
    case retryAfter = "INV-RETRY-AFTER"

    public static func < (lhs: Invariant, rhs: Invariant) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The requirement ids (in the catalogue) this invariant enforces, most specific first.
    public var requirements: [String] {
        switch self {
        case .leak: return ["RFC6749-10.3", "RFC6749-10.5", "RFC6749-10.1"]
        case .expired: return ["RFC6749-5.1", "SEED-003-expiry"]
        case .secretWire: return ["RFC8252-8.5", "SEED-002-server-secret"]
        case .origin: return ["RFC8252-8.3", "RFC9700-2.6", "RFC6750-5.3"]
        case .keep: return ["RFC6749-5.2", "RFC6749-6"]
        case .dismiss: return ["SEED-002-dismiss"]
        case .store: return ["RFC6819-5.3.3"]
        case .random: return ["RFC6749-10.10", "RFC7636-7.1", "SEED-004-state"]
        case .retryAfter: return ["RFC9110-10.2.3", "RFC6585-4"]
        }
    }

    /// One line saying what the invariant holds the SDK to.
    public var statement: String {
        switch self {
        case .leak: return "no client secret, password, issued token, code or PKCE verifier appears (raw, form-encoded, base64 or JSON-escaped) in an error message, a crash message or a non-credential result field the SDK hands the app"
        case .expired: return "no request carries an access token at or past the expiry the provider gave it, by the provider's clock"
        case .secretWire: return "no SDK request carries a secret that stays on the server or with the user (a backend's client secret, a low-trust app's secret, a user's password), in any encoding"
        case .origin: return "Bearer tokens, codes and client credentials go only to the origin that serves the path they are meant for, and never in clear-text http:// to a host that is not loopback"
        case .keep: return "a transient failure (transport error, timeout, 5xx, 429, an answer that is not the provider's JSON) never deletes or replaces the stored token; only the provider's refusal of the token itself may"
        case .dismiss: return "every login that ends (success, error, denial, cancellation) has dismissed the browser it opened"
        case .store: return "a file-backed token store keeps owner-only files in an owner-only folder, replaces them atomically, and leaves no copy of a token behind"
        case .random: return "every login's state and PKCE verifier carry 128 bits at least (counted by the alphabet they are written in), differ from every other one of the run, share no long common prefix, and are not timestamps or counters"
        case .retryAfter: return "within one call, a request answered 429 or 503 with Retry-After is not sent again (same method, origin and path) before the time the server named, by the flow's clock; waiting it out and retrying, or giving up, both conform"
        }
    }
}
