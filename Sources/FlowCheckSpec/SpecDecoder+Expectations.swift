import Foundation

extension SpecDecoder {
    // MARK: - Expectations

    /// Reports field names not in `allowed` (an entry ending in "." allows any name it prefixes),
    /// so a typo cannot pass silently behind `absent` or `notEquals`.
    func checkFieldNames(_ node: JSONNode, _ path: String, allowed: [String], listName: String) {
        for member in node.members ?? [] {
            let known = allowed.contains { $0.hasSuffix(".") ? member.key.hasPrefix($0) && member.key.count > $0.count : $0 == member.key }
            if !known {
                report(at: member.keyLocation, path + JSONPath.key(member.key), "unknown field \(quoted(member.key))", fix: Suggestion.fix(for: member.key, in: allowed, listName: listName))
            }
        }
    }

    mutating func decodeExpect(_ node: JSONNode, _ path: String, provider: (any ProviderDescription)?, appAction: Vocabulary.ActionSignature?) -> Expectation? {
        guard let members = object(node, path, allowed: CheckKind.keys, example: "{\"outcome\": \"ok\"}") else { return nil }
        var expectation = Expectation()
        for kind in CheckKind.allCases {
            guard let member = members[kind.rawValue] else { continue }
            if let check = decodeCheck(kind, member, path, in: node, members, provider: provider, appAction: appAction) {
                expectation.checks.append(check)
            }
        }
        let written = Set(expectation.checks.map(\.kind))
        if written.contains(.error), expectation.checks.contains(.outcome(.ok)), let member = members["error"] {
            report(member.value, path + ".error", "\"error\" contradicts \"outcome\": \"ok\"", fix: "set \"outcome\" to \"error\", or remove \"error\"")
        }
        // A failed call has no result: these fields would never be checked, and the step would
        // pass as if they held.
        if written.contains(.result), expectation.effectiveOutcome == .error, let member = members["result"] {
            report(at: member.keyLocation, path + ".result", "\"result\" checks a successful call, and this step expects an error", fix: "remove \"result\", or expect \"outcome\": \"ok\"")
        }
        return expectation
    }

    /// One key of an `expect` object, decoded by its kind; nil when it is malformed (and reported).
    private mutating func decodeCheck(_ kind: CheckKind, _ member: JSONNode.Member, _ path: String, in node: JSONNode, _ members: [String: JSONNode.Member], provider: (any ProviderDescription)?, appAction: Vocabulary.ActionSignature?) -> Check? {
        switch kind {
        case .outcome:
            guard let outcome = string(members, "outcome", in: node, path, required: false, example: "\"ok\"") else { return nil }
            guard let value = Expectation.Outcome(rawValue: outcome) else {
                report(member.value, path + ".outcome", "unknown outcome \(quoted(outcome))", fix: "use \"ok\" or \"error\"")
                return nil
            }
            return .outcome(value)
        case .error:
            guard let fields = object(member.value, path + ".error", allowed: ErrorCheckKind.keys, example: "{\"kind\": \"tokenEndpoint\"}") else { return nil }
            var checks: [ErrorCheck] = []
            for key in ErrorCheckKind.allCases {
                guard let field = fields[key.rawValue] else { continue }
                switch key {
                case .kind:
                    guard let kind = string(fields, "kind", in: member.value, path + ".error", required: false, example: "\"tokenEndpoint\"") else { continue }
                    if Vocabulary.errorKinds.contains(kind) { checks.append(.kind(kind)) } else {
                        report(field.value, path + ".error.kind", "unknown error kind \(quoted(kind))", fix: Suggestion.fix(for: kind, in: Vocabulary.errorKinds, listName: "error kinds"))
                    }
                case .message:
                    if let message = decodeMatcher(field.value, path + ".error.message") { checks.append(.message(message)) }
                }
            }
            return .error(checks)
        case .result:
            let fields = decodeFields(member.value, path + ".result")
            if let appAction { checkFieldNames(member.value, path + ".result", allowed: appAction.results, listName: "results of \(appAction.name)") }
            return .result(fields)
        case .requests:
            guard let items = array(member, path + ".requests", example: "[{\"method\": \"POST\", \"path\": \"/oauth/access_token\"}]") else { return nil }
            return .requests(items.enumerated().compactMap { i, item in decodeRequest(item, path + ".requests[\(i)]", provider: provider) })
        case .browser:
            return decodeBrowserExpectation(member.value, path + ".browser").map(Check.browser)
        case .neverSent:
            guard let items = array(member, path + ".neverSent", example: "[\"app-secret\"]") else { return nil }
            if items.isEmpty {
                report(member.value, path + ".neverSent", "an empty list checks nothing", fix: "list the values no request may carry, e.g. [\"${appSecret}\"], or remove the key")
            }
            var values: [Template] = []
            for (i, item) in items.enumerated() {
                guard case .string(let text) = item.value else {
                    typeMismatch(item, path + ".neverSent[\(i)]", expected: "a string", example: "\"app-secret\"")
                    continue
                }
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                    // The checker could never find an empty value "in" a request; the report would
                    // still say the check was made.
                    report(item, path + ".neverSent[\(i)]", "an empty value checks nothing", fix: "write the value no request may carry, e.g. \"${appSecret}\"")
                    continue
                }
                let template = Template(text)
                checkVariables(template, item, path + ".neverSent[\(i)]")
                values.append(template)
            }
            return .neverSent(values)
        case .storeEmpty:
            return bool(member, path + ".storeEmpty").map(Check.storeEmpty)
        case .storeUnchanged:
            guard let unchanged = bool(member, path + ".storeUnchanged") else { return nil }
            guard unchanged else {
                report(member.value, path + ".storeUnchanged", "\"storeUnchanged\": false checks nothing (a store may change or not)", fix: "remove it, or say what the store holds with \"store\"")
                return nil
            }
            return .storeUnchanged
        case .storeFiles:
            return decodeStoreFiles(member, path + ".storeFiles", provider: provider).map(Check.storeFiles)
        case .store:
            let fields = decodeFields(member.value, path + ".store")
            if let provider { checkFieldNames(member.value, path + ".store", allowed: provider.storeFields, listName: "store fields") }
            return .store(fields)
        }
    }

    /// `"storeFiles": {"ownerOnly": true, ...}`: each key `true`, at least one, on a provider
    /// whose SDK keeps a token, and `replacedByRename` only after an earlier `storeFiles` check.
    mutating func decodeStoreFiles(_ member: JSONNode.Member, _ path: String, provider: (any ProviderDescription)?) -> [StoreFilesCheckKind]? {
        let example = "{\"ownerOnly\": true, \"noTemporaryFiles\": true}"
        guard let members = object(member.value, path, allowed: StoreFilesCheckKind.keys, example: example) else { return nil }
        if let provider, provider.storeFields.isEmpty {
            report(at: member.keyLocation, path, "\(provider.id.rawValue) keeps no token on the device, so it has no store files", fix: "remove \"storeFiles\"")
            return nil
        }
        if members.isEmpty, member.value.members?.isEmpty == true {
            report(member.value, path, "an empty object checks nothing", fix: "check at least one of \(StoreFilesCheckKind.keys.joined(separator: ", ")), or remove the key")
        }
        var checks: [StoreFilesCheckKind] = []
        for kind in StoreFilesCheckKind.allCases {
            guard let field = members[kind.rawValue] else { continue }
            let fieldPath = path + JSONPath.key(kind.rawValue)
            guard let value = bool(field, fieldPath) else { continue }
            guard value else {
                report(field.value, fieldPath, "\"\(kind.rawValue)\": false checks nothing", fix: "write \"\(kind.rawValue)\": true, or remove the key")
                continue
            }
            // No default: a new file check must say what it needs.
            switch kind {
            case .ownerOnly, .noTemporaryFiles: break
            case .replacedByRename:
                guard storeFilesSeen else {
                    report(field.value, fieldPath, "\"replacedByRename\" compares the store's files with an earlier \"storeFiles\" check, and no earlier step has one", fix: "check \"storeFiles\" (e.g. {\"ownerOnly\": true}) in a step after the store is first written, then replace it")
                    continue
                }
            }
            checks.append(kind)
        }
        storeFilesSeen = true
        return checks
    }

    mutating func decodeRequest(_ node: JSONNode, _ path: String, provider: (any ProviderDescription)?) -> RequestExpectation? {
        guard let members = object(node, path, allowed: RequestCheckKind.keys, example: "{\"method\": \"GET\", \"path\": \"/v1/products\"}", retired: Self.retiredStrict(fields: "query, form or JSON")) else { return nil }
        var request = RequestExpectation(location: node.location)
        for kind in RequestCheckKind.allCases {
            guard let member = members[kind.rawValue] else { continue }
            let memberPath = path + JSONPath.key(kind.rawValue)
            switch kind {
            case .method:
                guard let method = string(members, "method", in: node, path, required: false, example: "\"POST\"") else { continue }
                if SpecPattern.method.matches(method) { request.checks.append(.method(method)) } else {
                    report(member.value, memberPath, "method \(quoted(method)) is not an HTTP method", fix: "write it in capitals, e.g. \(quoted(method.uppercased()))")
                }
            case .path:
                if let matcher = decodeMatcher(member.value, memberPath) { request.checks.append(.path(matcher)) }
            case .origin:
                if let origin = decodeOrigin(members, in: node, path, provider: provider) { request.checks.append(.origin(origin)) }
            case .query: request.checks.append(.query(decodeFields(member.value, memberPath)))
            case .headers: request.checks.append(.headers(decodeFields(member.value, memberPath)))
            case .form: request.checks.append(.form(decodeFields(member.value, memberPath)))
            case .json: request.checks.append(.json(decodeFields(member.value, memberPath)))
            case .body:
                if members["form"] != nil || members["json"] != nil {
                    report(at: member.keyLocation, memberPath, "\"body\" reads the body as a form or as JSON, whichever it is, and this request also demands one of them", fix: "keep \"body\" for an endpoint that takes either, or \"form\" / \"json\" for one that takes only that")
                }
                request.checks.append(.body(decodeFields(member.value, memberPath)))
            case .forbid:
                let listed = ["query", "form", "json", "body"].flatMap { key in members[key]?.value.members?.map(\.key) ?? [] }
                if let names = decodeForbid(member, memberPath, listed: listed, where: "query, form or JSON") { request.checks.append(.forbid(names)) }
            case .status:
                if let status = integer(member, memberPath, range: 100...599, example: "200") { request.checks.append(.status(status)) }
            case .responseJson: request.checks.append(.responseJson(decodeFields(member.value, memberPath)))
            case .optional:
                guard let value = bool(member, memberPath) else { continue }
                guard value else {
                    // The default, written out: it would read as a check and check nothing.
                    report(member.value, memberPath, "\"optional\": false checks nothing", fix: "remove the key: a request is required unless it says \"optional\": true")
                    continue
                }
                if members["method"] == nil && members["path"] == nil {
                    report(at: member.keyLocation, memberPath, "an optional request is recognised by its method and path, and this one names neither", fix: "add the \"method\" and \"path\" of the request that may be missing")
                    continue
                }
                request.checks.append(.optional)
            }
        }
        return request
    }

    /// `strict` refused every field it did not list; a server ignores fields it does not know.
    static func retiredStrict(fields: String) -> [String: RetiredKey] {
        ["strict": RetiredKey(
            why: "it refused every \(fields) field not listed, and servers ignore fields they do not know (RFC 6749 §3.1, §3.2), so it failed SDKs that send standard ones",
            fix: "name the fields a requirement makes wrong, e.g. \"forbid\": [\"client_secret\"], and cite the requirement in the step's \"requirements\""
        )]
    }

    /// `"forbid": ["client_secret"]`: at least one name, none twice, none also checked by the
    /// same expectation (a field cannot be both demanded and forbidden).
    mutating func decodeForbid(_ member: JSONNode.Member, _ path: String, listed: [String], where place: String) -> [String]? {
        guard let items = array(member, path, example: "[\"client_secret\"]") else { return nil }
        if items.isEmpty {
            report(member.value, path, "an empty list forbids nothing", fix: "name the \(place) fields a requirement makes wrong, e.g. [\"client_secret\"], or remove the key")
        }
        var names: [String] = []
        for (i, item) in items.enumerated() {
            let itemPath = path + "[\(i)]"
            guard case .string(let name) = item.value else {
                typeMismatch(item, itemPath, expected: "a field name", example: "\"client_secret\"")
                continue
            }
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                report(item, itemPath, "an empty name forbids nothing", fix: "write the field's name, e.g. \"client_secret\"")
                continue
            }
            if names.contains(name) {
                report(item, itemPath, "\(quoted(name)) is forbidden twice", fix: "keep one")
                continue
            }
            if listed.contains(name) {
                report(item, itemPath, "\(quoted(name)) is both checked and forbidden", fix: "remove it from \"forbid\", or drop its matcher")
                continue
            }
            names.append(name)
        }
        return names
    }

    /// One of the provider's origins; refused when the provider has only one (it would check
    /// nothing) or the name is not one of them.
    mutating func decodeOrigin(_ members: [String: JSONNode.Member], in node: JSONNode, _ requestPath: String, provider: (any ProviderDescription)?) -> String? {
        guard let member = members["origin"],
              let name = string(members, "origin", in: node, requestPath, required: false, example: "\"web\"") else { return nil }
        let path = requestPath + JSONPath.key("origin")
        // Without a known provider there is nothing to check the name against; the provider
        // itself is reported elsewhere.
        guard let provider else { return name }
        let origins = provider.origins
        guard origins.count > 1 else {
            report(member.value, path, "the \(provider.id.rawValue) fake serves everything on one origin, so \"origin\" checks nothing", fix: "remove the key")
            return nil
        }
        guard origins.contains(name) else {
            report(member.value, path, "\(quoted(name)) is not an origin of the \(provider.id.rawValue) fake", fix: Suggestion.fix(for: name, in: origins, listName: "origins of \(provider.id.rawValue)"))
            return nil
        }
        return name
    }

    mutating func decodeBrowserExpectation(_ node: JSONNode, _ path: String) -> [BrowserCheck]? {
        guard let members = object(node, path, allowed: BrowserCheckKind.keys, example: "{\"opened\": [{\"path\": \"/oauth/v2/authorize\"}]}") else { return nil }
        if members.isEmpty, node.members?.isEmpty == true {
            report(node, path, "an empty object checks nothing", fix: "check at least one of \(BrowserCheckKind.keys.joined(separator: ", ")), or remove the key")
        }
        var checks: [BrowserCheck] = []
        for kind in BrowserCheckKind.allCases {
            guard let member = members[kind.rawValue] else { continue }
            let memberPath = path + JSONPath.key(kind.rawValue)
            switch kind {
            case .opened:
                guard let items = array(member, memberPath, example: "[{\"path\": \"/oauth/v2/authorize\"}]") else { continue }
                checks.append(.opened(items.enumerated().compactMap { i, item in decodeURL(item, memberPath + "[\(i)]") }))
            case .pageStatus:
                if let status = integer(member, memberPath, range: 100...599, example: "200") { checks.append(.pageStatus(status)) }
            case .pageContains:
                guard let text = string(members, "pageContains", in: node, path, required: false, example: "\"Invalid email or password\"") else { continue }
                let template = Template(text)
                checkVariables(template, member.value, memberPath)
                checks.append(.pageContains(template))
            case .redirect:
                if let url = decodeURL(member.value, memberPath) { checks.append(.redirect(url)) }
            case .noRedirect:
                guard let value = bool(member, memberPath) else { continue }
                guard value else {
                    // Unlike `dismissed` or `storeEmpty`, false here has no check to stand for.
                    report(member.value, memberPath, "\"noRedirect\": false checks nothing", fix: "write \"redirect\": {} to demand a redirect, or remove the key")
                    continue
                }
                if members["redirect"] != nil {
                    report(node, path, "\"redirect\" and \"noRedirect\" contradict each other", fix: "keep one of them")
                }
                checks.append(.noRedirect)
            case .dismissed:
                if let dismissed = bool(member, memberPath) { checks.append(.dismissed(dismissed)) }
            }
        }
        return checks
    }

    mutating func decodeURL(_ node: JSONNode, _ path: String) -> URLExpectation? {
        guard let members = object(node, path, allowed: URLCheckKind.keys, example: "{\"path\": \"/oauth/v2/authorize\", \"query\": {\"client_id\": \"app-1\"}}", retired: Self.retiredStrict(fields: "query")) else { return nil }
        var url = URLExpectation(location: node.location)
        for kind in URLCheckKind.allCases {
            guard let member = members[kind.rawValue] else { continue }
            let memberPath = path + JSONPath.key(kind.rawValue)
            switch kind {
            case .url: if let matcher = decodeMatcher(member.value, memberPath) { url.checks.append(.url(matcher)) }
            case .scheme: if let matcher = decodeMatcher(member.value, memberPath) { url.checks.append(.scheme(matcher)) }
            case .host: if let matcher = decodeMatcher(member.value, memberPath) { url.checks.append(.host(matcher)) }
            case .path: if let matcher = decodeMatcher(member.value, memberPath) { url.checks.append(.path(matcher)) }
            case .query: url.checks.append(.query(decodeFields(member.value, memberPath)))
            case .forbid:
                let listed = members["query"]?.value.members?.map(\.key) ?? []
                if let names = decodeForbid(member, memberPath, listed: listed, where: "query") { url.checks.append(.forbid(names)) }
            }
        }
        return url
    }

    mutating func decodeFields(_ node: JSONNode, _ path: String) -> [FieldMatcher] {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object of field matchers", example: "{\"grant_type\": \"client_credentials\"}")
            return []
        }
        if members.isEmpty {
            // `{}` would load, pass and be narrated as a check: a spec that checks nothing.
            report(node, path, "an empty object checks nothing", fix: "name at least one field, e.g. {\"grant_type\": \"client_credentials\"}, or remove the key")
        }
        reportDuplicates(members, path)
        return members.compactMap { member in
            decodeMatcher(member.value, path + JSONPath.key(member.key)).map { FieldMatcher(field: member.key, matcher: $0) }
        }
    }

}
