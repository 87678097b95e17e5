import Foundation

/// The decoder's reading helpers: the shared ``SpecReader``'s, so steps, expectations and
/// provider fixtures report into one list.
extension SpecDecoder {
    func report(_ node: JSONNode, _ path: String, _ title: String, fix: String) { reader.report(node, path, title, fix: fix) }
    func report(at location: SourceLocation, _ path: String, _ title: String, fix: String) { reader.report(at: location, path, title, fix: fix) }
    func typeMismatch(_ node: JSONNode, _ path: String, expected: String, example: String) { reader.typeMismatch(node, path, expected: expected, example: example) }
    func object(_ node: JSONNode, _ path: String, allowed: [String], example: String = "{ ... }") -> [String: JSONNode.Member]? { reader.object(node, path, allowed: allowed, example: example) }
    func missing(_ key: String, in node: JSONNode, _ path: String, example: String) { reader.missing(key, in: node, path, example: example) }
    func string(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, required: Bool, example: String = "\"...\"") -> String? {
        reader.string(members, key, in: node, path, required: required, example: example)
    }
    func integer(_ member: JSONNode.Member?, _ path: String, range: ClosedRange<Int>, example: String) -> Int? { reader.integer(member, path, range: range, example: example) }
    func bool(_ member: JSONNode.Member?, _ path: String) -> Bool? { reader.bool(member, path) }
    func array(_ member: JSONNode.Member, _ path: String, example: String) -> [JSONNode]? { reader.array(member, path, example: example) }

    func checkVariables(_ template: Template, _ node: JSONNode, _ path: String) {
        for name in template.variables where !defined.contains(name) {
            let candidates = defined.sorted()
            let hint = Suggestion.closest(to: name, in: candidates).map { "did you mean \"${\($0)}\"? " } ?? ""
            report(node, path, "variable \"${\(name)}\" is not captured by an earlier step", fix: "\(hint)capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"\(name)\"}")
        }
    }
}
