import FlowCheckSpec

/// Writes a step as documentation of the expected behaviour: the spec, read aloud.
enum StepNarrative {
    /// The action in words, or nil for a step that only checks.
    /// - Parameter actions: the provider's app actions, whose summaries the sentence quotes.
    /// - Parameter background: the label of an app call started with `async`.
    static func action(_ action: Action?, actions: [Vocabulary.ActionSignature], background: String? = nil) -> String? {
        guard let action else { return nil }
        switch action {
        case .app(let name, let arguments):
            let summary = actions.first { $0.name == name }?.summary
            var sentence = background == nil ? "The app calls \(code(name))" : "The app starts \(code(name)) in the background"
            sentence += describeArguments(arguments)
            if let summary { sentence += " (\(summary))" }
            if let background { sentence += " as \(code(background)), and goes on without waiting for it" }
            return sentence + "."
        case .await(let label):
            return "The app waits for the background call \(code(label)) to end."
        case .release(let label):
            return "The server answers the request it holds for the background call \(code(label)), and only that one."
        case .advanceClock(let seconds, let written):
            return "The clock moves forward \(written) (\(seconds) s)."
        case .fault(let fault):
            let scope = fault.path.map { "on \(code($0))" } ?? "on every path"
            let count = fault.times.map { $0 == 1 ? "once" : "\($0) times" } ?? "until cleared"
            let clock = fault.clockAdvanceWritten.map { "; while it holds a request the clock moves forward \($0)" } ?? ""
            return "The server is told to fail with \(code(fault.kind)) \(scope), \(count)\(clock)."
        case .clearFaults:
            return "The server stops failing (faults cleared)."
        case .crashStore(let point):
            return "A crash is armed: \(point.summary); the SDK call that makes that write ends there."
        case .server(let operation):
            return "The server performs \(code(operation))."
        case .browser(let operation, let arguments, let transforms):
            let summary = operation.signature.summary
            var sentence = "The browser: \(summary)" + describeArguments(arguments)
            if !transforms.isEmpty {
                sentence += (arguments.isEmpty ? " with " : "; ") + transforms.map(describe).joined(separator: ", ")
            }
            return sentence + "."
        case .send(let request):
            var sentence = "The harness itself sends \(code("\(request.method) \(request.path.raw)"))"
            let body = request.json.isEmpty ? request.form : request.json
            if !body.isEmpty { sentence += " with \(request.json.isEmpty ? "form" : "JSON")" + describeArguments(body).replacingOccurrences(of: " with", with: "") }
            return sentence + "."
        }
    }

    /// "`state` as captured, with the case of every letter swapped".
    static func describe(_ transform: ParameterTransform) -> String {
        let base = "\(code(transform.parameter)) as captured, \(transform.transform.kind.summary)"
        return transform.transform.value.map { base + " (\(code(Transcript.maskQuery($0.raw))))" } ?? base
    }

    /// ` with name `value`, ...` (a sensitive literal masked), or nothing.
    static func describeArguments(_ arguments: [Argument]) -> String {
        guard !arguments.isEmpty else { return "" }
        let list = arguments.map { argument in
            // A URL argument may carry a token in its query: masked like a transcript's.
            let value = Redactor.isSensitive(field: argument.name) && argument.value.variables.isEmpty ? Redactor.mask : Transcript.maskQuery(argument.value.raw)
            return "\(argument.name) \(code(value))"
        }
        return " with " + list.joined(separator: ", ")
    }

    /// The expectations in words, one per line, in the order they are checked.
    static func checks(_ expect: Expectation?, isAppStep: Bool) -> [String] {
        var lines: [String] = []
        // The line "The call fails." that an `error` check completes with its kind and message.
        var failsLine: Int?
        for check in Expectation.checks(of: expect, afterCall: isAppStep) {
            switch check {
            case .outcome(let outcome):
                switch outcome {
                case .ok: lines.append("The call succeeds.")
                case .error:
                    failsLine = lines.count
                    lines.append("The call fails.")
                case .any:
                    lines.append("The call may succeed or fail.")
                }
            case .error(let checks):
                if expect?.effectiveOutcome == .any {
                    lines.append("If it fails, it fails" + describe(checks) + ".")
                    break
                }
                let sentence = "The call fails" + describe(checks) + "."
                if let failsLine { lines[failsLine] = sentence } else { lines.append(sentence) }
            case .result(let fields):
                let either = expect?.effectiveOutcome == .any ? "If it succeeds: result" : "Result"
                for field in fields { lines.append("\(either) \(code(field.field)) \(describe(field)).") }
            case .requests(let requests):
                if requests.isEmpty {
                    lines.append("The server sees no request.")
                } else {
                    let optional = requests.contains(where: \.isOptional) ? " (those marked \"or none\" may be missing)" : ""
                    lines.append("The server sees exactly \(requests.count == 1 ? "this request" : "these \(requests.count) requests, in order")\(optional):")
                    for (i, request) in requests.enumerated() {
                        lines.append("  \(i + 1). " + describe(request))
                    }
                }
            case .browser(let checks):
                lines += checks.flatMap(describe)
            case .neverSent(let values):
                guard !values.isEmpty else { break }
                lines.append("No request carries " + values.map { code($0.variables.isEmpty ? Redactor.mask : $0.raw) }.joined(separator: " or ") + ", in any encoding.")
            case .storeEmpty(let empty):
                lines.append(empty ? "The token store is empty." : "The token store is not empty.")
            case .storeUnchanged:
                lines.append("The token store holds what it held before the step.")
            case .store(let fields):
                for field in fields { lines.append("Stored \(code(field.field)) \(describe(field)).") }
            case .storeFiles(let kinds):
                for kind in kinds {
                    // No default: a new file check must be narrated.
                    switch kind {
                    case .ownerOnly: lines.append("The token store's files are its owner's alone: the directory and each file are closed to the group and others (0700 and 0600, or stricter).")
                    case .noTemporaryFiles: lines.append("Nothing in the token store's directory but the stored items' files holds a token: no temporary copy or backup is left behind.")
                    case .replacedByRename: lines.append("Each token store file is a new file (a new inode) since the previous file check: replaced by a rename, not rewritten in place.")
                    }
                }
            }
        }
        return lines
    }

    /// What follows "The call fails": the error's kind, then what its message must be.
    static func describe(_ checks: [ErrorCheck]) -> String {
        var kindClause: String?
        var messageClause = ""
        for check in checks {
            switch check {
            case .kind(let kind):
                let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
                kindClause = " with \(article) \(code(kind)) error"
            case .message(let matcher):
                messageClause = " whose message \(expectation(matcher))"
            }
        }
        // Without a kind, "with an error" keeps the message clause a sentence.
        if kindClause == nil, !messageClause.isEmpty { kindClause = " with an error" }
        return (kindClause ?? "") + messageClause
    }

    /// One browser check in words (an opened list takes a line per URL).
    static func describe(_ check: BrowserCheck) -> [String] {
        switch check {
        case .opened(let opened):
            if opened.isEmpty { return ["The SDK opens no browser."] }
            return [opened.count == 1 ? "The SDK opens the browser at:" : "The SDK opens the browser at, in order:"]
                + opened.enumerated().map { i, url in "  \(i + 1). " + describe(url) }
        case .pageStatus(let status): return ["The page answers \(status)."]
        case .pageContains(let text): return ["The page says \(code(text.raw))."]
        case .redirect(let redirect): return ["The browser is redirected to " + describe(redirect) + "."]
        case .noRedirect: return ["The browser is not redirected (no code reaches the app)."]
        case .dismissed(let dismissed): return [dismissed ? "The SDK dismisses the browser." : "The browser stays open."]
        }
    }

    static func describe(_ request: RequestExpectation) -> String {
        var method: String?
        var path: Matcher?
        var origin: String?
        var optional = false
        var parts: [String] = []
        func section(_ name: String, _ fields: [FieldMatcher]) {
            guard !fields.isEmpty else { return }
            parts.append("\(name) " + fields.map { "\(code($0.field)) \(describe($0))" }.joined(separator: ", "))
        }
        for check in request.checks {
            switch check {
            case .method(let written): method = written
            case .path(let matcher): path = matcher
            case .origin(let name): origin = name
            case .query(let fields): section("query", fields)
            case .headers(let fields): section("headers", fields)
            case .form(let fields): section("form", fields)
            case .json(let fields): section("JSON", fields)
            case .body(let fields): section("body (a form or JSON)", fields)
            case .forbid(let names): parts.append("no " + names.map(code).joined(separator: ", ") + " field")
            case .status(let status): parts.append("answered \(status)")
            case .responseJson(let fields): section("answer", fields)
            case .optional: optional = true
            }
        }
        var head: String
        if let path {
            if case .equals(let template) = path.kind { head = code("\(method ?? "any method") \(template.raw)") } else { head = code(method ?? "any method") + " to a path that \(expectation(path))" }
        } else {
            head = code(method ?? "any method") + " to any path"
        }
        if let origin { head += " on the \(origin) origin" }
        if optional { head = "(or none) " + head }
        return parts.isEmpty ? head : head + ": " + parts.joined(separator: "; ")
    }

    static func describe(_ url: URLExpectation) -> String {
        var parts: [String] = []
        for check in url.checks {
            switch check {
            case .url(let matcher): parts.append("a URL that \(expectation(matcher))")
            case .scheme(let matcher): parts.append("scheme \(expectation(matcher))")
            case .host(let matcher): parts.append("host \(expectation(matcher))")
            case .path(let matcher):
                if case .equals(let template) = matcher.kind { parts.append("\(code(template.raw))") } else { parts.append("a path that \(expectation(matcher))") }
            case .query(let fields):
                if !fields.isEmpty { parts.append("query " + fields.map { "\(code($0.field)) \(describe($0))" }.joined(separator: ", ")) }
            case .forbid(let names): parts.append("no " + names.map(code).joined(separator: ", ") + " parameter")
            }
        }
        return parts.isEmpty ? "any URL" : parts.joined(separator: "; ")
    }

    static func describe(_ field: FieldMatcher) -> String {
        var text = Redactor.isSensitive(field: field.field) && isLiteral(field.matcher) ? masked(field.matcher) : expectation(field.matcher)
        if let capture = field.matcher.capture { text += " (kept as \(code("${\(capture)}")))" }
        return text
    }

    private static func isLiteral(_ matcher: Matcher) -> Bool {
        switch matcher.kind {
        case .equals(let t), .notEquals(let t), .contains(let t), .pkceS256(let t): return t.variables.isEmpty
        // Nothing written to mask: a pattern describes a value, it is not one.
        case .present, .absent, .regex: return false
        }
    }

    private static func masked(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals: return "equals \(code(Redactor.mask))"
        case .notEquals: return "differs from \(code(Redactor.mask))"
        case .contains: return "contains \(code(Redactor.mask))"
        case .pkceS256: return "is the PKCE verifier of the S256 challenge \(code(Redactor.mask))"
        case .present, .absent, .regex: return expectation(matcher)
        }
    }

    /// What a matcher wants, its operand marked as a value (``Matcher/expectation`` in words,
    /// for the narrative).
    static func expectation(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals(let t): return "equals \(code(t.raw))"
        case .notEquals(let t): return "differs from \(code(t.raw))"
        case .present: return "is present"
        case .absent: return "is absent"
        case .regex(let pattern): return "matches the pattern \(code(pattern))"
        case .contains(let t): return "contains \(code(t.raw))"
        case .pkceS256(let t): return "is the PKCE verifier of the S256 challenge \(code(t.raw))"
        }
    }

    /// A value quoted from the spec, marked so each report shows it by its own rule.
    static func code(_ value: String) -> String {
        NarrativeMarkup.value(value)
    }
}
