import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// Checks one step's expectations against what happened, capturing variables as it goes.
///
/// Every check of the step is evaluated (not only the first), so a failure report shows the
/// whole picture of the step that went wrong.
struct ExpectationChecker {
    let step: Step
    var variables: [String: String]
    private(set) var failures: [CheckFailure] = []

    init(step: Step, variables: [String: String]) {
        self.step = step
        self.variables = variables
    }

    private mutating func fail(_ check: String, expected: String, actual: String) {
        failures.append(CheckFailure(step: step.number, line: step.location.line, check: check, expected: expected, actual: actual))
    }

    /// Values captured from sensitive fields: they join the secrets the reports must not show.
    private(set) var capturedSecrets: [String] = []

    /// Applies one matcher; records a failure or a capture. A sensitive field's actual value is
    /// never shown, only its length: the scrubber knows issued tokens, not an SDK's verifier.
    private mutating func check(_ check: String, _ matcher: Matcher, _ actual: String?, field: String? = nil) {
        let sensitive = field.map(Redactor.isSensitive(field:)) ?? false
        if matcher.matches(actual, variables: variables, s256: FakeCrypto.s256Challenge(for:)) {
            if let name = matcher.capture, let actual {
                variables[name] = actual
                if sensitive { capturedSecrets.append(actual) }
            }
            if matcher.capture != nil && actual == nil {
                // A later step would compare against "${name}" literally and pass by accident.
                fail(check, expected: "a value to capture as ${\(matcher.capture!)}", actual: "nothing (absent)")
            }
        } else {
            let shown = actual.map { sensitive ? "\"\(Redactor.mask)\" (\($0.count) characters)" : quote($0) } ?? "nothing (absent)"
            // A sensitive field's expected value is shown as the spec wrote it (a variable name),
            // never rendered: the secret it stands for may be one the scrubber does not know.
            fail(check, expected: sensitive ? StepNarrative.describe(FieldMatcher(field: field ?? "", matcher: matcher)) : rendered(matcher), actual: shown)
        }
    }

    /// The matcher's expectation with variables filled in, as the reader needs to compare.
    private func rendered(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals(let t): return "equals \(quote(t.render(variables)))"
        case .notEquals(let t): return "differs from \(quote(t.render(variables)))"
        case .contains(let t): return "contains \(quote(t.render(variables)))"
        case .pkceS256(let t): return "a PKCE verifier whose S256 challenge is \(quote(t.render(variables)))"
        default: return matcher.expectation
        }
    }

    private func quote(_ s: String) -> String { "\"\(s)\"" }

    /// The call's outcome, error and result fields.
    mutating func checkOutcome(_ outcome: CallOutcome, expect: Expectation?) {
        let wanted = expect?.effectiveOutcome ?? .ok
        switch outcome {
        case .crashed(let reason):
            fail("outcome", expected: wanted == .ok ? "success" : "an error value", actual: "the SDK crashed (\(reason))")
        case .ok(let result):
            if wanted == .error {
                fail("outcome", expected: "an error" + (expect?.error?.kind.map { " of kind \($0)" } ?? ""), actual: "success")
            }
            for field in expect?.result ?? [] {
                check("result.\(field.field)", field.matcher, result[field.field], field: field.field)
            }
        case .error(let kind, let message):
            if wanted == .ok {
                fail("outcome", expected: "success", actual: "\(kind) error: \(message)")
                return
            }
            if let expectedKind = expect?.error?.kind, expectedKind != kind {
                fail("error.kind", expected: quote(expectedKind), actual: "\(quote(kind)) (\(message))")
            }
            if let matcher = expect?.error?.message {
                check("error.message", matcher, message)
            }
        }
    }

    /// The exact, ordered list of requests the server saw since the previous step.
    mutating func checkRequests(_ expected: [RequestExpectation], _ exchanges: [RecordedExchange]) {
        if expected.count != exchanges.count {
            let seen = exchanges.isEmpty ? "no request" : exchanges.map { "\($0.request.method) \($0.request.path) → \($0.response.status)" }.joined(separator: ", ")
            fail("requests", expected: "\(expected.count) request\(expected.count == 1 ? "" : "s")", actual: "\(exchanges.count): \(seen)")
        }
        for (i, (wanted, exchange)) in zip(expected, exchanges).enumerated() {
            checkRequest(wanted, exchange, prefix: "requests[\(i)]")
        }
    }

    private mutating func checkRequest(_ wanted: RequestExpectation, _ exchange: RecordedExchange, prefix: String) {
        let request = exchange.request
        let label = "\(prefix) (\(request.method) \(request.path))"
        if let method = wanted.method, method != request.method {
            fail("\(label).method", expected: quote(method), actual: quote(request.method))
        }
        if let path = wanted.path { check("\(label).path", path, request.path) }
        let query = Self.fields(request.query)
        checkFields(wanted.query, query, "\(label).query", strict: wanted.strict)
        for field in wanted.headers {
            check("\(label).headers.\(field.field)", field.matcher, request.headers[field.field], field: field.field)
        }
        let isForm = request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        if !wanted.form.isEmpty || (wanted.strict && isForm && !request.body.isEmpty) {
            if let form = request.formFields {
                checkFields(wanted.form, Self.fields(form), "\(label).form", strict: wanted.strict)
            } else {
                fail("\(label).form", expected: "an application/x-www-form-urlencoded body", actual: "a body that is not form-encoded")
            }
        }
        if !wanted.json.isEmpty {
            if let json = request.jsonFields() {
                checkFields(wanted.json, json.mapValues { [$0] }, "\(label).json", strict: wanted.strict)
            } else {
                fail("\(label).json", expected: "a JSON object body", actual: "a body that is not a JSON object")
            }
        }
        if let status = wanted.status, status != exchange.response.status {
            fail("\(label).status", expected: "\(status)", actual: "\(exchange.response.status)")
        }
        if !wanted.responseJson.isEmpty {
            if let json = exchange.response.jsonFields() {
                checkFields(wanted.responseJson, json.mapValues { [$0] }, "\(label).responseJson", strict: false)
            } else {
                fail("\(label).responseJson", expected: "a JSON object answer", actual: "an answer that is not a JSON object")
            }
        }
    }

    private mutating func checkFields(_ wanted: [FieldMatcher], _ actual: [String: [String]], _ prefix: String, strict: Bool) {
        for field in wanted {
            let values = actual[field.field] ?? []
            if values.count > 1 {
                fail("\(prefix).\(field.field)", expected: "one value", actual: "\(values.count) values")
            }
            check("\(prefix).\(field.field)", field.matcher, values.first, field: field.field)
        }
        if strict {
            let listed = Set(wanted.map(\.field))
            for name in actual.keys.sorted() where !listed.contains(name) {
                // An unexpected name may be a fragment of a badly encoded secret: not shown.
                let shown = Redactor.isNameShowable(name) ? name : "‹an unexpected field›"
                fail("\(prefix).\(shown)", expected: "no such field (strict)", actual: "present")
            }
        }
    }

    private static func fields(_ pairs: [(name: String, value: String)]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for pair in pairs { result[pair.name, default: []].append(pair.value) }
        return result
    }

    /// The SDK's store.
    mutating func checkStore(_ expect: Expectation, _ contents: [String: String]) {
        if let empty = expect.storeEmpty {
            if empty && !contents.isEmpty {
                fail("store", expected: "empty", actual: "holds " + contents.keys.sorted().joined(separator: ", "))
            } else if !empty && contents.isEmpty {
                fail("store", expected: "not empty", actual: "empty")
            }
        }
        for field in expect.store {
            check("store.\(field.field)", field.matcher, contents[field.field], field: field.field)
        }
    }

    /// A URL and its query.
    private mutating func checkURL(_ wanted: URLExpectation, _ url: String, label: String) {
        let components = URLComponents(string: url)
        if let matcher = wanted.url { check("\(label).url", matcher, url, field: "url") }
        if let matcher = wanted.scheme { check("\(label).scheme", matcher, components?.scheme) }
        if let matcher = wanted.host { check("\(label).host", matcher, components?.host) }
        if let matcher = wanted.path { check("\(label).path", matcher, components?.path) }
        let pairs = (components?.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        checkFields(wanted.query, Self.fields(pairs), "\(label).query", strict: wanted.strict)
    }

    /// What the browser saw since the previous step.
    mutating func checkBrowser(_ wanted: BrowserExpectation, opened: [URL], dismissed: Bool, page: ScriptedBrowser.Page?, redirect: String?) {
        if let expected = wanted.opened {
            if expected.count != opened.count {
                let seen = opened.isEmpty ? "none" : opened.map { $0.path }.joined(separator: ", ")
                fail("browser.opened", expected: "\(expected.count) URL\(expected.count == 1 ? "" : "s") opened", actual: "\(opened.count): \(seen)")
            }
            for (i, (url, actual)) in zip(expected, opened).enumerated() {
                checkURL(url, actual.absoluteString, label: "browser.opened[\(i)]")
            }
        }
        if let expected = wanted.redirect {
            if let redirect {
                checkURL(expected, redirect, label: "browser.redirect")
            } else {
                fail("browser.redirect", expected: "a redirect", actual: "none (the page answered \(page.map { String($0.status) } ?? "nothing"))")
            }
        }
        if wanted.noRedirect == true, let redirect {
            fail("browser.redirect", expected: "no redirect", actual: "a redirect to \(Transcript.maskQuery(redirect))")
        }
        if let status = wanted.pageStatus, status != page?.status {
            fail("browser.pageStatus", expected: "\(status)", actual: page.map { "\($0.status)" } ?? "no page loaded")
        }
        if let text = wanted.pageContains {
            let needle = text.render(variables)
            if !(page?.body.contains(needle) ?? false) {
                fail("browser.page", expected: "contains \(quote(needle))", actual: page.map { "a \($0.status) page without it" } ?? "no page loaded")
            }
        }
        if let expected = wanted.dismissed, expected != dismissed {
            fail("browser.dismissed", expected: expected ? "the SDK dismissed the browser" : "the browser left open", actual: dismissed ? "dismissed" : "not dismissed")
        }
    }

    /// No request and no opened URL carries any of the values, in any encoding they travel in.
    mutating func checkNeverSent(_ values: [Template], exchanges: [RecordedExchange], opened: [URL]) {
        for template in values {
            let value = template.render(variables)
            let forms = Redactor.forms(of: value).filter { !$0.isEmpty }
            for (i, exchange) in exchanges.enumerated() {
                let request = exchange.request
                let text = ([request.target] + request.headers.pairs.map { "\($0.name): \($0.value)" }).joined(separator: "\n") + "\n" + String(decoding: request.body, as: UTF8.self)
                if forms.contains(where: { text.contains($0) }) {
                    fail("requests[\(i)] (\(request.method) \(request.path))", expected: "never to carry \(quote(template.raw))", actual: "it does")
                }
            }
            for (i, url) in opened.enumerated() where forms.contains(where: { url.absoluteString.contains($0) }) {
                fail("browser.opened[\(i)]", expected: "never to carry \(quote(template.raw))", actual: "it does")
            }
        }
    }
}
