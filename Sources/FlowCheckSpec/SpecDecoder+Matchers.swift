extension SpecDecoder {
    mutating func decodeMatcher(_ node: JSONNode, _ path: String) -> Matcher? {
        if let text = node.scalarText {
            let template = Template(text)
            checkVariables(template, node, path)
            return Matcher(.equals(template))
        }
        guard let members = object(node, path, allowed: Matcher.keys, example: "\"exact value\" or {\"present\": true}") else { return nil }
        // `object` has already reported (and dropped) every key that is neither a kind nor `capture`.
        let kinds = members.keys.compactMap(MatcherKind.init(rawValue:)).sorted { $0.rawValue < $1.rawValue }
        guard kinds.count == 1, let kind = kinds.first, let member = members[kind.rawValue] else {
            report(node, path, kinds.isEmpty ? "a matcher needs a check" : "a matcher takes one check, found \(kinds.map(\.rawValue).joined(separator: " and "))", fix: "use one of \(MatcherKind.keys.joined(separator: ", "))")
            return nil
        }
        let memberPath = path + JSONPath.key(kind.rawValue)
        var matcher: Matcher?
        switch kind {
        case .present:
            guard flag(kind, member.value, memberPath, fix: "write {\"present\": true}, or {\"absent\": true} for the opposite") else { return nil }
            matcher = Matcher(.present)
        case .absent:
            guard flag(kind, member.value, memberPath, fix: "write {\"absent\": true}, or {\"present\": true} for the opposite") else { return nil }
            matcher = Matcher(.absent)
        case .regex:
            guard case .string(let pattern) = member.value.value else {
                typeMismatch(member.value, memberPath, expected: "a string", example: "\"^Bearer .+$\"")
                return nil
            }
            do {
                let regex = try LinearRegex(pattern)
                for warning in regex.portabilityWarnings {
                    reader.warn(member.value, memberPath, warning.title(pattern: reader.masked(pattern)), fix: warning.fix)
                }
                matcher = Matcher(.regex(pattern))
            } catch {
                report(member.value, memberPath, error.title(pattern: reader.masked(pattern)), fix: error.fix)
                return nil
            }
        case .equals: matcher = matcherTemplate(member.value, memberPath).map { Matcher(.equals($0)) }
        case .notEquals: matcher = matcherTemplate(member.value, memberPath).map { Matcher(.notEquals($0)) }
        case .contains: matcher = matcherTemplate(member.value, memberPath).map { Matcher(.contains($0)) }
        case .pkceS256: matcher = matcherTemplate(member.value, memberPath).map { Matcher(.pkceS256($0)) }
        }
        guard matcher != nil else { return nil }
        if let capture = members[Matcher.captureKey] {
            guard case .string(let name) = capture.value.value, SpecPattern.variableName.matches(name) else {
                report(capture.value, path + ".capture", "a capture names a variable", fix: "use letters, digits and underscores, e.g. \"firstToken\"")
                return matcher
            }
            if kind == .absent {
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

    /// `present` and `absent` take `true` only: `false` would read as the opposite check.
    private func flag(_ kind: MatcherKind, _ node: JSONNode, _ path: String, fix: String) -> Bool {
        guard case .bool(true) = node.value else {
            report(node, path, "\"\(kind.rawValue)\" takes true", fix: fix)
            return false
        }
        return true
    }

    /// The text of an `equals`, `notEquals`, `contains` or `pkceS256` matcher, as a template
    /// whose variables must have been captured earlier.
    private func matcherTemplate(_ node: JSONNode, _ path: String) -> Template? {
        guard let text = node.scalarText else {
            typeMismatch(node, path, expected: "a string", example: "\"...\"")
            return nil
        }
        let template = Template(text)
        checkVariables(template, node, path)
        return template
    }
}
