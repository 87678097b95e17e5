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
    private var defined: Set<String> = Set(Vocabulary.builtinVariables)
    private var capturedThisStep: Set<String> = []

    init(file: String) {
        self.file = file
    }

    static let topKeys = ["$schema", "id", "title", "summary", "source", "provider", "fixture", "decisions", "steps"]
    static let sourceKeys = ["seed", "passage"]
    static let stepKeys = ["note", "app", "browser", "with", "advanceClock", "fault", "clearFaults", "server", "send", "expect"]
    static let actionKeys = ["app", "browser", "advanceClock", "fault", "clearFaults", "server", "send"]
    static let faultKeys = ["kind", "path", "times", "clockAdvance"]
    static let expectKeys = ["outcome", "error", "result", "requests", "store", "storeEmpty", "browser", "neverSent"]
    static let errorKeys = ["kind", "message"]
    static let requestKeys = ["method", "path", "query", "headers", "form", "json", "strict", "status", "responseJson"]
    static let matcherKeys = ["equals", "notEquals", "present", "absent", "regex", "contains", "pkceS256", "capture"]
    static let moltinFixtureKeys = ["clients", "products", "tokenLifetime"]
    static let clientKeys = ["id", "secret"]
    static let productKeys = ["id", "title", "price"]
    static let cloverFixtureKeys = ["apps", "merchants", "employees", "accessTokenLifetime", "refreshTokenLifetime", "codeLifetime"]
    static let cloverAppKeys = ["id", "secret", "siteURL"]
    static let cloverMerchantKeys = ["id", "name", "installedApps"]
    static let cloverEmployeeKeys = ["email", "password", "merchant"]
    static let sendKeys = ["method", "path", "headers", "json", "form"]
    static let cleverFixtureKeys = ["clients", "users"]
    static let cleverClientKeys = ["id", "redirectURL"]
    static let cleverUserKeys = ["email", "password"]
    static let braintreeFixtureKeys = ["clientId", "clientSecret", "merchants", "returnURL"]
    static let braintreeMerchantKeys = ["id", "email", "password"]
    static let browserExpectKeys = ["opened", "redirect", "noRedirect", "pageStatus", "pageContains", "dismissed"]
    static let urlKeys = ["url", "scheme", "host", "path", "query", "strict"]

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
            if case .number(let text) = member.value.value, text.allSatisfy({ $0.isNumber || $0 == "-" }) {
                report(member.value, path, "\(text) is out of range", fix: "use a number from \(range.lowerBound) to \(range.upperBound)")
            } else if case .number = member.value.value {
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
        if let id, let member = members["id"], id.range(of: "\\A[A-Z][A-Z0-9]*(-[A-Z0-9]+)+\\z", options: .regularExpression) == nil {
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

    /// A fixture file for `flowcheck serve`: an object whose keys are provider names and whose
    /// values are fixtures as specs write them.
    mutating func decodeFixtureSet(_ root: JSONNode) -> Result<[(Provider, Fixture)], FixtureSetError> {
        var fixtures: [(Provider, Fixture)] = []
        let names = Provider.allCases.map(\.rawValue)
        if let members = object(root, "$", allowed: names, example: "{\"moltin\": {\"clients\": [...]}}") {
            for provider in Provider.allCases {
                guard let member = members[provider.rawValue] else { continue }
                if let fixture = decodeFixture(member.value, "$." + provider.rawValue, provider: provider) { fixtures.append((provider, fixture)) }
            }
            if members.isEmpty { report(root, "$", "the fixture file names no provider", fix: "add at least one of \(names.joined(separator: ", "))") }
        }
        return diagnostics.items.isEmpty ? .success(fixtures) : .failure(FixtureSetError(diagnostics: diagnostics.items))
    }

    private func decodeSource(_ node: JSONNode, _ path: String) -> SourceReference? {
        guard let members = object(node, path, allowed: Self.sourceKeys, example: "{\"seed\": \"003_d427daaf6ba0e8e7.txt\", \"passage\": \"...\"}") else { return nil }
        let seed = string(members, "seed", in: node, path, required: true, example: "\"003_d427daaf6ba0e8e7.txt\"")
        if let seed, let member = members["seed"], seed.range(of: "\\A[0-9]{3}_[0-9a-f]{16}\\.txt\\z", options: .regularExpression) == nil {
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
                        checkSecretLength(secret, fields["secret"]!.value, itemPath + ".secret")
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
        case .clover:
            guard let members = object(node, path, allowed: Self.cloverFixtureKeys) else { return nil }
            var apps: [CloverFixtureSpec.App] = []
            for (item, itemPath) in elements(members, "apps", in: node, path, example: "[{\"id\": \"app-1\", \"secret\": \"...\", \"siteURL\": \"https://pos.example.com/\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverAppKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"app-1\"")
                let secret = string(fields, "secret", in: item, itemPath, required: true, example: "\"app-secret\"")
                let site = string(fields, "siteURL", in: item, itemPath, required: true, example: "\"https://pos.example.com/\"")
                if let site, URL(string: site)?.host == nil {
                    report(fields["siteURL"]!.value, itemPath + ".siteURL", "siteURL \"\(site)\" is not an absolute URL", fix: "write it like \"https://pos.example.com/\"")
                }
                if let secret { checkSecretLength(secret, fields["secret"]!.value, itemPath + ".secret") }
                if let id, let secret, let site { apps.append(.init(id: id, secret: secret, siteURL: site)) }
            }
            var merchants: [CloverFixtureSpec.Merchant] = []
            for (item, itemPath) in elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"name\": \"Cafe\", \"installedApps\": [\"app-1\"]}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverMerchantKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
                let name = string(fields, "name", in: item, itemPath, required: true, example: "\"Cafe\"")
                var installed: [String] = []
                if let member = fields["installedApps"] {
                    for (i, app) in (array(member, itemPath + ".installedApps", example: "[\"app-1\"]") ?? []).enumerated() {
                        if case .string(let appID) = app.value { installed.append(appID) } else { typeMismatch(app, itemPath + ".installedApps[\(i)]", expected: "a string", example: "\"app-1\"") }
                    }
                } else {
                    missing("installedApps", in: item, itemPath, example: "[\"app-1\"]")
                }
                if let id, let name { merchants.append(.init(id: id, name: name, installedApps: installed)) }
            }
            var employees: [CloverFixtureSpec.Employee] = []
            for (item, itemPath) in elements(members, "employees", in: node, path, example: "[{\"email\": \"ann@example.com\", \"password\": \"...\", \"merchant\": \"M1\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cloverEmployeeKeys) else { continue }
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"ann@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                let merchant = string(fields, "merchant", in: item, itemPath, required: true, example: "\"M1\"")
                if let merchant, !merchants.contains(where: { $0.id == merchant }) {
                    report(fields["merchant"]!.value, itemPath + ".merchant", "no merchant \"\(merchant)\" in the fixture", fix: merchants.isEmpty ? "add a merchant with the id \"\(merchant)\" to \"merchants\"" : Suggestion.fix(for: merchant, in: merchants.map(\.id), listName: "merchants"))
                }
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let email, let password, let merchant { employees.append(.init(email: email, password: password, merchant: merchant)) }
            }
            let access = integer(members["accessTokenLifetime"], path + ".accessTokenLifetime", range: 1...31_536_000, example: "1800")
            let refresh = integer(members["refreshTokenLifetime"], path + ".refreshTokenLifetime", range: 1...315_360_000, example: "2592000")
            let code = integer(members["codeLifetime"], path + ".codeLifetime", range: 1...86_400, example: "300")
            return .clover(CloverFixtureSpec(apps: apps, merchants: merchants, employees: employees, accessTokenLifetime: access, refreshTokenLifetime: refresh, codeLifetime: code))
        case .clever:
            guard let members = object(node, path, allowed: Self.cleverFixtureKeys) else { return nil }
            var clients: [CleverFixtureSpec.Client] = []
            for (item, itemPath) in elements(members, "clients", in: node, path, example: "[{\"id\": \"CLE1\", \"redirectURL\": \"clever-cle1://oauth\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cleverClientKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"CLE1\"")
                let redirect = string(fields, "redirectURL", in: item, itemPath, required: true, example: "\"clever-cle1://oauth\"")
                if let id, let redirect { clients.append(.init(id: id, redirectURL: redirect)) }
            }
            var users: [CleverFixtureSpec.User] = []
            for (item, itemPath) in elements(members, "users", in: node, path, example: "[{\"email\": \"student@example.com\", \"password\": \"...\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.cleverUserKeys) else { continue }
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"student@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let email, let password { users.append(.init(email: email, password: password)) }
            }
            return .clever(CleverFixtureSpec(clients: clients, users: users))
        case .braintree:
            guard let members = object(node, path, allowed: Self.braintreeFixtureKeys) else { return nil }
            let clientID = string(members, "clientId", in: node, path, required: true, example: "\"bt-client-1\"")
            let clientSecret = string(members, "clientSecret", in: node, path, required: true, example: "\"...\"")
            if let clientSecret { checkSecretLength(clientSecret, members["clientSecret"]!.value, path + ".clientSecret") }
            let returnURL = string(members, "returnURL", in: node, path, required: true, example: "\"examplescheme://braintree\"")
            if let returnURL, URL(string: returnURL)?.scheme == nil {
                report(members["returnURL"]!.value, path + ".returnURL", "returnURL \"\(returnURL)\" has no scheme", fix: "write the app's custom URL, e.g. \"examplescheme://braintree\" or \"com.example.app:/braintree\"")
            }
            var merchants: [BraintreeFixtureSpec.Merchant] = []
            for (item, itemPath) in elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"email\": \"owner@example.com\", \"password\": \"...\"}]") {
                guard let fields = object(item, itemPath, allowed: Self.braintreeMerchantKeys) else { continue }
                let id = string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
                let email = string(fields, "email", in: item, itemPath, required: true, example: "\"owner@example.com\"")
                let password = string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
                if let password { checkSecretLength(password, fields["password"]!.value, itemPath + ".password") }
                if let id, let email, let password { merchants.append(.init(id: id, email: email, password: password)) }
            }
            guard let clientID, let clientSecret, let returnURL else { return nil }
            return .braintree(BraintreeFixtureSpec(clientID: clientID, clientSecret: clientSecret, merchants: merchants, returnURL: returnURL))
        }
    }

    /// The elements of a required array member, each with its path.
    private func elements(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, example: String) -> [(JSONNode, String)] {
        guard let member = members[key] else {
            missing(key, in: node, path, example: example)
            return []
        }
        return (array(member, path + "." + key, example: example) ?? []).enumerated().map { ($1, path + ".\(key)[\($0)]") }
    }

    /// Fixture secrets are masked in every report by their text; one too short to mask without
    /// wrecking the report (a secret "ab" would hide every "ab") is refused instead.
    static let minimumSecretLength = 8

    private func checkSecretLength(_ secret: String, _ node: JSONNode, _ path: String) {
        if secret.count < Self.minimumSecretLength {
            report(node, path, "a secret shorter than \(Self.minimumSecretLength) characters cannot be masked in reports", fix: "use at least \(Self.minimumSecretLength) characters, as a real secret would have")
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
        if let with = members["with"], members["app"] == nil, members["browser"] == nil {
            report(at: with.keyLocation, path + ".with", "\"with\" belongs to an \"app\" or \"browser\" step", fix: "add \"app\": \"<action>\" or remove \"with\"")
        }
        var action: Action?
        if let key = actionKeys.first, let member = members[key] {
            let actionPath = path + JSONPath.key(key)
            switch key {
            case "app":
                if let provider {
                    let signatures = Vocabulary.actions(for: provider)
                    if let (name, arguments) = decodeCall(member, members["with"], actionPath, stepPath: path, signatures: signatures, what: "app action", listName: "actions for \(provider.rawValue)", forProvider: provider) {
                        action = .app(name: name, arguments: arguments)
                    }
                }
            case "browser":
                if let (name, arguments) = decodeCall(member, members["with"], actionPath, stepPath: path, signatures: Vocabulary.browserOperations, what: "browser operation", listName: "browser operations", forProvider: nil) {
                    action = .browser(operation: name, arguments: arguments)
                }
            case "send": action = decodeSend(member.value, actionPath)
            case "advanceClock":
                if case .string(let text) = member.value.value, let seconds = Self.parseDuration(text) {
                    if seconds == 0 {
                        report(member.value, actionPath, "a zero duration does nothing", fix: "move the clock by at least \"1s\", or remove the step")
                    }
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
        var appAction: Vocabulary.ActionSignature?
        if let provider, case .app(let name, _)? = action { appAction = Vocabulary.actions(for: provider).first { $0.name == name } }
        let expect = members["expect"].flatMap { decodeExpect($0.value, path + ".expect", provider: provider, appAction: appAction) }
        if members["app"] == nil, let expectMember = members["expect"], let fields = expectMember.value.members {
            for field in fields where ["outcome", "error", "result"].contains(field.key) {
                report(at: field.keyLocation, path + ".expect" + JSONPath.key(field.key), "\"\(field.key)\" checks an app call, and this step makes none", fix: "move it to the step with the \"app\" call it is about")
            }
        }
        return Step(number: number, location: node.location, note: note, action: action, expect: expect)
    }

    /// An app action or browser operation with its `with` arguments, checked against `signatures`.
    private func decodeCall(_ member: JSONNode.Member, _ with: JSONNode.Member?, _ path: String, stepPath: String, signatures: [Vocabulary.ActionSignature], what: String, listName: String, forProvider provider: Provider?) -> (String, [Argument])? {
        guard case .string(let name) = member.value.value else {
            typeMismatch(member.value, path, expected: "a string", example: provider == nil ? "\"login\"" : "\"auth\"")
            return nil
        }
        guard let signature = signatures.first(where: { $0.name == name }) else {
            let scope = provider.map { " for provider \"\($0.rawValue)\"" } ?? ""
            report(member.value, path, "unknown \(what) \"\(name)\"\(scope)", fix: Suggestion.fix(for: name, in: signatures.map(\.name), listName: listName))
            return nil
        }
        var arguments: [Argument] = []
        let allowed = signature.required + signature.optional
        if let with {
            let withPath = stepPath + ".with"
            guard let members = with.value.members else {
                typeMismatch(with.value, withPath, expected: "an object", example: "{\"\(allowed.first ?? "name")\": \"...\"}")
                return nil
            }
            reportDuplicates(members, withPath)
            for argument in members {
                let argumentPath = withPath + JSONPath.key(argument.key)
                guard allowed.contains(argument.key) else {
                    let list = allowed.isEmpty ? "\"\(name)\" takes no arguments" : Suggestion.fix(for: argument.key, in: allowed, listName: "arguments of \(name)")
                    report(at: argument.keyLocation, argumentPath, "unknown argument \"\(argument.key)\" for \"\(name)\"", fix: list)
                    continue
                }
                guard let text = argument.value.scalarText, argument.value.members == nil else {
                    typeMismatch(argument.value, argumentPath, expected: "a string", example: "\"...\"")
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
        return (name, arguments)
    }

    /// Reports every key that stands twice in one object (the second would silently win).
    private func reportDuplicates(_ members: [JSONNode.Member], _ path: String) {
        var seen = Set<String>()
        for member in members where !seen.insert(member.key).inserted {
            report(at: member.keyLocation, path + JSONPath.key(member.key), "duplicate key \"\(member.key)\"", fix: "keep one \"\(member.key)\" and remove the other")
        }
    }

    /// `{"k": "v"}` as template arguments.
    private func decodeArguments(_ node: JSONNode, _ path: String) -> [Argument] {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object of strings", example: "{\"client_id\": \"app-1\"}")
            return []
        }
        reportDuplicates(members, path)
        return members.compactMap { member in
            guard let text = member.value.scalarText else {
                typeMismatch(member.value, path + JSONPath.key(member.key), expected: "a string", example: "\"...\"")
                return nil
            }
            let template = Template(text)
            checkVariables(template, member.value, path + JSONPath.key(member.key))
            return Argument(name: member.key, value: template)
        }
    }

    private func decodeSend(_ node: JSONNode, _ path: String) -> Action? {
        guard let members = object(node, path, allowed: Self.sendKeys, example: "{\"method\": \"POST\", \"path\": \"/oauth/v2/refresh\", \"json\": {...}}") else { return nil }
        let method = string(members, "method", in: node, path, required: true, example: "\"POST\"")
        if let method, method.range(of: "\\A[A-Z]+\\z", options: .regularExpression) == nil {
            report(members["method"]!.value, path + ".method", "method \"\(method)\" is not an HTTP method", fix: "write it in capitals, e.g. \"\(method.uppercased())\"")
            return nil
        }
        guard let rawPath = string(members, "path", in: node, path, required: true, example: "\"/oauth/v2/refresh\"") else { return nil }
        guard rawPath.hasPrefix("/") else {
            report(members["path"]!.value, path + ".path", "a path starts with \"/\"", fix: "write it as \"/\(rawPath)\"")
            return nil
        }
        let template = Template(rawPath)
        checkVariables(template, members["path"]!.value, path + ".path")
        let headers = members["headers"].map { decodeArguments($0.value, path + ".headers") } ?? []
        let json = members["json"].map { decodeArguments($0.value, path + ".json") } ?? []
        let form = members["form"].map { decodeArguments($0.value, path + ".form") } ?? []
        if !json.isEmpty && !form.isEmpty {
            report(node, path, "a request has one body: \"json\" or \"form\"", fix: "keep one of them")
        }
        guard let method else { return nil }
        return .send(SendSpec(method: method, path: template, headers: headers, json: json, form: form))
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
        var advance: (Int, String)?
        if let member = members["clockAdvance"] {
            if case .string(let text) = member.value.value, let seconds = Self.parseDuration(text), seconds > 0 {
                advance = (seconds, text)
            } else {
                report(member.value, path + ".clockAdvance", "expected a duration such as \"31s\"", fix: "write how far the clock moves while the server stalls, e.g. \"31s\"")
            }
            if kind != "stall" {
                report(at: member.keyLocation, path + ".clockAdvance", "\"clockAdvance\" belongs to a \"stall\" fault", fix: "remove it, or use \"kind\": \"stall\"")
            }
        }
        return .fault(FaultSpec(kind: kind, path: faultPath, times: times, clockAdvance: advance?.0, clockAdvanceWritten: advance?.1))
    }

    // MARK: - Expectations

    /// Reports field names not in `allowed` (an entry ending in "." allows any name it prefixes),
    /// so a typo cannot pass silently behind `absent` or `notEquals`.
    private func checkFieldNames(_ node: JSONNode, _ path: String, allowed: [String], listName: String) {
        for member in node.members ?? [] {
            let known = allowed.contains { $0.hasSuffix(".") ? member.key.hasPrefix($0) && member.key.count > $0.count : $0 == member.key }
            if !known {
                report(at: member.keyLocation, path + JSONPath.key(member.key), "unknown field \"\(member.key)\"", fix: Suggestion.fix(for: member.key, in: allowed, listName: listName))
            }
        }
    }

    private mutating func decodeExpect(_ node: JSONNode, _ path: String, provider: Provider?, appAction: Vocabulary.ActionSignature?) -> Expectation? {
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
            if let provider { checkFieldNames(member.value, path + ".store", allowed: Vocabulary.storeFields(for: provider), listName: "store fields") }
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

    private mutating func decodeRequest(_ node: JSONNode, _ path: String) -> RequestExpectation? {
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

    private mutating func decodeBrowserExpectation(_ node: JSONNode, _ path: String) -> BrowserExpectation? {
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

    private mutating func decodeURL(_ node: JSONNode, _ path: String) -> URLExpectation? {
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

    private mutating func decodeFields(_ node: JSONNode, _ path: String) -> [FieldMatcher] {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object of field matchers", example: "{\"grant_type\": \"client_credentials\"}")
            return []
        }
        reportDuplicates(members, path)
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
            report(node, path, kinds.isEmpty ? "a matcher needs a check" : "a matcher takes one check, found \(kinds.joined(separator: " and "))", fix: "use one of equals, notEquals, present, absent, regex, contains, pkceS256")
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
            switch key {
            case "equals": matcher = Matcher(.equals(template))
            case "notEquals": matcher = Matcher(.notEquals(template))
            case "pkceS256": matcher = Matcher(.pkceS256(template))
            default: matcher = Matcher(.contains(template))
            }
        }
        if let capture = members["capture"] {
            guard case .string(let name) = capture.value.value, name.range(of: "\\A[A-Za-z_][A-Za-z0-9_]*\\z", options: .regularExpression) != nil else {
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
        guard !text.isEmpty, text.range(of: "\\A([0-9]+h)?([0-9]+m)?([0-9]+s)?\\z", options: .regularExpression) != nil else { return nil }
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
