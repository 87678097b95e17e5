import Foundation

/// Turns a parsed JSON document into a ``FlowSpec``, collecting every problem it meets rather
/// than stopping at the first, so an author fixes a file in one pass.
struct SpecDecoder {
    private final class Diagnostics {
        var items: [SpecDiagnostic] = []
    }

    private let file: String
    private let diagnostics = Diagnostics()
    /// Variables captured by earlier steps; a reference to any other is an error.
    private var defined: Set<String> = []
    private var capturedThisStep: Set<String> = []

    init(file: String) {
        self.file = file
    }

    static let topKeys = ["$schema", "id", "title", "summary", "source", "provider", "fixture", "decisions", "steps"]
    static let sourceKeys = ["seed", "passage"]
    static let stepKeys = ["note", "app", "with", "advanceClock", "fault", "clearFaults", "server", "expect"]
    static let actionKeys = ["app", "advanceClock", "fault", "clearFaults", "server"]
    static let faultKeys = ["kind", "path", "times"]
    static let expectKeys = ["outcome", "error", "result", "requests", "store", "storeEmpty"]
    static let errorKeys = ["kind", "message"]
    static let requestKeys = ["method", "path", "query", "headers", "form", "json", "strict", "status"]
    static let matcherKeys = ["equals", "notEquals", "present", "absent", "regex", "contains", "capture"]
    static let moltinFixtureKeys = ["clients", "products", "tokenLifetime"]
    static let clientKeys = ["id", "secret"]
    static let productKeys = ["id", "title", "price"]

    /// Decodes a document; returns the spec or every diagnostic found.
    mutating func decode(_ root: JSONNode) -> SpecFile {
        let spec = decodeSpec(root)
        if let spec, diagnostics.items.isEmpty { return .valid(spec) }
        return .invalid(diagnostics.items)
    }

    // MARK: - Reporting

    private func report(_ node: JSONNode, _ path: String, _ title: String, fix: String) {
        diagnostics.items.append(SpecDiagnostic(file: file, location: node.location, path: path, title: title, fix: fix))
    }

    private func report(at location: SourceLocation, _ path: String, _ title: String, fix: String) {
        diagnostics.items.append(SpecDiagnostic(file: file, location: location, path: path, title: title, fix: fix))
    }

    private func typeMismatch(_ node: JSONNode, _ path: String, expected: String, example: String) {
        report(node, path, "expected \(expected), found \(node.typeName)", fix: "write it as \(example)")
    }

    /// The members of an object, after reporting any key not in `allowed`. Nil if not an object.
    private func object(_ node: JSONNode, _ path: String, allowed: [String], example: String = "{ ... }") -> [String: JSONNode.Member]? {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object", example: example)
            return nil
        }
        var byKey: [String: JSONNode.Member] = [:]
        for member in members {
            let memberPath = path + JSONPath.key(member.key)
            if !allowed.contains(member.key) {
                report(at: member.keyLocation, memberPath, "unknown key \"\(member.key)\"", fix: Suggestion.fix(for: member.key, in: allowed, listName: "allowed keys here"))
                continue
            }
            if byKey[member.key] != nil {
                report(at: member.keyLocation, memberPath, "duplicate key \"\(member.key)\"", fix: "keep one \"\(member.key)\" and remove the other")
                continue
            }
            byKey[member.key] = member
        }
        return byKey
    }

    private func missing(_ key: String, in node: JSONNode, _ path: String, example: String) {
        report(node, path, "missing required key \"\(key)\"", fix: "add \"\(key)\": \(example)")
    }

    private func string(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, required: Bool, example: String = "\"...\"") -> String? {
        guard let member = members[key] else {
            if required { missing(key, in: node, path, example: example) }
            return nil
        }
        let memberPath = path + JSONPath.key(key)
        guard case .string(let s) = member.value.value else {
            typeMismatch(member.value, memberPath, expected: "a string", example: example)
            return nil
        }
        if s.trimmingCharacters(in: .whitespaces).isEmpty {
            report(member.value, memberPath, "empty string", fix: "give \"\(key)\" a value, e.g. \(example)")
            return nil
        }
        return s
    }

    private func integer(_ member: JSONNode.Member?, _ path: String, range: ClosedRange<Int>, example: String) -> Int? {
        guard let member else { return nil }
        guard case .number(let text) = member.value.value, let value = Int(text) else {
            if case .number = member.value.value {
                report(member.value, path, "expected a whole number", fix: "write it as \(example)")
            } else {
                typeMismatch(member.value, path, expected: "a whole number", example: example)
            }
            return nil
        }
        guard range.contains(value) else {
            report(member.value, path, "\(value) is out of range", fix: "use a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    private func bool(_ member: JSONNode.Member?, _ path: String) -> Bool? {
        guard let member else { return nil }
        guard case .bool(let value) = member.value.value else {
            typeMismatch(member.value, path, expected: "true or false", example: "true")
            return nil
        }
        return value
    }

    private func array(_ member: JSONNode.Member, _ path: String, example: String) -> [JSONNode]? {
        guard case .array(let items) = member.value.value else {
            typeMismatch(member.value, path, expected: "an array", example: example)
            return nil
        }
        return items
    }

    private func checkVariables(_ template: Template, _ node: JSONNode, _ path: String) {
        for name in template.variables where !defined.contains(name) {
            let candidates = defined.sorted()
            let hint = Suggestion.closest(to: name, in: candidates).map { "did you mean \"${\($0)}\"? " } ?? ""
            report(node, path, "variable \"${\(name)}\" is not captured by an earlier step", fix: "\(hint)capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"\(name)\"}")
        }
    }

    // MARK: - Spec

    private mutating func decodeSpec(_ root: JSONNode) -> FlowSpec? {
        let path = "$"
        guard let members = object(root, path, allowed: Self.topKeys, example: "{\"id\": \"MLT-AUTH\", \"title\": \"...\", ...}") else { return nil }
        let id = string(members, "id", in: root, path, required: true, example: "\"MLT-AUTH\"")
        if let id, let member = members["id"], id.range(of: "^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$", options: .regularExpression) == nil {
            report(member.value, "$.id", "id \"\(id)\" is not a catalogue id", fix: "use the id from flows.md: capitals, digits and dashes, e.g. \"MLT-AUTH\"")
        }
        let title = string(members, "title", in: root, path, required: true, example: "\"Auth stores a token\"")
        let summary = string(members, "summary", in: root, path, required: false)
        if let schema = members["$schema"], case .string = schema.value.value {} else if let schema = members["$schema"] {
            typeMismatch(schema.value, "$[\"$schema\"]", expected: "a string", example: "\"../flowcheck.schema.json\"")
        }
        let source = members["source"].flatMap { decodeSource($0.value, "$.source") }
        if members["source"] == nil { missing("source", in: root, path, example: "{\"seed\": \"003_d427daaf6ba0e8e7.txt\", \"passage\": \"...\"}") }

        var provider: Provider?
        if let name = string(members, "provider", in: root, path, required: true, example: "\"moltin\"") {
            provider = Provider(rawValue: name)
            if provider == nil, let member = members["provider"] {
                report(member.value, "$.provider", "unknown provider \"\(name)\"", fix: Suggestion.fix(for: name, in: Provider.allCases.map(\.rawValue), listName: "providers"))
            }
        }
        var fixture: Fixture?
        if let provider {
            if let member = members["fixture"] {
                fixture = decodeFixture(member.value, "$.fixture", provider: provider)
            } else {
                missing("fixture", in: root, path, example: "{\"clients\": [{\"id\": \"store-1\", \"secret\": \"...\"}]}")
            }
        }
        var decisions: [String] = []
        if let member = members["decisions"], let items = array(member, "$.decisions", example: "[\"...\"]") {
            for (i, item) in items.enumerated() {
                if case .string(let s) = item.value { decisions.append(s) } else { typeMismatch(item, "$.decisions[\(i)]", expected: "a string", example: "\"The fake issues no refresh token\"") }
            }
        }
        var steps: [Step] = []
        if let member = members["steps"] {
            if let items = array(member, "$.steps", example: "[{\"app\": \"auth\", ...}]") {
                if items.isEmpty {
                    report(member.value, "$.steps", "a flow needs at least one step", fix: "add a step, e.g. {\"app\": \"products\", \"expect\": {\"outcome\": \"ok\"}}")
                }
                for (i, item) in items.enumerated() {
                    capturedThisStep = []
                    if let step = decodeStep(item, "$.steps[\(i)]", number: i + 1, provider: provider) { steps.append(step) }
                    defined.formUnion(capturedThisStep)
                }
            }
        } else {
            missing("steps", in: root, path, example: "[ ... ]")
        }
        guard let id, let title, let source, let provider, let fixture else { return nil }
        return FlowSpec(file: file, id: id, title: title, summary: summary, source: source, provider: provider, fixture: fixture, decisions: decisions, steps: steps, location: root.location)
    }

    private func decodeSource(_ node: JSONNode, _ path: String) -> SourceReference? {
        guard let members = object(node, path, allowed: Self.sourceKeys, example: "{\"seed\": \"003_d427daaf6ba0e8e7.txt\", \"passage\": \"...\"}") else { return nil }
        let seed = string(members, "seed", in: node, path, required: true, example: "\"003_d427daaf6ba0e8e7.txt\"")
        if let seed, let member = members["seed"], seed.range(of: "^[0-9]{3}_[0-9a-f]{16}\\.txt$", options: .regularExpression) == nil {
            report(member.value, path + ".seed", "seed \"\(seed)\" is not a seed file name", fix: "name one of the seed files, e.g. \"003_d427daaf6ba0e8e7.txt\"")
        }
        let passage = string(members, "passage", in: node, path, required: true, example: "\"Obtaining a new token\"")
        guard let seed, let passage else { return nil }
        return SourceReference(seed: seed, passage: passage)
    }

    private func decodeFixture(_ node: JSONNode, _ path: String, provider: Provider) -> Fixture? {
        switch provider {
        case .moltin:
            guard let members = object(node, path, allowed: Self.moltinFixtureKeys) else { return nil }
            var clients: [MoltinFixtureSpec.Client] = []
            if let member = members["clients"] {
                for (i, item) in (array(member, path + ".clients", example: "[{\"id\": \"store-1\", \"secret\": \"...\"}]") ?? []).enumerated() {
                    let itemPath = path + ".clients[\(i)]"
                    guard let fields = object(item, itemPath, allowed: Self.clientKeys) else { continue }
                    if let id = string(fields, "id", in: item, itemPath, required: true, example: "\"store-1\""),
                       let secret = string(fields, "secret", in: item, itemPath, required: true, example: "\"s3cr3t\"") {
                        clients.append(.init(id: id, secret: secret))
                    }
                }
            } else {
                missing("clients", in: node, path, example: "[{\"id\": \"store-1\", \"secret\": \"...\"}]")
            }
            var products: [MoltinFixtureSpec.Product]?
            if let member = members["products"], let items = array(member, path + ".products", example: "[{\"id\": \"p1\", \"title\": \"Tee\", \"price\": 2000}]") {
                products = []
                for (i, item) in items.enumerated() {
                    let itemPath = path + ".products[\(i)]"
                    guard let fields = object(item, itemPath, allowed: Self.productKeys) else { continue }
                    let id = string(fields, "id", in: item, itemPath, required: true, example: "\"p1\"")
                    let title = string(fields, "title", in: item, itemPath, required: true, example: "\"Tee\"")
                    if fields["price"] == nil { missing("price", in: item, itemPath, example: "2000") }
                    let price = integer(fields["price"], itemPath + ".price", range: 0...100_000_000, example: "2000")
                    if let id, let title, let price { products?.append(.init(id: id, title: title, price: price)) }
                }
            }
            let lifetime = integer(members["tokenLifetime"], path + ".tokenLifetime", range: 1...31_536_000, example: "3600")
            return .moltin(MoltinFixtureSpec(clients: clients, products: products, tokenLifetime: lifetime))
        }
    }

    // MARK: - Steps

    private mutating func decodeStep(_ node: JSONNode, _ path: String, number: Int, provider: Provider?) -> Step? {
        guard let members = object(node, path, allowed: Self.stepKeys, example: "{\"app\": \"products\", \"expect\": {\"outcome\": \"ok\"}}") else { return nil }
        let actionKeys = Self.actionKeys.filter { members[$0] != nil }
        if actionKeys.count > 1, let second = members[actionKeys[1]] {
            report(at: second.keyLocation, path + JSONPath.key(actionKeys[1]), "a step takes one action, found \(actionKeys.map { "\"\($0)\"" }.joined(separator: " and "))", fix: "split this into two steps")
        }
        if actionKeys.isEmpty, members["expect"] == nil {
            report(node, path, "a step needs an action or an \"expect\"", fix: "add one of \(Self.actionKeys.joined(separator: ", ")), or \"expect\"")
        }
        if let with = members["with"], members["app"] == nil {
            report(at: with.keyLocation, path + ".with", "\"with\" belongs to an \"app\" step", fix: "add \"app\": \"<action>\" or remove \"with\"")
        }
        var action: Action?
        if let key = actionKeys.first, let member = members[key] {
            let actionPath = path + JSONPath.key(key)
            switch key {
            case "app": action = decodeApp(member, members["with"], actionPath, stepPath: path, provider: provider)
            case "advanceClock":
                if case .string(let text) = member.value.value, let seconds = Self.parseDuration(text) {
                    action = .advanceClock(seconds: seconds, written: text)
                } else {
                    report(member.value, actionPath, "expected a duration such as \"61m\", found \(member.value.scalarText.map { "\"\($0)\"" } ?? member.value.typeName)", fix: "write hours, minutes and seconds as \"1h\", \"61m\", \"90s\" or \"1h30m\"")
                }
            case "fault": action = decodeFault(member.value, actionPath)
            case "clearFaults":
                if bool(member, actionPath) == true { action = .clearFaults } else if case .bool(false) = member.value.value {
                    report(member.value, actionPath, "\"clearFaults\": false does nothing", fix: "write \"clearFaults\": true, or remove the key")
                }
            case "server":
                if case .string(let op) = member.value.value {
                    let operations = provider.map { Vocabulary.serverOperations(for: $0) } ?? []
                    if operations.contains(op) { action = .server(operation: op) } else if provider != nil {
                        report(member.value, actionPath, "unknown server operation \"\(op)\"", fix: Suggestion.fix(for: op, in: operations, listName: "operations for \(provider!.rawValue)"))
                    }
                } else {
                    typeMismatch(member.value, actionPath, expected: "a string", example: "\"revokeTokens\"")
                }
            default: break
            }
        }
        var note: String?
        if let member = members["note"] {
            if case .string(let s) = member.value.value { note = s } else { typeMismatch(member.value, path + ".note", expected: "a string", example: "\"why this step matters\"") }
        }
        let expect = members["expect"].flatMap { decodeExpect($0.value, path + ".expect") }
        if members["app"] == nil, let expectMember = members["expect"], let fields = expectMember.value.members {
            for field in fields where ["outcome", "error", "result"].contains(field.key) {
                report(at: field.keyLocation, path + ".expect" + JSONPath.key(field.key), "\"\(field.key)\" checks an app call, and this step makes none", fix: "move it to the step with the \"app\" call it is about")
            }
        }
        return Step(number: number, location: node.location, note: note, action: action, expect: expect)
    }

    private func decodeApp(_ member: JSONNode.Member, _ with: JSONNode.Member?, _ path: String, stepPath: String, provider: Provider?) -> Action? {
        guard case .string(let name) = member.value.value else {
            typeMismatch(member.value, path, expected: "a string", example: "\"auth\"")
            return nil
        }
        guard let provider else { return nil }
        let actions = Vocabulary.actions(for: provider)
        guard let signature = actions.first(where: { $0.name == name }) else {
            report(member.value, path, "unknown app action \"\(name)\" for provider \"\(provider.rawValue)\"", fix: Suggestion.fix(for: name, in: actions.map(\.name), listName: "actions for \(provider.rawValue)"))
            return nil
        }
        var arguments: [Argument] = []
        let allowed = signature.required + signature.optional
        if let with {
            let withPath = stepPath + ".with"
            guard let members = with.value.members else {
                typeMismatch(with.value, withPath, expected: "an object", example: "{\"clientId\": \"store-1\"}")
                return nil
            }
            for argument in members {
                let argumentPath = withPath + JSONPath.key(argument.key)
                guard allowed.contains(argument.key) else {
                    let list = allowed.isEmpty ? "\"\(name)\" takes no arguments" : Suggestion.fix(for: argument.key, in: allowed, listName: "arguments of \(name)")
                    report(at: argument.keyLocation, argumentPath, "unknown argument \"\(argument.key)\" for \"\(name)\"", fix: list)
                    continue
                }
                guard let text = argument.value.scalarText, argument.value.members == nil else {
                    typeMismatch(argument.value, argumentPath, expected: "a string", example: "\"store-1\"")
                    continue
                }
                let template = Template(text)
                checkVariables(template, argument.value, argumentPath)
                arguments.append(Argument(name: argument.key, value: template))
            }
        }
        for required in signature.required where !arguments.contains(where: { $0.name == required }) && !(with?.value.members?.contains { $0.key == required } ?? false) {
            report(with?.value ?? member.value, with == nil ? stepPath : stepPath + ".with", "\"\(name)\" needs the argument \"\(required)\"", fix: "add \"with\": {\"\(required)\": \"...\"}")
        }
        return .app(name: name, arguments: arguments)
    }

    private func decodeFault(_ node: JSONNode, _ path: String) -> Action? {
        guard let members = object(node, path, allowed: Self.faultKeys, example: "{\"kind\": \"serverError\", \"path\": \"/v1/products\", \"times\": 1}") else { return nil }
        guard let kind = string(members, "kind", in: node, path, required: true, example: "\"serverError\"") else { return nil }
        guard Vocabulary.faultKinds.contains(kind) else {
            report(members["kind"]!.value, path + ".kind", "unknown fault \"\(kind)\"", fix: Suggestion.fix(for: kind, in: Vocabulary.faultKinds, listName: "faults"))
            return nil
        }
        let faultPath = string(members, "path", in: node, path, required: false, example: "\"/v1/products\"")
        if let faultPath, !faultPath.hasPrefix("/") {
            report(members["path"]!.value, path + ".path", "a fault path starts with \"/\"", fix: "write it as \"/\(faultPath)\"")
        }
        let times = integer(members["times"], path + ".times", range: 1...1000, example: "1")
        return .fault(FaultSpec(kind: kind, path: faultPath, times: times))
    }

    // MARK: - Expectations

    private mutating func decodeExpect(_ node: JSONNode, _ path: String) -> Expectation? {
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
        if let member = members["result"] { expectation.result = decodeFields(member.value, path + ".result") }
        if let member = members["store"] { expectation.store = decodeFields(member.value, path + ".store") }
        if let member = members["storeEmpty"] { expectation.storeEmpty = bool(member, path + ".storeEmpty") }
        if let member = members["requests"], let items = array(member, path + ".requests", example: "[{\"method\": \"POST\", \"path\": \"/oauth/access_token\"}]") {
            expectation.requests = items.enumerated().compactMap { i, item in decodeRequest(item, path + ".requests[\(i)]") }
        }
        return expectation
    }

    private mutating func decodeRequest(_ node: JSONNode, _ path: String) -> RequestExpectation? {
        guard let members = object(node, path, allowed: Self.requestKeys, example: "{\"method\": \"GET\", \"path\": \"/v1/products\"}") else { return nil }
        var request = RequestExpectation(location: node.location)
        if let method = string(members, "method", in: node, path, required: false, example: "\"POST\"") {
            if method.range(of: "^[A-Z]+$", options: .regularExpression) != nil { request.method = method } else {
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
        return request
    }

    private mutating func decodeFields(_ node: JSONNode, _ path: String) -> [FieldMatcher] {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object of field matchers", example: "{\"grant_type\": \"client_credentials\"}")
            return []
        }
        return members.compactMap { member in
            decodeMatcher(member.value, path + JSONPath.key(member.key)).map { FieldMatcher(field: member.key, matcher: $0) }
        }
    }

    private mutating func decodeMatcher(_ node: JSONNode, _ path: String) -> Matcher? {
        if let text = node.scalarText {
            let template = Template(text)
            checkVariables(template, node, path)
            return Matcher(.equals(template))
        }
        guard let members = object(node, path, allowed: Self.matcherKeys, example: "\"exact value\" or {\"present\": true}") else { return nil }
        let kinds = members.keys.filter { $0 != "capture" }.sorted()
        guard kinds.count == 1, let key = kinds.first, let member = members[key] else {
            report(node, path, kinds.isEmpty ? "a matcher needs a check" : "a matcher takes one check, found \(kinds.joined(separator: " and "))", fix: "use one of equals, notEquals, present, absent, regex, contains")
            return nil
        }
        let memberPath = path + JSONPath.key(key)
        var matcher: Matcher?
        switch key {
        case "present", "absent":
            guard case .bool(true) = member.value.value else {
                report(member.value, memberPath, "\"\(key)\" takes true", fix: key == "present" ? "write {\"present\": true}, or {\"absent\": true} for the opposite" : "write {\"absent\": true}, or {\"present\": true} for the opposite")
                return nil
            }
            matcher = Matcher(key == "present" ? .present : .absent)
        case "regex":
            guard case .string(let pattern) = member.value.value else {
                typeMismatch(member.value, memberPath, expected: "a string", example: "\"^Bearer .+$\"")
                return nil
            }
            do {
                _ = try NSRegularExpression(pattern: pattern)
                matcher = Matcher(.regex(pattern))
            } catch {
                report(member.value, memberPath, "invalid regular expression /\(pattern)/", fix: "check the brackets and escapes (backslashes are doubled in JSON)")
                return nil
            }
        default:
            guard let text = member.value.scalarText else {
                typeMismatch(member.value, memberPath, expected: "a string", example: "\"...\"")
                return nil
            }
            let template = Template(text)
            checkVariables(template, member.value, memberPath)
            matcher = Matcher(key == "equals" ? .equals(template) : key == "notEquals" ? .notEquals(template) : .contains(template))
        }
        if let capture = members["capture"] {
            guard case .string(let name) = capture.value.value, name.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
                report(capture.value, path + ".capture", "a capture names a variable", fix: "use letters, digits and underscores, e.g. \"firstToken\"")
                return matcher
            }
            if key == "absent" {
                report(capture.value, path + ".capture", "an absent value cannot be captured", fix: "capture with {\"present\": true, \"capture\": \"\(name)\"}")
            }
            if defined.contains(name) || capturedThisStep.contains(name) {
                report(capture.value, path + ".capture", "variable \"\(name)\" is captured twice", fix: "give the second capture another name")
            }
            capturedThisStep.insert(name)
            matcher?.capture = name
        }
        return matcher
    }

    /// Parses "1h", "61m", "90s", "1h30m" into seconds.
    static func parseDuration(_ text: String) -> Int? {
        guard !text.isEmpty, text.range(of: "^([0-9]+h)?([0-9]+m)?([0-9]+s)?$", options: .regularExpression) != nil else { return nil }
        var total = 0
        var number = 0
        for character in text {
            if let digit = character.wholeNumberValue {
                number = number * 10 + digit
                if number > 10_000_000 { return nil }
            } else {
                total += number * (character == "h" ? 3600 : character == "m" ? 60 : 1)
                number = 0
            }
        }
        return total
    }
}
