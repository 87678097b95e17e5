import FlowCheckSpec

/// Writes a step as documentation of the expected behaviour: the spec, read aloud.
enum StepNarrative {
    /// The action in words, or nil for a step that only checks.
    /// - Parameter actions: the provider's app actions, whose summaries the sentence quotes.
    static func action(_ action: Action?, actions: [Vocabulary.ActionSignature]) -> String? {
        guard let action else { return nil }
        switch action {
        case .app(let name, let arguments):
            let summary = actions.first { $0.name == name }?.summary
            var sentence = "The app calls `\(name)`"
            sentence += describeArguments(arguments)
            if let summary { sentence += " (\(summary))" }
            return sentence + "."
        case .advanceClock(let seconds, let written):
            return "The clock moves forward \(written) (\(seconds) s)."
        case .fault(let fault):
            let scope = fault.path.map { "on `\($0)`" } ?? "on every path"
            let count = fault.times.map { $0 == 1 ? "once" : "\($0) times" } ?? "until cleared"
            let clock = fault.clockAdvanceWritten.map { "; while it holds a request the clock moves forward \($0)" } ?? ""
            return "The server is told to fail with `\(fault.kind)` \(scope), \(count)\(clock)."
        case .clearFaults:
            return "The server stops failing (faults cleared)."
        case .server(let operation):
            return "The server performs `\(operation)`."
        case .browser(let operation, let arguments):
            let summary = Vocabulary.browserOperations.first { $0.name == operation }?.summary ?? operation
            return "The browser: \(summary)" + describeArguments(arguments) + "."
        case .send(let request):
            var sentence = "The harness itself sends `\(request.method) \(request.path.raw)`"
            let body = request.json.isEmpty ? request.form : request.json
            if !body.isEmpty { sentence += " with \(request.json.isEmpty ? "form" : "JSON")" + describeArguments(body).replacingOccurrences(of: " with", with: "") }
            return sentence + "."
        }
    }

    /// ` with name `value`, ...` (a sensitive literal masked), or nothing.
    static func describeArguments(_ arguments: [Argument]) -> String {
        guard !arguments.isEmpty else { return "" }
        let list = arguments.map { argument in
            // A URL argument may carry a token in its query: masked like a transcript's.
            let value = Redactor.isSensitive(field: argument.name) && argument.value.variables.isEmpty ? Redactor.mask : Transcript.maskQuery(argument.value.raw)
            return "\(argument.name) `\(value)`"
        }
        return " with " + list.joined(separator: ", ")
    }

    /// The expectations in words, one per line.
    static func checks(_ expect: Expectation?, isAppStep: Bool) -> [String] {
        var lines: [String] = []
        if isAppStep {
            let outcome = expect?.effectiveOutcome ?? .ok
            if outcome == .ok {
                lines.append("The call succeeds.")
            } else {
                var line = "The call fails"
                if let kind = expect?.error?.kind {
                    let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
                    line += " with \(article) `\(kind)` error"
                }
                if let message = expect?.error?.message { line += " whose message \(message.expectation)" }
                lines.append(line + ".")
            }
        }
        guard let expect else { return lines }
        for field in expect.result {
            lines.append("Result `\(field.field)` \(describe(field))." )
        }
        if let requests = expect.requests {
            if requests.isEmpty {
                lines.append("The server sees no request.")
            } else {
                lines.append("The server sees exactly \(requests.count == 1 ? "this request" : "these \(requests.count) requests, in order"):")
                for (i, request) in requests.enumerated() {
                    lines.append("  \(i + 1). " + describe(request))
                }
            }
        }
        if let browser = expect.browser {
            if let opened = browser.opened {
                if opened.isEmpty {
                    lines.append("The SDK opens no browser.")
                } else {
                    lines.append(opened.count == 1 ? "The SDK opens the browser at:" : "The SDK opens the browser at, in order:")
                    for (i, url) in opened.enumerated() { lines.append("  \(i + 1). " + describe(url)) }
                }
            }
            if let status = browser.pageStatus { lines.append("The page answers \(status).") }
            if let text = browser.pageContains { lines.append("The page says \(text.quoted).") }
            if let redirect = browser.redirect { lines.append("The browser is redirected to " + describe(redirect) + ".") }
            if browser.noRedirect == true { lines.append("The browser is not redirected (no code reaches the app).") }
            if let dismissed = browser.dismissed { lines.append(dismissed ? "The SDK dismisses the browser." : "The browser stays open.") }
        }
        if !expect.neverSent.isEmpty {
            lines.append("No request carries " + expect.neverSent.map { $0.variables.isEmpty ? "\"\(Redactor.mask)\"" : $0.quoted }.joined(separator: " or ") + ", in any encoding.")
        }
        if expect.storeEmpty == true { lines.append("The token store is empty.") }
        if expect.storeEmpty == false { lines.append("The token store is not empty.") }
        for field in expect.store {
            lines.append("Stored `\(field.field)` \(describe(field)).")
        }
        return lines
    }

    static func describe(_ request: RequestExpectation) -> String {
        var head = "`\(request.method ?? "any method")"
        if let path = request.path {
            if case .equals(let template) = path.kind { head += " \(template.raw)`" } else { head += "` to a path that \(path.expectation)" }
        } else {
            head += "` to any path"
        }
        var parts: [String] = []
        func section(_ name: String, _ fields: [FieldMatcher]) {
            guard !fields.isEmpty else { return }
            parts.append("\(name) " + fields.map { "`\($0.field)` \(describe($0))" }.joined(separator: ", "))
        }
        section("query", request.query)
        section("headers", request.headers)
        section("form", request.form)
        section("JSON", request.json)
        if request.strict { parts.append("no other fields") }
        if let status = request.status { parts.append("answered \(status)") }
        if !request.responseJson.isEmpty { parts.append("answer " + request.responseJson.map { "`\($0.field)` \(describe($0))" }.joined(separator: ", ")) }
        return parts.isEmpty ? head : head + ": " + parts.joined(separator: "; ")
    }

    static func describe(_ url: URLExpectation) -> String {
        var parts: [String] = []
        if let matcher = url.url { parts.append("a URL that \(matcher.expectation)") }
        if let matcher = url.scheme { parts.append("scheme \(matcher.expectation)") }
        if let matcher = url.host { parts.append("host \(matcher.expectation)") }
        if let matcher = url.path {
            if case .equals(let template) = matcher.kind { parts.append("`\(template.raw)`") } else { parts.append("a path that \(matcher.expectation)") }
        }
        if !url.query.isEmpty { parts.append("query " + url.query.map { "`\($0.field)` \(describe($0))" }.joined(separator: ", ")) }
        if url.strict { parts.append("no other parameters") }
        return parts.isEmpty ? "any URL" : parts.joined(separator: "; ")
    }

    static func describe(_ field: FieldMatcher) -> String {
        var text = Redactor.isSensitive(field: field.field) && isLiteral(field.matcher) ? masked(field.matcher) : field.matcher.expectation
        if let capture = field.matcher.capture { text += " (kept as `${\(capture)}`)" }
        return text
    }

    private static func isLiteral(_ matcher: Matcher) -> Bool {
        switch matcher.kind {
        case .equals(let t), .notEquals(let t), .contains(let t), .pkceS256(let t): return t.variables.isEmpty
        default: return false
        }
    }

    private static func masked(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals: return "equals \"\(Redactor.mask)\""
        case .notEquals: return "differs from \"\(Redactor.mask)\""
        case .contains: return "contains \"\(Redactor.mask)\""
        case .pkceS256: return "is the PKCE verifier of the S256 challenge \"\(Redactor.mask)\""
        default: return matcher.expectation
        }
    }
}
