import Foundation

extension SpecDecoder {
    mutating func decodeMatcher(_ node: JSONNode, _ path: String) -> Matcher? {
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
}
