import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// What a step left behind, for its checks to judge: gathered by ``StepLoop`` after the
/// action, or made by hand in a test. Pure data: judging it needs no server and no SDK.
struct StepObservation {
    /// How the step's SDK call ended; nil: the step made none.
    var call: CallOutcome?
    /// The requests the server saw since the previous step.
    var exchanges: [RecordedExchange] = []
    /// The URLs the SDK opened since the previous step.
    var opened: [URL] = []
    /// Whether the SDK dismissed the browser since the previous step.
    var dismissed = false
    /// The last page the browser loaded.
    var page: BrowserPage?
    /// The redirect the last browser action captured.
    var redirect: String?
    /// The SDK's store; nil: not read, because no check of the step needs it.
    var store: [String: String]?
    /// The SDK's store before the step's action; nil: not read (only `storeUnchanged` needs it).
    var storeBefore: [String: String]?
    /// The store's files as the harness measured them; nil: not measured, because no check of
    /// the step needs them.
    var storeFiles: StoreFilesObservation?
}

/// A page the scripted browser loaded.
struct BrowserPage: Sendable {
    var url: URL
    var status: Int
    var body: String
}

/// Checks one step's expectations against what happened, capturing variables as it goes.
///
/// Every check of the step is evaluated (not only the first), so a failure report shows the
/// whole picture of the step that went wrong.
struct ExpectationChecker {
    let step: Step
    var variables: [String: String]
    private(set) var failures: [CheckFailure] = []
    /// Checks that could not be made, with why (a store with no files): skipped, not passed.
    private(set) var skips: [CheckSkip] = []
    /// Why `browser.dismissed: true` is not judged (the SDK opens logins in the device's own
    /// browser, as the provider's documents allow), or nil: the check is then a skip.
    var dismissalNotJudged: String?
    /// The inode of each store file at the flow's previous `storeFiles` check (nil: none yet),
    /// carried from step to step like the variables; `replacedByRename` compares with it.
    var storeInodes: [String: UInt64]?
    /// Whether the verdict on the call's outcome failed: the error and result checks then have
    /// nothing to add (a failed call has no result, a successful one no error).
    private var outcomeFailed = false
    /// The spec file, for a regex that gives up: its failure names `file:line` of the step.
    var specFile: String?
    /// Steps a regex search may take before it gives up (see ``LinearRegex/defaultStepBudget``).
    var regexStepBudget = LinearRegex.defaultStepBudget

    init(step: Step, variables: [String: String]) {
        self.step = step
        self.variables = variables
    }

    /// Whether a check needs the SDK's store read (an async call that may fail): only then is it.
    static func readsStore(_ check: Check) -> Bool {
        switch check {
        // `"store": {}` asks nothing.
        case .store(let fields): return !fields.isEmpty
        case .storeEmpty, .storeUnchanged: return true
        case .outcome, .error, .result, .requests, .browser, .neverSent, .storeFiles: return false
        }
    }

    /// Whether a check needs the store's files measured.
    static func readsStoreFiles(_ check: Check) -> Bool {
        switch check {
        case .storeFiles(let kinds): return !kinds.isEmpty
        case .outcome, .error, .result, .requests, .browser, .neverSent, .storeEmpty, .storeUnchanged, .store: return false
        }
    }

    /// Runs every check of the step, the call's outcome first (it is checked after every SDK
    /// call, written or not).
    mutating func check(_ expectation: Expectation?, _ observed: StepObservation) {
        // `"outcome": "any"`: `error` judges a failure, `result` a success, whichever came.
        let eitherWay = expectation?.effectiveOutcome == .any
        for check in Expectation.checks(of: expectation, afterCall: observed.call != nil) {
            currentKind = check.kind
            switch check {
            case .outcome(let wanted): checkOutcome(wanted, errorKind: expectation?.expectedErrorKind, observed.call)
            case .error(let checks): checkError(checks, observed.call, eitherWay: eitherWay)
            case .result(let fields): checkResult(fields, observed.call, eitherWay: eitherWay)
            case .requests(let expected): checkRequests(expected, observed.exchanges)
            case .browser(let checks): checkBrowser(checks, observed)
            case .neverSent(let values): checkNeverSent(values, exchanges: observed.exchanges, opened: observed.opened)
            case .storeEmpty(let empty): checkStoreEmpty(empty, observed.store)
            case .storeUnchanged: checkStoreUnchanged(before: observed.storeBefore, after: observed.store)
            case .store(let fields): checkStore(fields, observed.store)
            case .storeFiles(let kinds): checkStoreFiles(kinds, observed.storeFiles)
            }
        }
    }

    /// The kind of the check being run, for the failures' data.
    private var currentKind: CheckKind = .outcome

    /// Records a failure: display text, and the compared values as data where they are one value each.
    private mutating func fail(_ check: String, expected: String, actual: String, matcher: MatcherKind? = nil, values: (expected: FailureValues.Value?, actual: FailureValues.Value?) = (nil, nil)) {
        let data = FailureValues(source: .check(currentKind), matcher: matcher, expected: values.expected, actual: values.actual)
        failures.append(CheckFailure(step: step.number, line: step.location.line, check: check, expected: expected, actual: actual, values: data))
    }

    /// Values captured from sensitive fields: they join the secrets the reports must not show.
    private(set) var capturedSecrets: [String] = []

    /// Applies one matcher; records a failure or a capture. A sensitive field's actual value is
    /// never shown, only its length: the scrubber knows issued tokens, not an SDK's verifier.
    /// `ignoringCase`: the value's grammar makes case meaningless (``CanonicalValues``); a
    /// field named in ``CanonicalValues/caseInsensitiveFields`` is always compared so.
    private mutating func apply(_ check: String, _ matcher: Matcher, _ actual: String?, field: String? = nil, ignoringCase: Bool = false) {
        let sensitive = field.map(Redactor.isSensitive(field:)) ?? false
        let folded = ignoringCase || field.map(CanonicalValues.caseInsensitiveFields.contains) == true
        let outcome = matcher.evaluate(actual, variables: variables, s256: FakeCrypto.s256Challenge(for:), regexStepBudget: regexStepBudget, ignoringCase: folded)
        if case .gaveUp(let reason) = outcome {
            // No verdict on the SDK: the spec's own check could not be finished.
            let place = "\(specFile ?? "step"):\(step.location.line)"
            fail(check, expected: matcher.expectation, actual: "no verdict (\(place): \(reason); the spec's check, not the SDK)")
            return
        }
        if outcome == .matched {
            if let name = matcher.capture, let actual {
                variables[name] = actual
                if sensitive { capturedSecrets.append(actual) }
            }
            if matcher.capture != nil && actual == nil {
                // A later step would compare against "${name}" literally and pass by accident.
                fail(check, expected: "a value to capture as ${\(matcher.capture!)}", actual: "nothing (absent)", matcher: matcher.kind.key, values: (nil, .absent))
            }
        } else {
            let shown = actual.map { sensitive ? "\"\(Redactor.mask)\" (\($0.count) characters)" : quote($0) } ?? "nothing (absent)"
            let actualValue: FailureValues.Value = actual.map { sensitive ? .masked(characters: $0.count) : .string($0) } ?? .absent
            // A sensitive field's expected value is shown as the spec wrote it (a variable name),
            // never rendered: the secret it stands for may be one the scrubber does not know.
            fail(check, expected: sensitive ? NarrativeMarkup.plain(StepNarrative.describe(FieldMatcher(field: field ?? "", matcher: matcher))) : rendered(matcher), actual: shown,
                 matcher: matcher.kind.key, values: (sensitive ? unrenderedValue(matcher) : renderedValue(matcher), actualValue))
        }
    }

    /// The matcher's expectation with variables filled in, as the reader needs to compare.
    private func rendered(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals(let t): return "equals \(quote(t.render(variables)))"
        case .notEquals(let t): return "differs from \(quote(t.render(variables)))"
        case .contains(let t): return "contains \(quote(t.render(variables)))"
        case .pkceS256(let t): return "a PKCE verifier whose S256 challenge is \(quote(t.render(variables)))"
        // Nothing to fill in: the words are the spec's own.
        case .present, .absent, .regex: return matcher.expectation
        }
    }

    /// The matcher's operand as data: the rendered template or the pattern; nil for present/absent.
    private func renderedValue(_ matcher: Matcher) -> FailureValues.Value? {
        switch matcher.kind {
        case .equals(let t), .notEquals(let t), .contains(let t), .pkceS256(let t): return .string(t.render(variables))
        case .regex(let pattern): return .string(pattern)
        case .present, .absent: return nil
        }
    }

    /// A sensitive field's operand as the spec wrote it (`${token}`), never rendered.
    private func unrenderedValue(_ matcher: Matcher) -> FailureValues.Value? {
        switch matcher.kind {
        case .equals(let t), .notEquals(let t), .contains(let t), .pkceS256(let t): return .string(t.raw)
        case .regex(let pattern): return .string(pattern)
        case .present, .absent: return nil
        }
    }

    private func quote(_ s: String) -> String { "\"\(s)\"" }

    /// The verdict on the call: success or an error, as demanded.
    private mutating func checkOutcome(_ wanted: Expectation.Outcome, errorKind: String?, _ call: CallOutcome?) {
        switch call {
        case nil:
            // Only a hand-made expectation gets here (the loader refuses "outcome" on a step
            // without a call); loud rather than a pass.
            outcomeFailed = true
            fail("outcome", expected: Self.words(wanted), actual: "no SDK call in this step")
        case .crashed(let reason)?:
            outcomeFailed = true
            fail("outcome", expected: Self.words(wanted), actual: "the SDK crashed (\(reason))")
        case .ok?:
            if wanted == .error {
                outcomeFailed = true
                fail("outcome", expected: "an error" + (errorKind.map { " of kind \($0)" } ?? ""), actual: "success")
            }
        case .error(let kind, let message)?:
            if wanted == .ok {
                outcomeFailed = true
                fail("outcome", expected: "success", actual: "\(kind) error: \(message)")
            }
        }
    }

    /// What an outcome asks for, in a failure's words.
    private static func words(_ outcome: Expectation.Outcome) -> String {
        switch outcome {
        case .ok: return "success"
        case .error: return "an error value"
        case .any: return "success or an error value"
        }
    }

    /// The error's kind and message.
    private mutating func checkError(_ checks: [ErrorCheck], _ call: CallOutcome?, eitherWay: Bool) {
        // Either way allowed: the error checks say what a failure must be, and this succeeded.
        if case .ok? = call, eitherWay { return }
        guard case .error(let kind, let message)? = call else {
            // An error check demands an error (`effectiveOutcome`), so the verdict has failed
            // already, unless the step made no call at all.
            if !outcomeFailed { fail("error", expected: "an SDK call that ends in an error", actual: "no SDK call in this step") }
            return
        }
        for check in checks {
            switch check {
            case .kind(let expectedKind):
                if expectedKind != kind { fail("error.kind", expected: quote(expectedKind), actual: "\(quote(kind)) (\(message))", values: (.string(expectedKind), .string(kind))) }
            case .message(let matcher):
                apply("error.message", matcher, message)
            }
        }
    }

    /// The fields of a successful call's result.
    private mutating func checkResult(_ fields: [FieldMatcher], _ call: CallOutcome?, eitherWay: Bool) {
        // Either way allowed: the result is what a success must give, and this one failed.
        if case .error? = call, eitherWay { return }
        guard case .ok(let result)? = call else {
            // The verdict has said why there is no result, unless it passed: an error was
            // expected, and the result fields have nothing to judge. Failing says so; the old
            // checker skipped them and the step passed as if they held.
            if !outcomeFailed, !fields.isEmpty { fail("result", expected: "a successful call's result", actual: call == nil ? "no SDK call in this step" : "no result (the call did not succeed)") }
            return
        }
        for field in fields {
            apply("result.\(field.field)", field.matcher, result[field.field], field: field.field)
        }
    }

    /// The exact, ordered list of requests the server saw since the previous step. An
    /// optional entry is passed over when the request in its place is not of its method and
    /// path (and origin), or when the requests left are no more than the required entries
    /// after it (an optional refused refresh before a required renewal at the same endpoint:
    /// a client that never refreshes sends only the renewal); a required one always takes the
    /// next request.
    private mutating func checkRequests(_ expected: [RequestExpectation], _ exchanges: [RecordedExchange]) {
        var pairs: [(RequestExpectation, RecordedExchange)] = []
        var next = 0
        var missing = 0
        for (position, wanted) in expected.enumerated() {
            if wanted.isOptional {
                let requiredAfter = expected[(position + 1)...].lazy.filter { !$0.isOptional }.count
                if !(next < exchanges.count && identifies(wanted, exchanges[next])) || exchanges.count - next <= requiredAfter { continue }
            }
            guard next < exchanges.count else {
                missing += 1
                continue
            }
            pairs.append((wanted, exchanges[next]))
            next += 1
        }
        if missing > 0 || next < exchanges.count {
            let seen = exchanges.isEmpty ? "no request" : exchanges.map { "\($0.request.method) \($0.request.path) → \($0.response.status)" }.joined(separator: ", ")
            let required = expected.filter { !$0.isOptional }.count
            let count = required == expected.count ? "\(required)" : "\(required) to \(expected.count)"
            fail("requests", expected: "\(count) request\(expected.count == 1 ? "" : "s")", actual: "\(exchanges.count): \(seen)")
        }
        for (i, (wanted, exchange)) in pairs.enumerated() {
            checkRequest(wanted, exchange, prefix: "requests[\(i)]")
        }
    }

    /// Whether `exchange` is the request `wanted` names: its method, path and origin (the
    /// other checks judge it once it is taken).
    private func identifies(_ wanted: RequestExpectation, _ exchange: RecordedExchange) -> Bool {
        for check in wanted.checks {
            switch check {
            case .method(let method): if method != exchange.request.method { return false }
            case .path(let matcher):
                if matcher.evaluate(exchange.request.path, variables: variables, regexStepBudget: regexStepBudget) != .matched { return false }
            case .origin(let origin): if origin != exchange.origin { return false }
            case .query, .headers, .form, .json, .body, .forbid, .status, .responseJson, .optional: break
            }
        }
        return true
    }

    private mutating func checkRequest(_ wanted: RequestExpectation, _ exchange: RecordedExchange, prefix: String) {
        let request = exchange.request
        let label = "\(prefix) (\(request.method) \(request.path))"
        let query = Self.fields(request.query)
        for check in wanted.checks {
            switch check {
            case .method(let method):
                if method != request.method { fail("\(label).method", expected: quote(method), actual: quote(request.method), values: (.string(method), .string(request.method))) }
            case .path(let matcher):
                apply("\(label).path", matcher, request.path)
            case .origin(let origin):
                if origin != exchange.origin { fail("\(label).origin", expected: quote(origin), actual: quote(exchange.origin), values: (.string(origin), .string(exchange.origin))) }
            case .query(let fields):
                checkFields(fields, query, "\(label).query")
            case .headers(let fields):
                for field in fields {
                    let value = CanonicalValues.header(field.field, values: request.headers.values(for: field.field))
                    apply("\(label).headers.\(field.field)", field.matcher, value, field: field.field)
                }
            case .form(let fields):
                guard !fields.isEmpty else { break }
                if let form = request.formFields {
                    checkFields(fields, Self.fields(form), "\(label).form")
                } else {
                    fail("\(label).form", expected: "an application/x-www-form-urlencoded body", actual: "a body that is not form-encoded")
                }
            case .json(let fields):
                guard !fields.isEmpty else { break }
                if let json = request.jsonFields() {
                    checkFields(fields, json.mapValues { [$0] }, "\(label).json")
                } else {
                    fail("\(label).json", expected: "a JSON object body", actual: "a body that is not a JSON object")
                }
            case .body(let fields):
                guard !fields.isEmpty else { break }
                switch Self.body(of: request) {
                case .form(let form): checkFields(fields, Self.fields(form), "\(label).body")
                case .json(let json): checkFields(fields, json.mapValues { [$0] }, "\(label).body")
                case .other(let type):
                    fail("\(label).body", expected: "a form or JSON object body", actual: type.map { "a body of type \(quote($0))" } ?? "a body with no Content-Type")
                }
            case .forbid(let names):
                checkForbidden(names, in: request, query: query, label: label)
            case .optional:
                // How the request was matched to its place, not a check of it.
                break
            case .status(let status):
                if status != exchange.response.status { fail("\(label).status", expected: "\(status)", actual: "\(exchange.response.status)", values: (.integer(status), .integer(exchange.response.status))) }
            case .responseJson(let fields):
                guard !fields.isEmpty else { break }
                if let json = exchange.response.jsonFields() {
                    checkFields(fields, json.mapValues { [$0] }, "\(label).responseJson")
                } else {
                    fail("\(label).responseJson", expected: "a JSON object answer", actual: "an answer that is not a JSON object")
                }
            }
        }
    }

    /// A request body as its Content-Type says to read it.
    enum Body {
        case form([(name: String, value: String)])
        case json([String: String])
        /// Neither a form nor a JSON object: the media type, if any.
        case other(String?)
    }

    static func body(of request: HTTPRequest) -> Body {
        let type = CanonicalValues.mediaType(request.headers["Content-Type"])
        if type == "application/json", let json = request.jsonFields() { return .json(json) }
        if type == "application/x-www-form-urlencoded", let form = request.formFields { return .form(form) }
        return .other(type)
    }

    /// No query, form or JSON field of these names, whatever its value (an empty one too).
    private mutating func checkForbidden(_ names: [String], in request: HTTPRequest, query: [String: [String]], label: String) {
        var places: [(String, Set<String>)] = [("query", Set(query.keys))]
        // A JSON object body, or a form body: read whatever the Content-Type claims, so a field
        // cannot hide behind a wrong one.
        if let json = request.jsonFields() {
            places.append(("json", Set(json.keys)))
        } else if !request.body.isEmpty, let form = request.formFields {
            places.append(("form", Set(form.map(\.name))))
        }
        for name in names {
            for (place, present) in places where present.contains(name) {
                fail("\(label).\(place).\(name)", expected: "no such field (forbidden)", actual: "present")
            }
        }
    }

    private mutating func checkFields(_ wanted: [FieldMatcher], _ actual: [String: [String]], _ prefix: String) {
        for field in wanted {
            let values = actual[field.field] ?? []
            if values.count > 1 {
                fail("\(prefix).\(field.field)", expected: "one value", actual: "\(values.count) values")
            }
            apply("\(prefix).\(field.field)", field.matcher, values.first, field: field.field)
        }
    }

    private static func fields(_ pairs: [(name: String, value: String)]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for pair in pairs { result[pair.name, default: []].append(pair.value) }
        return result
    }

    /// Whether the store holds nothing (or something).
    private mutating func checkStoreEmpty(_ empty: Bool, _ contents: [String: String]?) {
        guard let contents else { return storeNotRead() }
        if empty && !contents.isEmpty {
            fail("store", expected: "empty", actual: "holds " + contents.keys.sorted().joined(separator: ", "))
        } else if !empty && contents.isEmpty {
            fail("store", expected: "not empty", actual: "empty")
        }
    }

    /// The store after the step against the store before it: every field, added, removed or
    /// changed, is named (the values are the redactor's to mask).
    private mutating func checkStoreUnchanged(before: [String: String]?, after: [String: String]?) {
        guard let before, let after else { return storeNotRead() }
        guard before != after else { return }
        let names = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
        let changes = names.map { name -> String in
            switch (before[name], after[name]) {
            case (nil, let new?): return "\(name) written (\(new))"
            case (_?, nil): return "\(name) removed"
            case (_, let new): return "\(name) changed to \(new ?? "")"
            }
        }
        fail("store", expected: "unchanged by the step", actual: changes.joined(separator: ", "))
    }

    /// The SDK's store.
    private mutating func checkStore(_ fields: [FieldMatcher], _ contents: [String: String]?) {
        guard !fields.isEmpty else { return }
        guard let contents else { return storeNotRead() }
        for field in fields {
            apply("store.\(field.field)", field.matcher, contents[field.field], field: field.field)
        }
    }

    /// The store's files, as the harness measured them.
    private mutating func checkStoreFiles(_ kinds: [StoreFilesCheckKind], _ observed: StoreFilesObservation?) {
        guard !kinds.isEmpty else { return }
        guard let observed else {
            // A dispatch that forgot ``readsStoreFiles(_:)``: loud, never a pass.
            return fail("storeFiles", expected: "the store's files measured", actual: "they were not measured")
        }
        guard case .measured(let facts) = observed else {
            for kind in kinds {
                skips.append(CheckSkip(step: step.number, line: step.location.line, check: "storeFiles.\(kind.rawValue)",
                                       reason: "the driver's token store is not file-backed (it names no store files), so there are no files to judge"))
            }
            return
        }
        let previous = storeInodes
        let byName = Dictionary(facts.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        storeInodes = Dictionary(facts.storeFiles.compactMap { name in byName[name].map { (name, $0.inode) } }, uniquingKeysWith: { first, _ in first })
        // With no file to judge, every property below would hold of nothing.
        guard !facts.storeFiles.isEmpty else {
            return fail("storeFiles", expected: "a file holding the stored token", actual: "the store lists no item")
        }
        for name in facts.storeFiles where byName[name] == nil {
            fail("storeFiles", expected: "the store's file \(quote(name)) in its directory", actual: "no such file")
        }
        for kind in kinds {
            // No default: a new file check must be checked here.
            switch kind {
            case .ownerOnly:
                // Owner-only is the guarantee (RFC 6819 §5.3.3): no bit for the group or others.
                // Which of the owner's bits are set (0700 or 0500, 0600 or 0400) is the store's own
                // business.
                if !facts.directoryIsDirectory || !facts.directoryOwnedByUser || facts.directoryMode & 0o077 != 0 {
                    fail("storeFiles.ownerOnly (directory)", expected: "a directory of the user's, closed to others (no group or other bits: 0700)", actual: facts.directoryIsDirectory ? "mode \(Self.octal(facts.directoryMode))" + (facts.directoryOwnedByUser ? "" : ", owned by another user") : "not a directory")
                }
                for entry in facts.entries {
                    let isStoreFile = facts.storeFiles.contains(entry.name)
                    if entry.mode & 0o077 != 0 || !entry.ownedByUser || (isStoreFile && !entry.isRegularFile) {
                        fail("storeFiles.ownerOnly (\(entry.name))", expected: isStoreFile ? "a regular file of the user's, readable by its owner only (0600)" : "readable by its owner only",
                             actual: (entry.isRegularFile ? "" : "not a regular file, ") + "mode \(Self.octal(entry.mode))" + (entry.ownedByUser ? "" : ", owned by another user"))
                    }
                }
            case .noTemporaryFiles:
                // The guarantee is that no copy of a token outlives its write or its delete; a
                // lock file or an empty staging folder beside the items is layout.
                for entry in facts.entries where !facts.storeFiles.contains(entry.name) && entry.holdsSecret {
                    fail("storeFiles.noTemporaryFiles", expected: "nothing but the stored items' files (\(facts.storeFiles.map(quote).joined(separator: ", "))) holds a token", actual: "\(quote(entry.name)) holds one too, left behind")
                }
            case .replacedByRename:
                guard let previous else {
                    // The loader demands an earlier check; a hand-made spec still fails loudly.
                    fail("storeFiles.replacedByRename", expected: "an earlier storeFiles check to compare with", actual: "none in this flow")
                    continue
                }
                for name in facts.storeFiles {
                    guard let now = byName[name] else { continue }
                    guard let before = previous[name] else {
                        fail("storeFiles.replacedByRename (\(name))", expected: "the file seen at the previous storeFiles check, to compare with", actual: "it was not there then: nothing to compare")
                        continue
                    }
                    if before == now.inode {
                        fail("storeFiles.replacedByRename (\(name))", expected: "a new file (another inode) renamed over the old one", actual: "the same file as at the previous storeFiles check (its inode unchanged): rewritten in place, or not written at all")
                    }
                }
            }
        }
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A store check with no store to judge: a dispatch that forgot ``readsStore(_:)``. Loud,
    /// because every matcher but `present` would otherwise judge an empty store.
    private mutating func storeNotRead() {
        fail("store", expected: "the store's contents", actual: "the store was not read")
    }

    /// A URL and its query.
    private mutating func checkURL(_ wanted: URLExpectation, _ url: String, label: String) {
        let components = URLComponents(string: url)
        let query = Self.fields((components?.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") })
        for check in wanted.checks {
            switch check {
            // The URL as a browser reads it: scheme and host without case, the rest as written.
            case .url(let matcher): apply("\(label).url", matcher, CanonicalValues.url(url), field: "url")
            // Schemes and hosts are case-insensitive (RFC 3986 §3.1, §3.2.2).
            case .scheme(let matcher): apply("\(label).scheme", matcher, components?.scheme, ignoringCase: true)
            case .host(let matcher): apply("\(label).host", matcher, components?.host, ignoringCase: true)
            case .path(let matcher): apply("\(label).path", matcher, components?.path)
            case .query(let fields): checkFields(fields, query, "\(label).query")
            case .forbid(let names):
                for name in names where query[name] != nil {
                    fail("\(label).query.\(name)", expected: "no such parameter (forbidden)", actual: "present")
                }
            }
        }
    }

    /// What the browser saw since the previous step.
    private mutating func checkBrowser(_ checks: [BrowserCheck], _ observed: StepObservation) {
        let page = observed.page
        for check in checks {
            switch check {
            case .opened(let expected):
                let opened = observed.opened
                if expected.count != opened.count {
                    let seen = opened.isEmpty ? "none" : opened.map { $0.path }.joined(separator: ", ")
                    fail("browser.opened", expected: "\(expected.count) URL\(expected.count == 1 ? "" : "s") opened", actual: "\(opened.count): \(seen)")
                }
                for (i, (url, actual)) in zip(expected, opened).enumerated() {
                    checkURL(url, actual.absoluteString, label: "browser.opened[\(i)]")
                }
            case .pageStatus(let status):
                if status != page?.status { fail("browser.pageStatus", expected: "\(status)", actual: page.map { "\($0.status)" } ?? "no page loaded", values: (.integer(status), page.map { .integer($0.status) } ?? .absent)) }
            case .pageContains(let text):
                let needle = text.render(variables)
                if !(page?.body.contains(needle) ?? false) {
                    fail("browser.page", expected: "contains \(quote(needle))", actual: page.map { "a \($0.status) page without it" } ?? "no page loaded", matcher: .contains, values: (.string(needle), page == nil ? .absent : nil))
                }
            case .redirect(let expected):
                if let redirect = observed.redirect {
                    checkURL(expected, redirect, label: "browser.redirect")
                } else {
                    fail("browser.redirect", expected: "a redirect", actual: "none (the page answered \(page.map { String($0.status) } ?? "nothing"))")
                }
            case .noRedirect:
                if let redirect = observed.redirect {
                    fail("browser.redirect", expected: "no redirect", actual: "a redirect to \(Transcript.maskQuery(redirect))")
                }
            case .dismissed(let expected):
                if expected, let reason = dismissalNotJudged {
                    skips.append(CheckSkip(step: step.number, line: step.location.line, check: "browser.dismissed", reason: reason))
                } else if expected != observed.dismissed {
                    fail("browser.dismissed", expected: expected ? "the SDK dismissed the browser" : "the browser left open", actual: observed.dismissed ? "dismissed" : "not dismissed")
                }
            }
        }
    }

    /// No request and no opened URL carries any of the values, in any encoding they travel in.
    private mutating func checkNeverSent(_ values: [Template], exchanges: [RecordedExchange], opened: [URL]) {
        // Each request's and URL's decoded readings (percent-, `\u`- and Basic-decoded), once for
        // every value: an encoding the judge's list does not name still shows once decoded.
        let requests = exchanges.map { exchange in
            let request = exchange.request
            return SecretForms.readings(of: ([request.target] + request.headers.pairs.map { "\($0.name): \($0.value)" }).joined(separator: "\n") + "\n" + String(decoding: request.body, as: UTF8.self))
        }
        let urls = opened.map { SecretForms.readings(of: $0.absoluteString) }
        for template in values {
            // The judge's own list of forms (never the redactor's), as UTF-8 bytes.
            let forms = SecretForms.forms(of: template.render(variables)).filter { !$0.isEmpty }.map { Array($0.utf8) }
            func carried(in readings: [[UInt8]]) -> Bool {
                forms.contains { form in readings.contains { SecretForms.occurs(form, in: $0) } }
            }
            for (i, readings) in requests.enumerated() where carried(in: readings) {
                let request = exchanges[i].request
                fail("requests[\(i)] (\(request.method) \(request.path))", expected: "never to carry \(quote(template.raw))", actual: "it does")
            }
            for (i, readings) in urls.enumerated() where carried(in: readings) {
                fail("browser.opened[\(i)]", expected: "never to carry \(quote(template.raw))", actual: "it does")
            }
        }
    }
}
