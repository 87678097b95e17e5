/// The `tamper` family's rewrites of a redirect, for other generators of flows
/// (`flowcheck explore`): the same list the derived variants try, so a new attack reaches both.
public enum RedirectTamperCatalog {
    /// One rewrite of a captured redirect, as a `"browser": "tamper"` step writes it, and what a
    /// conforming SDK does when it is handed over.
    public struct Tamper: Sendable {
        public enum Outcome: Sendable, Equatable {
            /// Refused before any request, nothing stored.
            case refused
            /// Logs nobody in: the call fails and nothing is stored; the code may be sent and
            /// refused by the provider.
            case noLogin
            /// The same redirect: the SDK behaves exactly as with the original (a derived
            /// variant runs the rest of the flow unchanged).
            case equivalent
            /// Success or an error, either way `value` is never sent nor stored.
            case injected(String)
        }

        /// The variant-id suffix the derived variants use (`state.case`).
        public var name: String
        /// The step's `with` members that set a value (`"remove": "state"`).
        public var arguments: [(name: String, value: String)]
        /// The step's `with` members that transform the captured value.
        public var transforms: [(parameter: String, kind: TamperTransformKind, value: String?)]
        public var outcome: Outcome
        /// The id of the rule that decides the outcome (`DRV-REFUSED`).
        public var rule: String
    }

    /// The rewrites of a redirect carrying `parameters` (a code's, or a denial's), on `host`
    /// and `path` as written, for a provider with `profile`.
    public static func tampers(parameters: [String], host: String?, path: String?, denied: Bool, profile: DerivationProfile) -> [Tamper] {
        // The signature only shapes a derived variant's refusal check; these are judged by the
        // caller.
        let place = RedirectTampers.Place(index: 0, signature: Vocabulary.ActionSignature(name: "receiveRedirect", required: ["url"], optional: [], summary: ""),
                                          parameters: parameters, host: host, path: path, denied: denied)
        return RedirectTampers.attacks(for: place, profile: profile).map { attack in
            Tamper(name: attack.name, arguments: attack.arguments.map { ($0.name, $0.value.raw) },
                   transforms: attack.transforms.map { ($0.0, $0.1.kind, $0.1.value?.raw) }, outcome: attack.outcome, rule: attack.rule.id)
        }
    }
}
