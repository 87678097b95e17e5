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

    /// Applies one matcher; records a failure or a capture.
    private mutating func check(_ check: String, _ matcher: Matcher, _ actual: String?) {
        if matcher.matches(actual, variables: variables) {
            if let name = matcher.capture, let actual { variables[name] = actual }
        } else {
            fail(check, expected: rendered(matcher), actual: actual.map(quote) ?? "nothing (absent)")
        }
    }

    /// The matcher's expectation with variables filled in, as the reader needs to compare.
    private func rendered(_ matcher: Matcher) -> String {
        switch matcher.kind {
        case .equals(let t): return "equals \(quote(t.render(variables)))"
        case .notEquals(let t): return "differs from \(quote(t.render(variables)))"
        case .contains(let t): return "contains \(quote(t.render(variables)))"
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
                check("result.\(field.field)", field.matcher, result[field.field])
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
            check("\(label).headers.\(field.field)", field.matcher, request.headers[field.field])
        }
        if !wanted.form.isEmpty || (wanted.strict && request.formFields != nil && !request.body.isEmpty) {
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
    }

    private mutating func checkFields(_ wanted: [FieldMatcher], _ actual: [String: [String]], _ prefix: String, strict: Bool) {
        for field in wanted {
            let values = actual[field.field] ?? []
            if values.count > 1 {
                fail("\(prefix).\(field.field)", expected: "one value", actual: "\(values.count) values")
            }
            check("\(prefix).\(field.field)", field.matcher, values.first)
        }
        if strict {
            let listed = Set(wanted.map(\.field))
            for name in actual.keys.sorted() where !listed.contains(name) {
                fail("\(prefix).\(name)", expected: "no such field (strict)", actual: "present")
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
            check("store.\(field.field)", field.matcher, contents[field.field])
        }
    }
}
