import Foundation

extension SpecDecoder {
    // MARK: - Steps

    mutating func decodeStep(_ node: JSONNode, _ path: String, number: Int, provider: (any ProviderDescription)?) -> Step? {
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
        if let key = actionKeys.first, let member = members[key], let kind = ActionKind(rawValue: key) {
            let actionPath = path + JSONPath.key(key)
            // No default: a new action kind must be decoded here before anything compiles.
            switch kind {
            case .app:
                if let provider {
                    let signatures = provider.actions
                    if let (name, arguments, _) = decodeCall(member, members["with"], actionPath, stepPath: path, signatures: signatures, what: "app action", listName: "actions for \(provider.id.rawValue)", forProvider: provider.id) {
                        action = .app(name: name, arguments: arguments)
                    }
                }
            case .browser:
                if let (name, arguments, transforms) = decodeCall(member, members["with"], actionPath, stepPath: path, signatures: Vocabulary.browserOperations, what: "browser operation", listName: "browser operations", forProvider: nil) {
                    if let operation = BrowserOperation(rawValue: name) { action = .browser(operation: operation, arguments: arguments, transforms: transforms) }
                }
            case .send: action = decodeSend(member.value, actionPath)
            case .advanceClock:
                if case .string(let text) = member.value.value, let seconds = Self.parseDuration(text) {
                    if seconds == 0 {
                        report(member.value, actionPath, "a zero duration does nothing", fix: "move the clock by at least \"1s\", or remove the step")
                    }
                    action = .advanceClock(seconds: seconds, written: text)
                } else {
                    report(member.value, actionPath, "expected a duration such as \"61m\", found \(member.value.scalarText.map(quoted) ?? member.value.typeName)", fix: "write hours, minutes and seconds as \"1h\", \"61m\", \"90s\" or \"1h30m\"")
                }
            case .fault:
                action = decodeFault(member.value, actionPath)
                if case .fault(let fault)? = action, fault.kind == "hold", fault.times != 1, manyHolds == nil { manyHolds = number }
            case .clearFaults:
                if bool(member, actionPath) == true { action = .clearFaults } else if case .bool(false) = member.value.value {
                    report(member.value, actionPath, "\"clearFaults\": false does nothing", fix: "write \"clearFaults\": true, or remove the key")
                }
            case .await:
                action = decodeAwait(member, actionPath, number: number)
            case .release:
                action = decodeRelease(member, actionPath)
            case .crashStore:
                let points = StoreCrashPoint.allCases.map(\.rawValue)
                if case .string(let text) = member.value.value {
                    if let point = StoreCrashPoint(rawValue: text) { action = .crashStore(point) } else {
                        report(member.value, actionPath, "unknown store crash point \(quoted(text))", fix: Suggestion.fix(for: text, in: points, listName: "crash points"))
                    }
                } else {
                    typeMismatch(member.value, actionPath, expected: "a string", example: "\"nextWrite\"")
                }
            case .server:
                if case .string(let op) = member.value.value {
                    let operations = provider?.serverOperations ?? []
                    if operations.contains(op) { action = .server(operation: op) } else if provider != nil {
                        report(member.value, actionPath, "unknown server operation \(quoted(op))", fix: Suggestion.fix(for: op, in: operations, listName: "operations for \(provider!.id.rawValue)"))
                    }
                } else {
                    typeMismatch(member.value, actionPath, expected: "a string", example: "\"revokeTokens\"")
                }
            }
        }
        var note: String?
        if let member = members["note"] {
            if case .string(let s) = member.value.value { note = s } else { typeMismatch(member.value, path + ".note", expected: "a string", example: "\"why this step matters\"") }
        }
        let background = decodeAsync(members["async"], members["app"] != nil, action, path, number: number)
        var appAction: Vocabulary.ActionSignature?
        if let provider, case .app(let name, _)? = action { appAction = provider.actions.first { $0.name == name } }
        if let provider, case .await(let label)? = action, let call = awaitedCall(label) { appAction = provider.actions.first { $0.name == call } }
        let expect = members["expect"].flatMap { decodeExpect($0.value, path + ".expect", provider: provider, appAction: appAction) }
        if let expectMember = members["expect"], let fields = expectMember.value.members {
            for field in fields where CheckKind(rawValue: field.key)?.isAboutTheCall == true {
                let fieldPath = path + ".expect" + JSONPath.key(field.key)
                if let label = members["async"].flatMap({ $0.value.scalarText }), members["app"] != nil {
                    report(at: field.keyLocation, fieldPath, "\"\(field.key)\" checks how a call ended, and this step leaves its call running in the background", fix: "move it to the step {\"await\": \"\(label)\"} that joins the call")
                } else if members["app"] == nil, members["await"] == nil {
                    report(at: field.keyLocation, fieldPath, "\"\(field.key)\" checks an app call, and this step makes none", fix: "move it to the step with the \"app\" call it is about")
                }
            }
        }
        let allow = members["allow"].map { decodeAllow($0, path + ".allow") } ?? []
        return Step(number: number, location: node.location, note: note, action: action, expect: expect, background: background, allow: allow)
    }

    /// An app action or browser operation with its `with` arguments, checked against `signatures`;
    /// an argument the signature lists as transformable may be a ``TamperTransform`` object.
    func decodeCall(_ member: JSONNode.Member, _ with: JSONNode.Member?, _ path: String, stepPath: String, signatures: [Vocabulary.ActionSignature], what: String, listName: String, forProvider provider: Provider?) -> (String, [Argument], [ParameterTransform])? {
        guard case .string(let name) = member.value.value else {
            typeMismatch(member.value, path, expected: "a string", example: provider == nil ? "\"login\"" : "\"auth\"")
            return nil
        }
        guard let signature = signatures.first(where: { $0.name == name }) else {
            let scope = provider.map { " for provider \"\($0.rawValue)\"" } ?? ""
            report(member.value, path, "unknown \(what) \(quoted(name))\(scope)", fix: Suggestion.fix(for: name, in: signatures.map(\.name), listName: listName))
            return nil
        }
        var arguments: [Argument] = []
        var transforms: [ParameterTransform] = []
        let allowed = signature.required + signature.optional
        if let with {
            let withPath = stepPath + ".with"
            guard let members = with.value.members else {
                typeMismatch(with.value, withPath, expected: "an object", example: "{\"\(allowed.first ?? "name")\": \"...\"}")
                return nil
            }
            reportDuplicates(members, withPath)
            if members.isEmpty {
                report(with.value, withPath, "an empty \"with\" passes nothing", fix: allowed.isEmpty ? "remove it: \"\(name)\" takes no arguments" : "give the arguments, e.g. {\"\(allowed[0])\": \"...\"}, or remove it")
            }
            for argument in members {
                let argumentPath = withPath + JSONPath.key(argument.key)
                guard allowed.contains(argument.key) else {
                    let list = allowed.isEmpty ? "\"\(name)\" takes no arguments" : Suggestion.fix(for: argument.key, in: allowed, listName: "arguments of \(name)")
                    report(at: argument.keyLocation, argumentPath, "unknown argument \(quoted(argument.key)) for \"\(name)\"", fix: list)
                    continue
                }
                if let objectMembers = argument.value.members {
                    if signature.transformable.contains(argument.key) {
                        if let transform = decodeTransform(argument.value, argumentPath) {
                            transforms.append(ParameterTransform(parameter: argument.key, transform: transform, location: argument.value.location))
                        }
                    } else if objectMembers.contains(where: { $0.key == "transform" }) {
                        let fix = signature.transformable.isEmpty
                            ? "write the value itself; transforms rewrite the captured redirect in a \"browser\": \"tamper\" step"
                            : "transform one of \(signature.transformable.map { "\"\($0)\"" }.joined(separator: ", ")), e.g. \"state\": {\"transform\": \"empty\"}"
                        report(argument.value, argumentPath, "\"\(argument.key)\" of \"\(name)\" takes no transform", fix: fix)
                    } else {
                        typeMismatch(argument.value, argumentPath, expected: "a string", example: "\"...\"")
                    }
                    continue
                }
                guard let text = argument.value.scalarText else {
                    typeMismatch(argument.value, argumentPath, expected: "a string", example: "\"...\"")
                    continue
                }
                let template = Template(text)
                checkVariables(template, argument.value, argumentPath)
                if template.problems.isEmpty { checkArgument(template, signature.type(of: argument.key), argument.value, argumentPath) }
                arguments.append(Argument(name: argument.key, value: template))
            }
            // A parameter dropped and rewritten in one step: which wins would be the browser's
            // choice, not the spec's.
            let removed = Set((arguments.first { $0.name == "remove" }?.value.raw ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            for transform in transforms where removed.contains(transform.parameter) {
                report(at: transform.location, withPath + JSONPath.key(transform.parameter), "\"\(transform.parameter)\" is both removed and transformed", fix: "keep it in \"remove\" or transform it, not both; use two tamper steps for both in turn")
            }
        }
        if let members = with?.value.members {
            checkDependents(signature, arguments, members, stepPath + ".with")
        }
        for required in signature.required where !arguments.contains(where: { $0.name == required }) && !(with?.value.members?.contains { $0.key == required } ?? false) {
            report(with?.value ?? member.value, with == nil ? stepPath : stepPath + ".with", "\"\(name)\" needs the argument \"\(required)\"", fix: "add \"with\": {\"\(required)\": \"...\"}")
        }
        return (name, arguments, transforms)
    }

    /// `{"transform": "flipCase"}`, `{"transform": "append", "value": "-x"}`: a
    /// ``TamperTransform`` on the parameter's value in the captured redirect.
    func decodeTransform(_ node: JSONNode, _ path: String) -> TamperTransform? {
        guard let members = object(node, path, allowed: TamperTransform.keys, example: "{\"transform\": \"flipCase\"}") else { return nil }
        guard let name = string(members, "transform", in: node, path, required: true, example: "\"flipCase\"") else { return nil }
        let names = TamperTransformKind.allCases.map(\.rawValue)
        guard let kind = TamperTransformKind(rawValue: name) else {
            report(members["transform"]!.value, path + ".transform", "unknown transform \(quoted(name))", fix: Suggestion.fix(for: name, in: names, listName: "transforms"))
            return nil
        }
        let valueMember = members["value"]
        if let valueMember, !kind.takesValue {
            report(at: valueMember.keyLocation, path + ".value", "\"value\" belongs to a transform that takes one (\(TamperTransformKind.allCases.filter(\.takesValue).map { "\"\($0.rawValue)\"" }.joined(separator: ", "))); \"\(name)\" takes none", fix: "remove \"value\", or write \"transform\": \"append\"")
            return nil
        }
        guard kind.takesValue else { return TamperTransform.make(kind, value: nil) }
        guard let valueMember else {
            report(node, path, "an \"\(name)\" transform needs a \"value\": \(kind.valueRole ?? "its value")", fix: "add \"value\": \"-x\"")
            return nil
        }
        guard let text = valueMember.value.scalarText, valueMember.value.members == nil else {
            typeMismatch(valueMember.value, path + ".value", expected: "a string", example: "\"-x\"")
            return nil
        }
        guard !text.isEmpty else {
            report(valueMember.value, path + ".value", "\"\(name)\" with \"\" leaves the value as it was", fix: "give at least one character, e.g. \"x\"")
            return nil
        }
        let template = Template(text)
        checkVariables(template, valueMember.value, path + ".value")
        return TamperTransform.make(kind, value: template)
    }

    /// Reports every key that stands twice in one object (the second would silently win).
    func reportDuplicates(_ members: [JSONNode.Member], _ path: String) {
        var seen = Set<String>()
        for member in members where !seen.insert(member.key).inserted {
            report(at: member.keyLocation, path + JSONPath.key(member.key), "duplicate key \(quoted(member.key))", fix: "keep one \(quoted(member.key)) and remove the other")
        }
    }

    /// `{"k": "v"}` as template arguments.
    func decodeArguments(_ node: JSONNode, _ path: String) -> [Argument] {
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

    func decodeSend(_ node: JSONNode, _ path: String) -> Action? {
        guard let members = object(node, path, allowed: Self.sendKeys, example: "{\"method\": \"POST\", \"path\": \"/oauth/v2/refresh\", \"json\": {...}}") else { return nil }
        let method = string(members, "method", in: node, path, required: true, example: "\"POST\"")
        if let method, !SpecPattern.method.matches(method) {
            report(members["method"]!.value, path + ".method", "method \(quoted(method)) is not an HTTP method", fix: "write it in capitals, e.g. \(quoted(method.uppercased()))")
            return nil
        }
        guard let rawPath = string(members, "path", in: node, path, required: true, example: "\"/oauth/v2/refresh\"") else { return nil }
        guard rawPath.hasPrefix("/") else {
            report(members["path"]!.value, path + ".path", "a path starts with \"/\"", fix: "write it as \(quoted("/" + rawPath))")
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

    func decodeFault(_ node: JSONNode, _ path: String) -> Action? {
        guard let members = object(node, path, allowed: Self.faultKeys, example: "{\"kind\": \"serverError\", \"path\": \"/v1/products\", \"times\": 1}") else { return nil }
        guard let kind = string(members, "kind", in: node, path, required: true, example: "\"serverError\"") else { return nil }
        guard Vocabulary.faultKinds.contains(kind) else {
            report(members["kind"]!.value, path + ".kind", "unknown fault \(quoted(kind))", fix: Suggestion.fix(for: kind, in: Vocabulary.faultKinds, listName: "faults"))
            return nil
        }
        let faultPath = string(members, "path", in: node, path, required: false, example: "\"/v1/products\"")
        if let faultPath, !faultPath.hasPrefix("/") {
            report(members["path"]!.value, path + ".path", "a fault path starts with \"/\"", fix: "write it as \(quoted("/" + faultPath))")
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


    // MARK: - Background calls

    /// A label as `async` and `await` write it.
    static let labelPattern = "\\A[A-Za-z][A-Za-z0-9_-]*\\z"
    static let label = SpecPattern(labelPattern)

    /// `"async": LABEL` next to `"app"`: the label, after checking it is new.
    mutating func decodeAsync(_ member: JSONNode.Member?, _ isApp: Bool, _ action: Action?, _ path: String, number: Int) -> String? {
        guard let member else { return nil }
        let asyncPath = path + ".async"
        guard isApp else {
            report(at: member.keyLocation, asyncPath, "\"async\" belongs to an \"app\" step", fix: "put it next to the \"app\" call to start in the background, or remove it")
            return nil
        }
        guard case .string(let label) = member.value.value else {
            typeMismatch(member.value, asyncPath, expected: "a label", example: "\"refresh\"")
            return nil
        }
        guard Self.label.matches(label) else {
            report(member.value, asyncPath, "\(quoted(label)) is not a label", fix: "start with a letter and use letters, digits, \"-\" and \"_\", e.g. \"refresh\"")
            return nil
        }
        if let earlier = running[label] {
            report(member.value, asyncPath, "the background call \(quoted(label)) is already running (started in step \(earlier.step))", fix: "await it with {\"await\": \(quoted(label))} before this step, or use another label")
            return nil
        }
        guard case .app(let name, _)? = action else { return label }
        running[label] = BackgroundCall(step: number, action: name, node: member.value, path: asyncPath)
        return label
    }

    /// `"await": LABEL`: a call started earlier and not awaited yet.
    mutating func decodeAwait(_ member: JSONNode.Member, _ path: String, number: Int) -> Action? {
        guard case .string(let label) = member.value.value else {
            typeMismatch(member.value, path, expected: "the label of a background call", example: "\"refresh\"")
            return nil
        }
        if running[label] != nil {
            awaitedLabels[label] = running[label]?.action
            running[label] = nil
            awaited[label] = number
            return .await(label: label)
        }
        if let step = awaited[label] {
            report(member.value, path, "the background call \(quoted(label)) was already awaited in step \(step)", fix: "remove this step, or start the call again with \"async\": \(quoted(label)) before it")
        } else {
            let hint = Suggestion.closest(to: label, in: running.keys.sorted()).map { "did you mean \"\($0)\"? " } ?? ""
            report(member.value, path, "no background call \(quoted(label)) was started before this step", fix: "\(hint)start it on an earlier app step with \"async\": \(quoted(label))")
        }
        return nil
    }

    /// `"release": LABEL`: a call started earlier and not awaited yet.
    func decodeRelease(_ member: JSONNode.Member, _ path: String) -> Action? {
        guard case .string(let label) = member.value.value else {
            typeMismatch(member.value, path, expected: "the label of a background call", example: "\"refresh\"")
            return nil
        }
        if running[label] != nil {
            if let step = manyHolds {
                report(member.value, path, "the hold fault of step \(step) may hold more than one request, so which one is \(quoted(label))'s is not known", fix: "give each hold fault \"times\": 1, armed before the call it holds, or end every hold with {\"clearFaults\": true}")
                return nil
            }
            return .release(label: label)
        }
        if let step = awaited[label] {
            report(member.value, path, "the background call \(quoted(label)) already ended (awaited in step \(step)): it holds nothing now", fix: "release it before its await, or remove this step")
        } else {
            let hint = Suggestion.closest(to: label, in: running.keys.sorted()).map { "did you mean \"\($0)\"? " } ?? ""
            report(member.value, path, "no background call \(quoted(label)) was started before this step", fix: "\(hint)start it on an earlier app step with \"async\": \(quoted(label)), with a hold fault armed")
        }
        return nil
    }

    /// The app action a label awaited in this step was started with.
    func awaitedCall(_ label: String) -> String? { awaitedLabels[label] }

    /// An argument's value against its type, as the driver will interpret it. No default: a
    /// new type must be checked here.
    func checkArgument(_ template: Template, _ type: Vocabulary.ArgumentType, _ node: JSONNode, _ path: String) {
        let value = template.raw
        switch type {
        case .text:
            return
        case .url:
            // A value that starts with a variable (`${redirect}`) takes its scheme from it; one
            // that starts with text must start as a URL does.
            if case .variable? = template.parts.first { return }
            let sample = template.render(Dictionary(template.variables.map { ($0, "x") }, uniquingKeysWith: { first, _ in first }))
            if !Self.url.matches(sample) {
                report(node, path, "\(quoted(value)) is not an absolute URL", fix: "write it with a scheme, e.g. \"https://pos.example.com/oauth/callback\" or \"com.example.app:/callback\"")
            }
        case .count(let range):
            guard isLiteral(template, node, path, example: "\"\(range.lowerBound)\"") else { return }
            guard let number = Int(value) else {
                report(node, path, "\(quoted(value)) is not a whole number from \(range.lowerBound) to \(range.upperBound)", fix: "write a number such as \"\(range.lowerBound)\"")
                return
            }
            if !range.contains(number) {
                report(node, path, "\(reader.masked(String(number))) is out of range", fix: "use a number from \(range.lowerBound) to \(range.upperBound)")
            }
        case .oneOf(let words):
            guard isLiteral(template, node, path, example: "\"\(words[0])\"") else { return }
            if !words.contains(value) {
                report(node, path, "unknown value \(quoted(value))", fix: Suggestion.fix(for: value, in: words, listName: "values"))
            }
        case .listOf(let words):
            guard isLiteral(template, node, path, example: "\"\(words.prefix(2).joined(separator: ","))\"") else { return }
            var seen = Set<String>()
            for item in value.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if item.isEmpty {
                    report(node, path, "an empty item in the list \(quoted(value))", fix: "separate the names with single commas, e.g. \"\(words.prefix(2).joined(separator: ","))\"")
                } else if !words.contains(item) {
                    report(node, path, "unknown value \(quoted(item)) in the list \(quoted(value))", fix: Suggestion.fix(for: item, in: words, listName: "values"))
                } else if !seen.insert(item).inserted {
                    report(node, path, "\(quoted(item)) is listed twice in \(quoted(value))", fix: "list it once")
                }
            }
        }
    }

    /// Whether a count's or a word's value is written out: the driver reads it as written, so
    /// a `${variable}` in it would reach the driver unchecked.
    private func isLiteral(_ template: Template, _ node: JSONNode, _ path: String, example: String) -> Bool {
        guard template.variables.isEmpty else {
            report(node, path, "\(quoted(template.raw)) takes no variables: the driver reads this argument as written", fix: "write the value itself, e.g. \(example)")
            return false
        }
        return true
    }

    /// Arguments that belong to some values of another (``Vocabulary/DependentArgument``):
    /// needed for those values, refused for the others (the driver would ignore them).
    func checkDependents(_ signature: Vocabulary.ActionSignature, _ arguments: [Argument], _ members: [JSONNode.Member], _ withPath: String) {
        for dependent in signature.dependents {
            guard let decider = arguments.first(where: { $0.name == dependent.on }), decider.value.variables.isEmpty else { continue }
            let value = decider.value.raw
            if case .oneOf(let words) = signature.type(of: dependent.on), !words.contains(value) { continue }
            let wanted = dependent.values.map { "\"\($0)\"" }.joined(separator: " or ")
            let member = members.first { $0.key == dependent.argument }
            if dependent.values.contains(value), member == nil, let deciderMember = members.first(where: { $0.key == dependent.on }) {
                let example = signature.type(of: dependent.argument) == .url ? "\"https://clover.internal.example\"" : "\"...\""
                report(deciderMember.value, withPath + JSONPath.key(dependent.on), "\"\(signature.name)\" with \(dependent.on) \(quoted(value)) needs the argument \"\(dependent.argument)\"", fix: "add \"\(dependent.argument)\": \(example) to \"with\"")
            } else if !dependent.values.contains(value), let member {
                report(at: member.keyLocation, withPath + JSONPath.key(dependent.argument), "\"\(dependent.argument)\" is read only when \(dependent.on) is \(wanted); with \(quoted(value)) the driver ignores it", fix: "remove \"\(dependent.argument)\", or write \"\(dependent.on)\": \(wanted)")
            }
        }
    }

    /// A scheme (RFC 3986 §3.1) and a colon, then at least one more character.
    static let urlPattern = "\\A[A-Za-z][A-Za-z0-9+.-]*:\\S+\\z"
    static let url = SpecPattern(urlPattern)
}
