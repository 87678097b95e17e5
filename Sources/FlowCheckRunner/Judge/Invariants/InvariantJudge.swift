import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// What one step showed the invariants, after its action and its expectations.
struct InvariantObservation {
    var step: Step
    /// Who made the step's requests: the SDK (app calls, awaits, expect-only steps), the
    /// scripted browser, or the spec's own client (`send`). Only the SDK's are judged.
    var actor: FlowEvent.Actor
    /// How the step's call ended, for a foreground app call or an await.
    var outcome: CallOutcome?
    /// The app call's arguments as the SDK received them (variables substituted).
    var arguments: [String: String] = [:]
    /// Requests recorded since the previous step.
    var fresh: [RecordedExchange]
    /// Requests that belong to the step's call: `fresh`, or everything since a background
    /// call started for its await.
    var window: [RecordedExchange]
    /// Pages the SDK opened in the browser during the step.
    var opened: [URL]
    /// Every request the SDK sent in the flow so far, as the driver saw it leave (nil when the
    /// driver cannot see them); the judge looks at those it has not judged yet.
    var sent: [SentRequest]? = nil
    /// Whether a page the SDK opened is still showing.
    var browserShowing: Bool
    /// The SDK's stored token after the step; nil when it could not be read (or no enabled
    /// invariant reads it).
    var store: [String: String]?
    /// The store's files, measured after the step; nil when the store is not file-backed (or
    /// no enabled invariant reads them).
    var storeFiles: StoreDirectoryFacts?
    /// Every credential the fake has issued so far (tokens, codes).
    var issued: [String]
    /// The flow's clock after the step.
    var now: Date
}

/// An invariant broken at a step.
struct InvariantViolation: Equatable {
    var invariant: Invariant
    /// What was seen, secrets and all: the report's redactor masks them for display.
    var detail: String
}

/// Checks every ``Invariant`` after every step of one flow, and keeps what it needs to judge
/// across steps (the stored token before, the logins' nonces, the store's files).
///
/// It judges unmasked values: the redactor masks only what reports display, afterwards.
struct InvariantJudge {
    /// What the judge knows of the provider under the flow.
    struct Provider {
        /// The fixture's secrets: none may reach the app.
        var fixtureSecrets: [String]
        /// Secrets that must never leave the device in an SDK request.
        var serverOnlySecrets: [String]
        /// The app actions, for which end a login or clear the store on purpose.
        var actions: [Vocabulary.ActionSignature]
        /// The origin that serves a path (Clover's `api` or `web`).
        var origin: @Sendable (String) -> String
        /// The fake's origins as URLs' `scheme://host:port` (every place credentials may go).
        var origins: Set<String> = []
        /// When an access token the fake issued expires.
        var accessTokenExpiry: @Sendable (String) -> Date?
    }

    let provider: Provider
    let enabled: Set<Invariant>
    /// What the enabled invariants read beyond the step: the step loop gathers these, no more.
    let inputs: Set<InvariantInput>
    private var secrets = SecretForms()
    /// The server-only secrets' forms, built once for the flow.
    private var serverOnly = SecretForms()
    private var previousStore: [String: String] = [:]
    /// How many of the driver's sent requests have been judged (INV-ORIGIN).
    private var sentJudged = 0
    private var previousFiles: StoreDirectoryFacts?
    private var nonces: [(kind: String, value: String, step: Int)] = []
    /// The state of the login page the SDK opened last.
    private var loginState: String?
    /// The `redirect_uri` of the login page the SDK opened last: only a URL on it can be the
    /// provider's answer to that login.
    private var loginRedirect: String?

    init(provider: Provider, enabled: Set<Invariant>) {
        self.provider = provider
        self.enabled = enabled
        inputs = enabled.reduce(into: []) { $0.formUnion($1.inputs) }
        secrets = SecretForms.of(provider.fixtureSecrets)
        serverOnly = SecretForms.of(provider.serverOnlySecrets)
    }

    /// Secrets the app handed the SDK in call arguments: the SDK must not hand them back in
    /// an error either.
    mutating func learn(_ appSecrets: [String]) {
        secrets.add(appSecrets)
    }

    /// The PKCE verifiers `requests` carry are secrets from now on (the SDK sent them).
    mutating func learnVerifiers(sent requests: [RecordedExchange]) {
        secrets.add(requests.compactMap { Self.field("code_verifier", of: $0.request) })
    }

    /// Every violation `observation` shows, in ``Invariant`` order.
    mutating func judge(_ observation: InvariantObservation) -> [InvariantViolation] {
        secrets.add(observation.issued)
        let sdkRequests = observation.actor == .sdk ? observation.fresh : []
        learnVerifiers(sent: sdkRequests)
        var violations: [InvariantViolation] = []
        for invariant in Invariant.allCases where enabled.contains(invariant) {
            let found: [String]
            switch invariant {
            case .leak: found = leaks(observation.outcome)
            case .expired: found = expiredTokens(sdkRequests)
            case .secretWire: found = serverSecretsSent(sdkRequests)
            case .origin: found = misdirectedCredentials(sdkRequests, opened: observation.opened) + credentialsSentElsewhere(observation.sent)
            case .keep: found = lostToTransientFailure(observation)
            case .dismiss: found = undismissedLogin(observation)
            case .store: found = storeFileProblems(observation)
            case .random: found = weakNonces(observation, requests: sdkRequests)
            case .retryAfter: found = earlyRetries(observation.actor == .sdk ? observation.window : [])
            }
            violations += found.map { InvariantViolation(invariant: invariant, detail: $0) }
        }
        if let store = observation.store { previousStore = store }
        // A step the store was not measured in (a background call was writing) keeps the last
        // measurement: an in-place rewrite across it is still seen.
        if let files = observation.storeFiles { previousFiles = files }
        for url in observation.opened {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
            loginState = items?.first { $0.name == "state" }?.value
            loginRedirect = items?.first { $0.name == "redirect_uri" }?.value
        }
        return violations
    }

    // MARK: - INV-LEAK

    /// Result field names that carry a credential by design (`accessToken`, `codeVerifier`):
    /// an SDK API that hands the app its token is not leaking it.
    static func isCredentialField(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["token", "secret", "verifier", "password", "code", "credential"].contains { lowered.contains($0) }
    }

    private func leaks(_ outcome: CallOutcome?) -> [String] {
        var texts: [(String, String)] = []
        switch outcome {
        case .ok(let fields)?:
            texts = fields.sorted { $0.key < $1.key }.filter { !Self.isCredentialField($0.key) }.map { ("the result field \"\($0.key)\"", $0.value) }
        case .error(let kind, let message)?:
            texts = [("the \(kind) error's message", message)]
        case .crashed(let message)?:
            texts = [("the crash message", message)]
        case nil:
            break
        }
        return texts.compactMap { place, text in
            secrets.firstOccurring(in: text).map { "\(place) carries the credential \($0): \"\(text)\"" }
        }
    }

    // MARK: - INV-EXPIRED

    private func expiredTokens(_ requests: [RecordedExchange]) -> [String] {
        requests.compactMap { exchange in
            guard let token = Self.bearer(exchange.request), let expiry = provider.accessTokenExpiry(token), exchange.time >= expiry else { return nil }
            let late = Int(exchange.time.timeIntervalSince(expiry))
            return "\(exchange.request.method) \(exchange.request.path) carried the access token \(token), which expired \(late == 0 ? "that very second" : "\(late) s before") (at \(Self.format(expiry)), request at \(Self.format(exchange.time)))"
        }
    }

    // MARK: - INV-RETRY-AFTER

    /// Requests sent again, within the step's call, before the `Retry-After` an earlier answer
    /// to the same method, origin and path named. Across calls the app decides (a user who taps
    /// again), so only one call's window is judged.
    private func earlyRetries(_ window: [RecordedExchange]) -> [String] {
        var notBefore: [String: (time: Date, named: String, at: Date)] = [:]
        var found: [String] = []
        for exchange in window {
            let key = "\(exchange.request.method) \(exchange.origin) \(exchange.request.path)"
            if let earlier = notBefore[key], exchange.time < earlier.time {
                let early = earlier.time.timeIntervalSince(exchange.time)
                found.append("\(exchange.request.method) \(exchange.request.path) was sent again at \(Self.format(exchange.time)), \(Int(early.rounded(.up))) s before the Retry-After: \(earlier.named) its earlier answer named (at \(Self.format(earlier.at)))")
                notBefore[key] = nil
            }
            let status = exchange.response.status
            if status == 429 || status == 503, let value = exchange.response.headers["Retry-After"],
               let until = Self.retryAfter(value, answeredAt: exchange.time) {
                notBefore[key] = (until, value, exchange.time)
            }
        }
        return found
    }

    /// The instant a `Retry-After` value names (RFC 9110 §10.2.3: delay-seconds or an
    /// HTTP-date), read here on the judging side, apart from the SDK's reading of it.
    static func retryAfter(_ value: String, answeredAt time: Date) -> Date? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Double(trimmed) {
            return time.addingTimeInterval(seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: trimmed)
    }

    // MARK: - INV-SECRET-WIRE

    private func serverSecretsSent(_ requests: [RecordedExchange]) -> [String] {
        guard !serverOnly.needles.isEmpty else { return [] }
        return requests.compactMap { exchange in
            serverOnly.firstOccurring(in: Self.wireText(exchange.request)).map { "\(exchange.request.method) \(exchange.request.path) carried \($0), a secret that stays on the server or with the user" }
        }
    }

    // MARK: - INV-ORIGIN

    /// Form, query and JSON fields that carry a credential.
    static let credentialParameters: Set<String> = ["client_secret", "code", "code_verifier", "refresh_token", "access_token", "password", "assertion", "client_assertion"]
    /// Of those, the ones that must never be in a URL the browser opens.
    static let neverInBrowserURL: Set<String> = ["client_secret", "code_verifier", "refresh_token", "access_token", "password", "assertion", "client_assertion"]

    private func misdirectedCredentials(_ requests: [RecordedExchange], opened: [URL]) -> [String] {
        var found: [String] = []
        for exchange in requests {
            let carried = Self.credentialsCarried(exchange.request)
            guard !carried.isEmpty else { continue }
            let meant = provider.origin(exchange.request.path)
            if exchange.origin != meant {
                found.append("\(exchange.request.method) \(exchange.request.path) sent \(carried.joined(separator: ", ")) to the \(exchange.origin) origin; that path is served by the \(meant) origin")
            }
        }
        for url in opened {
            let scheme = url.scheme?.lowercased() ?? ""
            if scheme == "http", let host = url.host, !Self.isLoopback(host) {
                found.append("the SDK opened \(url.absoluteString) in the browser: clear-text http:// to \(host), where the user's credentials and the code would travel unprotected")
            }
            let names = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
            let credentials = names.filter { Self.neverInBrowserURL.contains($0) }
            if !credentials.isEmpty {
                found.append("the SDK put \(credentials.joined(separator: ", ")) in a URL it opened in the browser (\(url.path)), where history, logs and the page itself see it")
            }
        }
        return found
    }

    /// Requests the SDK sent that never reached a fake's origin, carrying a credential: over
    /// clear text to a host that is not loopback, or to a host that is none of the provider's.
    private mutating func credentialsSentElsewhere(_ sent: [SentRequest]?) -> [String] {
        guard let sent, sent.count > sentJudged else { return [] }
        let fresh = sent[sentJudged...]
        sentJudged = sent.count
        var found: [String] = []
        for request in fresh {
            let scheme = request.url.scheme?.lowercased() ?? ""
            let host = request.url.host ?? ""
            let origin = "\(scheme)://\(host)" + (request.url.port.map { ":\($0)" } ?? "")
            guard !provider.origins.contains(origin) else { continue }
            let carried = Self.credentialsCarried(HTTPRequest(method: request.method, target: request.url.path + (request.url.query.map { "?" + $0 } ?? ""), headers: HTTPHeaders(request.headers), body: request.body))
            guard !carried.isEmpty else { continue }
            if scheme == "http", !Self.isLoopback(host) {
                found.append("the SDK sent \(carried.joined(separator: ", ")) over clear-text http:// to \(host) (\(request.method) \(request.url.absoluteString))")
            } else {
                found.append("the SDK sent \(carried.joined(separator: ", ")) to \(origin), which is none of the provider's origins (\(request.method) \(request.url.absoluteString))")
            }
        }
        return found
    }

    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if lowered == "localhost" || lowered == "::1" { return true }
        // 127.0.0.0/8 written as a dotted quad, not a name that only starts like one.
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }
    }

    static func credentialsCarried(_ request: HTTPRequest) -> [String] {
        var carried: [String] = []
        if let authorization = request.headers["Authorization"] {
            carried.append("an Authorization header (\(authorization.split(separator: " ").first.map(String.init) ?? "?"))")
        }
        var names = Set(request.query.map(\.name))
        names.formUnion(request.formFields?.map(\.name) ?? [])
        names.formUnion(request.jsonFields()?.keys ?? [:].keys)
        carried += names.intersection(credentialParameters).sorted()
        return carried
    }

    // MARK: - INV-KEEP

    private func lostToTransientFailure(_ observation: InvariantObservation) -> [String] {
        guard let store = observation.store, !previousStore.isEmpty, store != previousStore else { return [] }
        if case .app(let name, _)? = observation.step.action, provider.actions.first(where: { $0.name == name })?.clearsStore == true { return [] }
        let window = observation.window
        // The provider issued a new token, or refused the old one: the store may change.
        if window.contains(where: Self.issuesToken) || window.contains(where: Self.refuses) { return [] }
        let transient = window.filter(Self.isTransient)
        var transientError: String?
        if case .error(let kind, _)? = observation.outcome, ["transport", "serverError", "invalidResponse"].contains(kind) { transientError = kind }
        guard !transient.isEmpty || transientError != nil else { return [] }
        let what = store.isEmpty ? "deleted the stored token" : "replaced the stored token"
        let cause = transient.first.map { "\($0.request.method) \($0.request.path) → \($0.response.status == 0 ? "no answer" : String($0.response.status))\($0.fault.map { " (\($0))" } ?? "")" } ?? "a \(transientError!) error"
        return ["the SDK \(what) after \(cause), a transient failure; the provider never refused the token"]
    }

    static func issuesToken(_ exchange: RecordedExchange) -> Bool {
        guard (200..<300).contains(exchange.response.status) else { return false }
        if case .object(let fields)? = exchange.response.jsonBody { return fields["access_token"] != nil }
        return false
    }

    static func refuses(_ exchange: RecordedExchange) -> Bool {
        let status = exchange.response.status
        return (400..<500).contains(status) && status != 408 && status != 429
    }

    static func isTransient(_ exchange: RecordedExchange) -> Bool {
        let status = exchange.response.status
        if refuses(exchange) { return false }
        // A held request is answered by the provider itself once released.
        let faulted = exchange.fault.map { $0 != FaultKind.hold.rawValue && !issuesToken(exchange) } ?? false
        return faulted || status == 0 || status >= 500 || status == 429 || status == 408
    }

    // MARK: - INV-DISMISS

    private func undismissedLogin(_ observation: InvariantObservation) -> [String] {
        guard observation.browserShowing, let outcome = observation.outcome,
              case .app(let name, _)? = observation.step.action,
              let signature = provider.actions.first(where: { $0.name == name }) else { return [] }
        let ending: String
        switch (signature.endsLogin, outcome) {
        case (.never, _):
            return []
        case (.unlessResult(let field, let value), .ok(let fields)) where fields[field] == value:
            return []
        case (.always, .ok), (.unlessResult, .ok):
            ending = "succeeded"
        case (.always, .error(let kind, _)), (.unlessResult, .error(let kind, _)):
            if observation.window.contains(where: { $0.request.method == "POST" && Self.field("code", of: $0.request) != nil }) {
                ending = "spent the code and ended in a \(kind) error"
            } else if observation.arguments.values.contains(where: isErrorAnswerToTheLogin) {
                ending = "received the provider's error answer for this login and ended in a \(kind) error"
            } else {
                // A redirect refused as not this login's: the login goes on.
                return []
            }
        case (.always, .crashed), (.unlessResult, .crashed):
            return []
        }
        return ["\(name) \(ending), ending the login, and the page the SDK opened is still showing"]
    }

    /// Whether `text` is the provider's error answer to the login the SDK opened last (RFC 6749
    /// §4.1.2.1): on that login's redirect URI (scheme and host in any case, RFC 3986 §6.2.2.1;
    /// no userinfo or other port), no parameter twice (§3.1), its state, an `error`, and no
    /// credential beside it. Anything else an SDK may refuse as not this login's, ending nothing.
    private func isErrorAnswerToTheLogin(_ text: String) -> Bool {
        guard let answer = URLComponents(string: text), let items = answer.queryItems, let loginState,
              items.contains(where: { $0.name == "error" }),
              items.filter({ $0.name == "state" }).map(\.value) == [loginState],
              Set(items.map(\.name)).count == items.count,
              !items.contains(where: { Self.credentialParameters.contains($0.name) || $0.name == "token" }) else { return false }
        guard let loginRedirect, let expected = URLComponents(string: loginRedirect) else { return true }
        return answer.scheme?.lowercased() == expected.scheme?.lowercased() && answer.host?.lowercased() == expected.host?.lowercased()
            && answer.port == expected.port && answer.user == nil && answer.password == nil && answer.percentEncodedPath == expected.percentEncodedPath
    }

    // MARK: - INV-STORE

    private func storeFileProblems(_ observation: InvariantObservation) -> [String] {
        guard let facts = observation.storeFiles else { return [] }
        var found: [String] = []
        if !facts.directoryIsDirectory || !facts.directoryOwnedByUser || facts.directoryMode & 0o077 != 0 {
            found.append("the store's folder has mode \(String(facts.directoryMode, radix: 8)); other users may read or enter it")
        }
        let byName = Dictionary(facts.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in facts.storeFiles {
            guard let entry = byName[name] else { continue }
            if !entry.isRegularFile || !entry.ownedByUser || entry.mode & 0o077 != 0 {
                found.append("the store file \(name) has mode \(String(entry.mode, radix: 8)); only its owner may read it")
            }
            if let before = previousFiles?.entries.first(where: { $0.name == name }), before.inode == entry.inode,
               before.size != entry.size || before.modified != entry.modified {
                found.append("the store file \(name) was rewritten in place (same inode \(entry.inode)); a crash mid-write would leave it torn")
            }
        }
        // Beside the store's own files, layout (a lock file, an empty staging folder) is the
        // store's business; a copy of a token is not.
        let leftovers = facts.entries.filter { !facts.storeFiles.contains($0.name) && $0.holdsSecret }.map(\.name)
        if !leftovers.isEmpty {
            found.append("the store's folder holds \(leftovers.joined(separator: ", ")) besides the store's own files, holding a token or secret: a leftover temporary or backup copy")
        }
        return found
    }

    // MARK: - INV-RANDOM

    private mutating func weakNonces(_ observation: InvariantObservation, requests: [RecordedExchange]) -> [String] {
        var fresh: [(String, String)] = []
        for url in observation.opened {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            // Each login's page: its state, and its challenge (a verifier used again for a
            // second login shows as the same challenge).
            for (name, kind) in [("state", "state"), ("code_challenge", "PKCE challenge")] {
                if let value = items.first(where: { $0.name == name })?.value { fresh.append((kind, value)) }
            }
        }
        for exchange in requests {
            // A verifier sent again is the same login's token request retried, not a new login.
            if let verifier = Self.field("code_verifier", of: exchange.request), !nonces.contains(where: { $0.value == verifier }), !fresh.contains(where: { $0.1 == verifier }) {
                fresh.append(("PKCE verifier", verifier))
            }
        }
        var found: [String] = []
        for (kind, value) in fresh {
            // How many of the flow's values of this kind, this one included, are in a version 4
            // UUID's layout: only a run of them tells UUIDs from random bits (see NonceRules).
            let uuids = (nonces.filter { $0.kind == kind }.map(\.value) + [value]).filter(NonceRules.looksLikeVersion4UUID).count
            if let weakness = NonceRules.weakness(of: value, now: observation.now, version4UUIDsInFlow: uuids) {
                found.append("the \(kind) \"\(value)\" is \(weakness)")
            }
            for earlier in nonces where earlier.kind == kind {
                if let relation = NonceRules.relation(of: value, to: earlier.value) {
                    found.append("the \(kind) \"\(value)\" \(relation) (\"\(earlier.value)\", step \(earlier.step))")
                    break
                }
            }
            nonces.append((kind, value, observation.step.number))
        }
        return found
    }

    // MARK: - Reading requests

    /// A form, JSON or query field of the request.
    static func field(_ name: String, of request: HTTPRequest) -> String? {
        request.formField(name) ?? request.jsonFields()?[name] ?? request.queryItem(name)
    }

    /// The Bearer token of the Authorization header (scheme case-insensitive) or an
    /// `access_token` field.
    static func bearer(_ request: HTTPRequest) -> String? {
        if let header = request.headers["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return field("access_token", of: request)
    }

    /// Everything of a request that travels: target, header values (Basic credentials decoded),
    /// body.
    static func wireText(_ request: HTTPRequest) -> String {
        var text = request.target
        for (name, value) in request.headers.pairs {
            text += "\n\(name): \(value)"
            let parts = value.split(separator: " ", maxSplits: 1)
            if name.lowercased() == "authorization", parts.count == 2, parts[0].lowercased() == "basic",
               let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) {
                text += "\n" + String(decoding: data, as: UTF8.self)
            }
        }
        return text + "\n" + String(decoding: request.body, as: UTF8.self)
    }

    private static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
