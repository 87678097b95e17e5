/// The `tamper` family: at every step that hands the SDK the redirect the browser just
/// captured, the redirect rewritten one way at a time, each with the rule that says what a
/// conforming SDK does with it.
enum RedirectTampers {
    // MARK: - Rules

    /// A redirect that is not the one the provider sent for this login.
    static let refused = DerivedRule(
        id: "DRV-REFUSED",
        statement: "a redirect that is not this login's as the provider sent it (its state changed, a parameter repeated, its URL a near miss of the registered one) is refused on the device: no request, nothing stored",
        requirements: ["RFC6749-10.12", "RFC6749-3.1", "RFC6749-3.1.2", "RFC9700-2.1", "SEED-001-redirect"])
    /// A redirect without a parameter its provider always sends.
    static let missingRequired = DerivedRule(
        id: "DRV-MISSING",
        statement: "a redirect or return URL without a parameter its provider always sends (emptied or removed) is refused: no request, nothing stored",
        requirements: ["SEED-001-redirect", "SEED-002-trusted", "RFC6749-4.1.2"])
    /// A redirect whose code is not the one issued.
    static let noLogin = DerivedRule(
        id: "DRV-NO-LOGIN",
        statement: "a redirect whose code is not the one the provider issued (changed, cut, emptied, removed or repeated) logs nobody in: the call fails and nothing is stored",
        requirements: ["RFC6749-4.1.2", "RFC6749-4.1.3", "RFC6749-3.1"])
    /// The same redirect handed over twice at once.
    static let exchangedOnce = DerivedRule(
        id: "DRV-ONCE",
        statement: "the same redirect handed to the SDK twice at once (a double tap, two URL-open events) is exchanged once: one token request in all, and the session stored",
        requirements: ["RFC6749-10.5", "RFC6749-4.1.2", "SEED-001-code-once"])
    /// The same redirect handed over again once its login has ended.
    static let replayRefused = DerivedRule(
        id: "DRV-REPLAY",
        statement: "on a provider whose state alone binds a redirect to its login, a redirect handed over again after its login ended (exchanged, refused, failed or denied) is refused: the state is spent; no request, nothing stored",
        requirements: ["SEED-004-state", "RFC6749-10.12", "RFC6749-4.1.2"])
    /// A rewrite the RFCs make the same URL.
    static let equivalent = DerivedRule(
        id: "DRV-EQUIVALENT",
        statement: "a redirect rewritten in a way the RFCs make the same (a percent-encoded unreserved character, the parameters' order, the case of the scheme and host) behaves exactly as the original",
        requirements: ["RFC3986-6.2.2", "RFC6749-4.1.2"])
    /// Credential-like parameters the provider never sends this way.
    static let injectedNeverUsed = DerivedRule(
        id: "DRV-INJECTED",
        statement: "a credential the provider never sends in this redirect (an access_token or token parameter, a fragment carrying one) is never stored or sent: the SDK goes on without it (RFC 6749 §4.1.2 ignores unknown parameters) or refuses the redirect (RFC 6749 §10.16), either way",
        requirements: ["RFC6749-4.1.2", "RFC6749-10.16"])
    /// An error redirect carrying a code as well.
    static let codeBesideError = DerivedRule(
        id: "DRV-CODE-BESIDE-ERROR",
        statement: "an error redirect carrying a code is no authorization (RFC 6749 §4.1.2.1: an error response carries none): no token request, nothing stored",
        requirements: ["RFC6749-4.1.2.1", "RFC6749-3.1"])

    // MARK: - Deriving

    /// The variants of `spec`: none when it hands the SDK no freshly captured redirect.
    static func derive(_ spec: FlowSpec, provider: any ProviderDescription) -> [Deriver.Candidate] {
        let places = receivingSteps(spec, actions: provider.actions)
        var candidates: [Deriver.Candidate] = []
        for place in places {
            let prefix = places.count > 1 ? "step\(spec.steps[place.index].number)." : ""
            if let twice = deliveredTwice(spec, place: place, provider: provider, prefix: prefix) {
                candidates.append(twice)
            }
            if provider.derivation.replaysRefused != nil {
                candidates.append(replayed(spec, place: place, prefix: prefix))
                if place.denied, let credential = provider.derivation.parameters.filter({ $0.value == .credential }).keys.sorted().first {
                    // With whatever else a code's redirect must carry: a redirect refused for a
                    // missing parameter would prove nothing about the state.
                    let required = provider.derivation.parameters.compactMap { name, role -> String? in if case .required = role { return name } else { return nil } }.sorted()
                    candidates.append(replayed(spec, place: place, prefix: prefix, withCredential: credential, required: required))
                }
            }
            for attack in attacks(for: place, profile: provider.derivation) {
                let steps = build(spec, place: place, attack: attack, provider: provider)
                let derivation = Derivation(parent: spec.id, family: .tamper, variant: prefix + attack.name, rule: attack.rule,
                                            description: "step \(spec.steps[place.index].number)'s redirect \(attack.description)")
                candidates.append(Deriver.candidate(spec, steps: steps, attacked: place.index, derivation: derivation, kind: attack.name))
            }
        }
        return candidates
    }

    /// A step that hands the SDK the redirect the browser captured (`"url": "${redirect}"` of
    /// an action that ends a login), right after the capture with no tamper between.
    struct Place {
        var index: Int
        var signature: Vocabulary.ActionSignature
        /// The capture step's redirect expectation: the parameters it names, its scheme, host
        /// and path when written as literals.
        var parameters: [String]
        var host: String?
        var path: String?
        /// The capture was a denial: the redirect carries an error, not a code.
        var denied: Bool
    }

    static func receivingSteps(_ spec: FlowSpec, actions: [Vocabulary.ActionSignature]) -> [Place] {
        var places: [Place] = []
        var capture: (index: Int, expectation: URLExpectation?, denied: Bool)?
        for (index, step) in spec.steps.enumerated() {
            switch step.action {
            case .browser(let operation, _, _)?:
                switch operation {
                case .login, .deny:
                    let redirect = step.expect?.checks.lazy.compactMap { check -> URLExpectation? in
                        guard case .browser(let checks) = check else { return nil }
                        return checks.lazy.compactMap { if case .redirect(let url) = $0 { return url } else { return nil } }.first
                    }.first
                    capture = (index, redirect, operation == .deny)
                case .tamper, .open:
                    capture = nil
                }
            case .app(let name, let arguments)?:
                guard let found = capture, step.background == nil, !Deriver.backgroundPending(in: spec, before: index), let signature = actions.first(where: { $0.name == name }),
                      signature.endsLogin != .never,
                      arguments.contains(where: { signature.type(of: $0.name) == .url && $0.value.raw == "${redirect}" }) else {
                    if case .app(_, let arguments)? = step.action, arguments.contains(where: { $0.value.raw.contains("${redirect}") }) { capture = nil }
                    continue
                }
                var parameters: [String] = []
                var host: String?
                var path: String?
                for check in found.expectation?.checks ?? [] {
                    switch check {
                    case .query(let fields): parameters = fields.map(\.field)
                    case .host(let matcher): host = literal(matcher)
                    case .path(let matcher): path = literal(matcher)
                    case .url, .scheme, .forbid: break
                    }
                }
                places.append(Place(index: index, signature: signature, parameters: parameters, host: host, path: path, denied: found.denied))
                capture = nil
            default:
                continue
            }
        }
        return places
    }

    private static func literal(_ matcher: Matcher) -> String? {
        if case .equals(let template) = matcher.kind, template.variables.isEmpty { return template.raw }
        return nil
    }

    // MARK: - Attacks

    /// One rewrite of the redirect and what it must lead to.
    struct Attack {
        /// What it must lead to; one declaration with the catalogue explore reads.
        typealias Outcome = RedirectTamperCatalog.Tamper.Outcome
        var name: String
        var description: String
        var arguments: [Argument] = []
        var transforms: [(String, TamperTransform)] = []
        var outcome: Outcome
        var rule: DerivedRule
    }

    static let delimiters = [("26", "&"), ("3D", "="), ("3F", "?"), ("2F", "/"), ("23", "#")]

    static func attacks(for place: Place, profile: DerivationProfile) -> [Attack] {
        var attacks: [Attack] = []
        for parameter in place.parameters {
            let role = profile.parameters[parameter] ?? .unjudged("")
            let bad: Attack.Outcome
            let rule: DerivedRule
            switch role {
            case .bindsLogin: (bad, rule) = (.refused, refused)
            case .credential: (bad, rule) = (.noLogin, noLogin)
            case .required:
                attacks += [
                    Attack(name: "\(parameter).empty", description: "with \(parameter) present but empty", transforms: [(parameter, .empty)], outcome: .refused, rule: missingRequired),
                    Attack(name: "\(parameter).removed", description: "with \(parameter) removed", arguments: [Argument(name: "remove", value: Template(parameter))], outcome: .refused, rule: missingRequired),
                ]
                continue
            case .unjudged: continue
            }
            func attack(_ kind: String, _ words: String, transform: TamperTransform? = nil, arguments: [Argument] = [], outcome: Attack.Outcome? = nil, rule other: DerivedRule? = nil) -> Attack {
                Attack(name: "\(parameter).\(kind)", description: "with \(parameter) \(words)", arguments: arguments, transforms: transform.map { [(parameter, $0)] } ?? [], outcome: outcome ?? bad, rule: other ?? rule)
            }
            attacks += [
                attack("empty", "present but empty", transform: .empty),
                attack("removed", "removed", arguments: [Argument(name: "remove", value: Template(parameter))]),
                attack("repeated-first", "repeated, a forged value first", transform: .repeatFirst(Template("forged-\(parameter)-1"))),
                attack("repeated-last", "repeated, a forged value last", transform: .repeatLast(Template("forged-\(parameter)-1"))),
            ]
            // A credential the server checks: a changed value is the server's to refuse, so the
            // near misses of its value (which only the SDK's own comparison could catch) are
            // tried on the parameter the SDK compares, and one encoded delimiter is enough here
            // to catch a client that splits or decodes the query wrongly.
            let nearMisses = role == .bindsLogin
            if nearMisses {
                attacks += [
                    attack("case", "in another case", transform: .flipCase),
                    attack("short", "one character short", transform: .dropLast),
                    attack("long", "one character long", transform: .append(Template("x"))),
                ]
            }
            for (hex, character) in delimiters where nearMisses || hex == "26" {
                attacks.append(attack("encoded-\(hex)", "with an encoded \(character) (%\(hex)) and more text appended", transform: .inject(Template("%\(hex)x"))))
            }
            attacks.append(attack("percent-encoded", "with its first unreserved character percent-encoded", transform: .percentEncode, outcome: .equivalent, rule: equivalent))
            attacks.append(attack("double-encoded", "with its first unreserved character percent-encoded twice", transform: .doubleEncode))
        }
        if place.denied {
            attacks.append(Attack(name: "code.beside-error", description: "carrying a code beside its error", arguments: [Argument(name: "code", value: Template("injected-code-1"))], outcome: .refused, rule: codeBesideError))
        } else if place.parameters.contains("code") {
            attacks.append(Attack(name: "error.beside-code", description: "carrying an error beside its code", arguments: [Argument(name: "error", value: Template("access_denied"))], outcome: .refused, rule: codeBesideError))
        }
        if !place.parameters.isEmpty {
            attacks.append(Attack(name: "query.in-fragment", description: "with its parameters moved from the query into the fragment", arguments: [Argument(name: "move", value: Template("queryToFragment"))], outcome: .refused, rule: refused))
        }
        // The URL: near misses are another URL; case in the scheme and host is the same one.
        attacks += [
            Attack(name: "scheme.case", description: "with its scheme in another case", transforms: [("scheme", .flipCase)], outcome: .equivalent, rule: equivalent),
            Attack(name: "scheme.longer", description: "with a scheme one character longer", transforms: [("scheme", .append(Template("x")))], outcome: .refused, rule: refused),
        ]
        if let host = place.host, !host.isEmpty {
            attacks += [
                Attack(name: "host.case", description: "with its host in another case", transforms: [("host", .flipCase)], outcome: .equivalent, rule: equivalent),
                Attack(name: "host.trailing-dot", description: "with a trailing dot on its host", transforms: [("host", .append(Template(".")))], outcome: .refused, rule: refused),
                Attack(name: "host.prefix", description: "on a host that ends with the right one (evil + host)", transforms: [("host", .prepend(Template("evil")))], outcome: .refused, rule: refused),
                Attack(name: "host.suffix", description: "on a host that starts with the right one (host + .evil.example)", transforms: [("host", .append(Template(".evil.example")))], outcome: .refused, rule: refused),
                Attack(name: "userinfo", description: "with a userinfo before its host", arguments: [Argument(name: "userinfo", value: Template("evil"))], outcome: .refused, rule: refused),
                Attack(name: "port", description: "with a port added", arguments: [Argument(name: "port", value: Template("8443"))], outcome: .refused, rule: refused),
            ]
        }
        attacks.append(Attack(name: "path.extra-segment", description: "with a path segment added", transforms: [("path", .inject(Template("/x")))], outcome: .refused, rule: refused))
        if let path = place.path, !path.isEmpty, path != "/" {
            attacks += [
                Attack(name: "path.suffix", description: "on a sibling path (path + -x)", transforms: [("path", .append(Template("-x")))], outcome: .refused, rule: refused),
                Attack(name: "path.trailing-slash", description: "with a trailing slash on its path", transforms: [("path", .inject(Template("/")))], outcome: .refused, rule: refused),
            ]
            if path.contains(where: \.isLetter) {
                attacks.append(Attack(name: "path.case", description: "with its path in another case", transforms: [("path", .flipCase)], outcome: .refused, rule: refused))
            }
        }
        if place.parameters.count > 1 {
            attacks.append(Attack(name: "order.reversed", description: "with its parameters in reverse order", arguments: [Argument(name: "order", value: Template("reversed"))], outcome: .equivalent, rule: equivalent))
        }
        // Credentials the provider never sends this way.
        let injected: [(String, String, [Argument])] = [
            ("access_token.added", "injected-access-token-1", [Argument(name: "access_token", value: Template("injected-access-token-1"))]),
            ("token.added", "injected-token-2", [Argument(name: "token", value: Template("injected-token-2"))]),
            ("fragment.added", "injected-access-token-3", [Argument(name: "fragment", value: Template("access_token=injected-access-token-3&state=forged-state-3&code=forged-code-3"))]),
        ]
        for (name, value, arguments) in injected {
            switch profile.injectedCredentials {
            case .ignored:
                attacks.append(Attack(name: name, description: "carrying \(name.hasPrefix("fragment") ? "a fragment with an access token, a state and a code" : "an \(name.split(separator: ".")[0]) parameter") it never sends", arguments: arguments, outcome: .injected(value), rule: injectedNeverUsed))
            case .refused(let because, let requirements):
                attacks.append(Attack(name: name, description: "carrying \(name.hasPrefix("fragment") ? "a fragment with an access token" : "an \(name.split(separator: ".")[0]) parameter")", arguments: arguments, outcome: .refused,
                                      rule: DerivedRule(id: "DRV-INJECTED-REFUSED", statement: "a return URL carrying credentials is refused: \(because)", requirements: requirements)))
            }
        }
        return attacks
    }

    // MARK: - Twice at once

    /// The receiving step run twice at once, when its original succeeds with exactly one token
    /// request (a code exchange): still exactly one request in all, the session stored.
    static func deliveredTwice(_ spec: FlowSpec, place: Place, provider: any ProviderDescription, prefix: String) -> Deriver.Candidate? {
        let receiving = spec.steps[place.index]
        guard !place.denied, place.parameters.contains(where: { provider.derivation.parameters[$0] == .credential }),
              let checks = receiving.expect?.checks, checks.contains(where: { $0 == .outcome(.error) || $0.kind == .error }) == false,
              let requests = checks.lazy.compactMap({ check -> [RequestExpectation]? in if case .requests(let list) = check { return list } else { return nil } }).first,
              requests.count == 1, !requests[0].isOptional else { return nil }
        let derivation = Derivation(parent: spec.id, family: .tamper, variant: prefix + "delivered-twice", rule: exchangedOnce,
                                    description: "step \(receiving.number)'s redirect handed over twice at once")
        var first = receiving
        first.background = "first"
        first.expect = nil
        first.note = "Derived: the redirect is handed over; the second copy follows at once."
        var second = receiving
        second.background = "second"
        second.expect = nil
        second.note = first.note
        let tokenFields = provider.storeFields.filter { $0.lowercased().contains("token") }
        var ending: [Check] = [.outcome(.any), .requests([requests[0]])]
        if !tokenFields.isEmpty { ending.append(.storeEmpty(false)) }
        let steps = Array(spec.steps[..<place.index]) + [
            first, second,
            Step(number: 0, location: receiving.location, note: "Derived: the second copy ends (refused, or the same session).", action: .await(label: "second"), expect: Expectation([.outcome(.any)]), allow: receiving.allow),
            Step(number: 0, location: receiving.location, note: "Derived (\(exchangedOnce.id)): \(exchangedOnce.statement).", action: .await(label: "first"), expect: Expectation(ending), allow: receiving.allow),
        ]
        return Deriver.candidate(spec, steps: steps, attacked: place.index, derivation: derivation, kind: "delivered-twice")
    }

    /// The receiving step as written (its own checks judge it), then the same redirect handed
    /// over again: refused, as the provider's refusal reads (an error, or the action's
    /// "not handled" result), with no request and the store as it was. Whatever became of the
    /// first delivery (a session, a denial, a failed exchange), the login it belonged to is over.
    /// `withCredential`: for a denial, the redirect comes back with its error removed and this
    /// parameter (the code) added, as a forged or second-tab answer to the same state would.
    static func replayed(_ spec: FlowSpec, place: Place, prefix: String, withCredential credential: String? = nil, required: [String] = []) -> Deriver.Candidate {
        let receiving = spec.steps[place.index]
        let name = credential.map { "replayed.with-\($0)" } ?? "replayed"
        let derivation = Derivation(parent: spec.id, family: .tamper, variant: prefix + name, rule: replayRefused,
                                    description: credential.map { "step \(receiving.number)'s denial handed over again with its error replaced by a \($0)" } ?? "step \(receiving.number)'s redirect handed over again once its login has ended")
        let checks = [refusal(place.signature), .requests([]), .storeUnchanged]
        var replay = receiving
        replay.expect = Expectation(checks)
        replay.note = "Derived (\(replayRefused.id)): \(replayRefused.statement)."
        replay.requirements = receiving.requirements + replayRefused.requirements.filter { !receiving.requirements.contains($0) }
        var steps = Array(spec.steps[...place.index])
        if let credential {
            steps.append(Step(number: 0, location: receiving.location, note: "Derived: the denial's redirect, its error replaced by a \(credential) for the same state.",
                              action: .browser(operation: .tamper, arguments: [Argument(name: "remove", value: Template("error,error_description,error_uri")), Argument(name: credential, value: Template("injected-code-1"))] + required.map { Argument(name: $0, value: Template("injected-\($0)")) }, transforms: []), allow: receiving.allow))
        }
        steps.append(Deriver.added(replay))
        return Deriver.candidate(spec, steps: steps, attacked: place.index + 1, derivation: derivation, kind: name)
    }

    // MARK: - Building

    /// How the receiving action says it refused a redirect: its "not handled" result
    /// (Braintree's `handled` false), or an error.
    static func refusal(_ signature: Vocabulary.ActionSignature) -> Check {
        switch signature.endsLogin {
        case .unlessResult(let field, let value):
            return .result([FieldMatcher(field: field, matcher: Matcher(.equals(Template(value))))])
        case .always, .never:
            return .outcome(.error)
        }
    }

    /// The flow up to the receiving step, the tamper, then: the receiving step with the rule's
    /// expectation (and nothing after) for a refusal, or the original rest of the flow.
    static func build(_ spec: FlowSpec, place: Place, attack: Attack, provider: any ProviderDescription) -> [Step] {
        let receiving = spec.steps[place.index]
        let transforms = attack.transforms.map { ParameterTransform(parameter: $0.0, transform: $0.1, location: receiving.location) }
        // The spec author's opt-outs of the receiving step hold for the tamper inserted before it.
        let tamper = Step(number: 0, location: receiving.location, note: "Derived: the redirect \(attack.description).",
                          action: .browser(operation: .tamper, arguments: attack.arguments, transforms: transforms), allow: receiving.allow)
        let steps = Array(spec.steps[..<place.index]) + [tamper]
        var judged = receiving
        judged.requirements = receiving.requirements + attack.rule.requirements.filter { !receiving.requirements.contains($0) }
        switch attack.outcome {
        case .refused, .noLogin:
            var checks = [refusal(place.signature)]
            if case .refused = attack.outcome { checks.append(.requests([])) }
            checks.append(.storeUnchanged)
            judged.expect = Expectation(checks)
            judged.note = "Derived (\(attack.rule.id)): \(attack.rule.statement)."
            return steps + [judged]
        case .equivalent:
            judged.note = "Derived (\(attack.rule.id)): as the original."
            return steps + [judged] + spec.steps[(place.index + 1)...]
        case .injected(let value):
            let template = Template(value)
            var checks: [Check] = [.outcome(.any), .neverSent([template])]
            let notStored = provider.storeFields.filter { $0.lowercased().contains("token") }.map { FieldMatcher(field: $0, matcher: Matcher(.notEquals(template))) }
            if !notStored.isEmpty { checks.append(.store(notStored)) }
            judged.expect = Expectation(checks)
            judged.note = "Derived (\(attack.rule.id)): \(attack.rule.statement)."
            return steps + [judged]
        }
    }
}
