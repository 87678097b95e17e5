import Foundation

extension SpecDecoder {
    // MARK: - Expectations

    /// Reports field names not in `allowed` (an entry ending in "." allows any name it prefixes),
    /// so a typo cannot pass silently behind `absent` or `notEquals`.
    func checkFieldNames(_ node: JSONNode, _ path: String, allowed: [String], listName: String) {
        for member in node.members ?? [] {
            let known = allowed.contains { $0.hasSuffix(".") ? member.key.hasPrefix($0) && member.key.count > $0.count : $0 == member.key }
            if !known {
                report(at: member.keyLocation, path + JSONPath.key(member.key), "unknown field \"\(member.key)\"", fix: Suggestion.fix(for: member.key, in: allowed, listName: listName))
            }
        }
    }

    mutating func decodeExpect(_ node: JSONNode, _ path: String, provider: (any ProviderDescription)?, appAction: Vocabulary.ActionSignature?) -> Expectation? {
        guard let members = object(node, path, allowed: Self.expectKeys, example: "{\"outcome\": \"ok\"}") else { return nil }
        var expectation = Expectation()
        if let outcome = string(members, "outcome", in: node, path, required: false, example: "\"ok\"") {
            if let value = Expectation.Outcome(rawValue: outcome) { expectation.outcome = value } else {
                report(members["outcome"]!.value, path + ".outcome", "unknown outcome \"\(outcome)\"", fix: "use \"ok\" or \"error\"")
            }
        }
        if let member = members["error"], let fields = object(member.value, path + ".error", allowed: Self.errorKeys, example: "{\"kind\": \"tokenEndpoint\"}") {
            var error = ErrorExpectation()
            if let kind = string(fields, "kind", in: member.value, path + ".error", required: false, example: "\"tokenEndpoint\"") {
                if Vocabulary.errorKinds.contains(kind) { error.kind = kind } else {
                    report(fields["kind"]!.value, path + ".error.kind", "unknown error kind \"\(kind)\"", fix: Suggestion.fix(for: kind, in: Vocabulary.errorKinds, listName: "error kinds"))
                }
            }
            if let message = fields["message"] { error.message = decodeMatcher(message.value, path + ".error.message") }
            expectation.error = error
            if expectation.outcome == .ok {
                report(member.value, path + ".error", "\"error\" contradicts \"outcome\": \"ok\"", fix: "set \"outcome\" to \"error\", or remove \"error\"")
            }
        }
        if let member = members["result"] {
            expectation.result = decodeFields(member.value, path + ".result")
            if let appAction { checkFieldNames(member.value, path + ".result", allowed: appAction.results, listName: "results of \(appAction.name)") }
        }
        if let member = members["store"] {
            expectation.store = decodeFields(member.value, path + ".store")
            if let provider { checkFieldNames(member.value, path + ".store", allowed: provider.storeFields, listName: "store fields") }
        }
        if let member = members["storeEmpty"] { expectation.storeEmpty = bool(member, path + ".storeEmpty") }
        if let member = members["requests"], let items = array(member, path + ".requests", example: "[{\"method\": \"POST\", \"path\": \"/oauth/access_token\"}]") {
            expectation.requests = items.enumerated().compactMap { i, item in decodeRequest(item, path + ".requests[\(i)]") }
        }
        if let member = members["neverSent"], let items = array(member, path + ".neverSent", example: "[\"app-secret\"]") {
            for (i, item) in items.enumerated() {
                guard case .string(let text) = item.value else {
                    typeMismatch(item, path + ".neverSent[\(i)]", expected: "a string", example: "\"app-secret\"")
                    continue
                }
                let template = Template(text)
                checkVariables(template, item, path + ".neverSent[\(i)]")
                expectation.neverSent.append(template)
            }
        }
        if let member = members["browser"] { expectation.browser = decodeBrowserExpectation(member.value, path + ".browser") }
        return expectation
    }

    mutating func decodeRequest(_ node: JSONNode, _ path: String) -> RequestExpectation? {
        guard let members = object(node, path, allowed: Self.requestKeys, example: "{\"method\": \"GET\", \"path\": \"/v1/products\"}") else { return nil }
        var request = RequestExpectation(location: node.location)
        if let method = string(members, "method", in: node, path, required: false, example: "\"POST\"") {
            if method.range(of: "\\A[A-Z]+\\z", options: .regularExpression) != nil { request.method = method } else {
                report(members["method"]!.value, path + ".method", "method \"\(method)\" is not an HTTP method", fix: "write it in capitals, e.g. \"\(method.uppercased())\"")
            }
        }
        if let member = members["path"] { request.path = decodeMatcher(member.value, path + ".path") }
        if let member = members["query"] { request.query = decodeFields(member.value, path + ".query") }
        if let member = members["headers"] { request.headers = decodeFields(member.value, path + ".headers") }
        if let member = members["form"] { request.form = decodeFields(member.value, path + ".form") }
        if let member = members["json"] { request.json = decodeFields(member.value, path + ".json") }
        request.strict = bool(members["strict"], path + ".strict") ?? false
        request.status = integer(members["status"], path + ".status", range: 100...599, example: "200")
        if let member = members["responseJson"] { request.responseJson = decodeFields(member.value, path + ".responseJson") }
        return request
    }

    mutating func decodeBrowserExpectation(_ node: JSONNode, _ path: String) -> BrowserExpectation? {
        guard let members = object(node, path, allowed: Self.browserExpectKeys, example: "{\"opened\": [{\"path\": \"/oauth/v2/authorize\"}]}") else { return nil }
        var expectation = BrowserExpectation()
        if let member = members["opened"], let items = array(member, path + ".opened", example: "[{\"path\": \"/oauth/v2/authorize\"}]") {
            expectation.opened = items.enumerated().compactMap { i, item in decodeURL(item, path + ".opened[\(i)]") }
        }
        if let member = members["redirect"] { expectation.redirect = decodeURL(member.value, path + ".redirect") }
        expectation.noRedirect = bool(members["noRedirect"], path + ".noRedirect")
        if expectation.noRedirect == true, members["redirect"] != nil {
            report(node, path, "\"redirect\" and \"noRedirect\" contradict each other", fix: "keep one of them")
        }
        expectation.pageStatus = integer(members["pageStatus"], path + ".pageStatus", range: 100...599, example: "200")
        if let text = string(members, "pageContains", in: node, path, required: false, example: "\"Invalid email or password\"") {
            let template = Template(text)
            checkVariables(template, members["pageContains"]!.value, path + ".pageContains")
            expectation.pageContains = template
        }
        expectation.dismissed = bool(members["dismissed"], path + ".dismissed")
        return expectation
    }

    mutating func decodeURL(_ node: JSONNode, _ path: String) -> URLExpectation? {
        guard let members = object(node, path, allowed: Self.urlKeys, example: "{\"path\": \"/oauth/v2/authorize\", \"query\": {\"client_id\": \"app-1\"}}") else { return nil }
        var expectation = URLExpectation(location: node.location)
        if let member = members["url"] { expectation.url = decodeMatcher(member.value, path + ".url") }
        if let member = members["scheme"] { expectation.scheme = decodeMatcher(member.value, path + ".scheme") }
        if let member = members["host"] { expectation.host = decodeMatcher(member.value, path + ".host") }
        if let member = members["path"] { expectation.path = decodeMatcher(member.value, path + ".path") }
        if let member = members["query"] { expectation.query = decodeFields(member.value, path + ".query") }
        expectation.strict = bool(members["strict"], path + ".strict") ?? false
        return expectation
    }

    mutating func decodeFields(_ node: JSONNode, _ path: String) -> [FieldMatcher] {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object of field matchers", example: "{\"grant_type\": \"client_credentials\"}")
            return []
        }
        reportDuplicates(members, path)
        return members.compactMap { member in
            decodeMatcher(member.value, path + JSONPath.key(member.key)).map { FieldMatcher(field: member.key, matcher: $0) }
        }
    }

}
