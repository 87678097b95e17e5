import Foundation

extension SpecDecoder {
    // MARK: - Reporting

    func report(_ node: JSONNode, _ path: String, _ title: String, fix: String) {
        diagnostics.items.append(SpecDiagnostic(file: file, location: node.location, path: path, title: title, fix: fix))
    }

    func report(at location: SourceLocation, _ path: String, _ title: String, fix: String) {
        diagnostics.items.append(SpecDiagnostic(file: file, location: location, path: path, title: title, fix: fix))
    }

    func typeMismatch(_ node: JSONNode, _ path: String, expected: String, example: String) {
        report(node, path, "expected \(expected), found \(node.typeName)", fix: "write it as \(example)")
    }

    /// The members of an object, after reporting any key not in `allowed`. Nil if not an object.
    func object(_ node: JSONNode, _ path: String, allowed: [String], example: String = "{ ... }") -> [String: JSONNode.Member]? {
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

    func missing(_ key: String, in node: JSONNode, _ path: String, example: String) {
        report(node, path, "missing required key \"\(key)\"", fix: "add \"\(key)\": \(example)")
    }

    func string(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, required: Bool, example: String = "\"...\"") -> String? {
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

    func integer(_ member: JSONNode.Member?, _ path: String, range: ClosedRange<Int>, example: String) -> Int? {
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

    func bool(_ member: JSONNode.Member?, _ path: String) -> Bool? {
        guard let member else { return nil }
        guard case .bool(let value) = member.value.value else {
            typeMismatch(member.value, path, expected: "true or false", example: "true")
            return nil
        }
        return value
    }

    func array(_ member: JSONNode.Member, _ path: String, example: String) -> [JSONNode]? {
        guard case .array(let items) = member.value.value else {
            typeMismatch(member.value, path, expected: "an array", example: example)
            return nil
        }
        return items
    }

    func checkVariables(_ template: Template, _ node: JSONNode, _ path: String) {
        for name in template.variables where !defined.contains(name) {
            let candidates = defined.sorted()
            let hint = Suggestion.closest(to: name, in: candidates).map { "did you mean \"${\($0)}\"? " } ?? ""
            report(node, path, "variable \"${\(name)}\" is not captured by an earlier step", fix: "\(hint)capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"\(name)\"}")
        }
    }

}
