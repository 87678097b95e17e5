import Foundation

/// The decoder's reading helpers: the shared ``SpecReader``'s, so steps, expectations and
/// provider fixtures report into one list.
extension SpecDecoder {
    func report(_ node: JSONNode, _ path: String, _ title: String, fix: String) { reader.report(node, path, title, fix: fix) }
    func report(at location: SourceLocation, _ path: String, _ title: String, fix: String) { reader.report(at: location, path, title, fix: fix) }
    func typeMismatch(_ node: JSONNode, _ path: String, expected: String, example: String) { reader.typeMismatch(node, path, expected: expected, example: example) }
    func object(_ node: JSONNode, _ path: String, allowed: [String], example: String = "{ ... }", retired: [String: RetiredKey] = [:]) -> [String: JSONNode.Member]? {
        reader.object(node, path, allowed: allowed, example: example, retired: retired)
    }
    func missing(_ key: String, in node: JSONNode, _ path: String, example: String) { reader.missing(key, in: node, path, example: example) }
    func string(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, required: Bool, example: String = "\"...\"") -> String? {
        reader.string(members, key, in: node, path, required: required, example: example)
    }
    func integer(_ member: JSONNode.Member?, _ path: String, range: ClosedRange<Int>, example: String) -> Int? { reader.integer(member, path, range: range, example: example) }
    func bool(_ member: JSONNode.Member?, _ path: String) -> Bool? { reader.bool(member, path) }
    func array(_ member: JSONNode.Member, _ path: String, example: String) -> [JSONNode]? { reader.array(member, path, example: example) }

    /// Spec text for a message: secrets masked, quoted as a JSON string, cut.
    func quoted(_ text: String) -> String { reader.quoted(text) }

    /// Reports a template's syntax mistakes and every variable no earlier step captured.
    func checkVariables(_ template: Template, _ node: JSONNode, _ path: String) {
        for problem in template.problems {
            // No default: a new kind of mistake must be reported here before anything compiles.
            switch problem {
            case .unclosed(let offset):
                let name = template.raw.dropFirst(offset + 2).prefix { $0.isLetter || $0.isNumber || "._-".contains($0) }
                report(node, path, "\"${\" at character \(offset + 1) of \(quoted(template.raw)) is never closed", fix: "close the variable with \"}\", e.g. \(quoted("${\(name.isEmpty ? "name" : name)}")), or write \"$${\" for a literal \"${\"")
            case .emptyName(let offset):
                report(node, path, "\"${}\" at character \(offset + 1) of \(quoted(template.raw)) names no variable", fix: "name a captured variable, e.g. \"${token}\", or write \"$${}\" for the literal text \"${}\"")
            }
        }
        for name in template.variables where !name.isEmpty && !defined.contains(name) {
            let candidates = defined.sorted()
            // A near miss of a captured name is a typo: the fix is the name, not a new capture.
            let fix = Suggestion.closest(to: name, in: candidates).map { "did you mean \"${\($0)}\"? (captured earlier)" }
                ?? "capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"\(name)\"}"
            report(node, path, "variable \(quoted("${\(name)}")) is not captured by an earlier step", fix: fix)
        }
    }
}
