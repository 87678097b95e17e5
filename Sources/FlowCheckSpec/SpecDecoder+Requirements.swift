extension SpecDecoder {
    // MARK: - Requirements

    /// A `"requirements"` list: a non-empty array of catalogue ids, none twice. An unknown id is
    /// a located error with "did you mean"; so is a repeat. `required` (the flow level) also
    /// reports a missing key: a flow that cites nothing would leave the coverage matrix blind.
    /// - Returns: the ids as written, in order (only the valid ones).
    func decodeRequirements(_ member: JSONNode.Member?, in node: JSONNode, _ path: String, required: Bool) -> [String] {
        let example = "[\"SEED-003-auth\", \"RFC6749-4.4\"]"
        guard let member else {
            if required { missing("requirements", in: node, path, example: example) }
            return []
        }
        let listPath = path + ".requirements"
        guard let items = array(member, listPath, example: example) else { return [] }
        if items.isEmpty {
            report(member.value, listPath, "an empty \"requirements\" cites nothing", fix: required ? "cite the seed passage and RFC sections the flow checks, e.g. \(example)" : "cite at least one id, or remove the key (the step then cites the flow's)")
        }
        var ids: [String] = []
        for (i, item) in items.enumerated() {
            let itemPath = listPath + "[\(i)]"
            guard case .string(let id) = item.value else {
                typeMismatch(item, itemPath, expected: "a requirement id", example: "\"RFC7636-4.6\"")
                continue
            }
            if !requirements.contains(id) {
                let hint = Suggestion.closest(to: id, in: requirements.ids).map { "did you mean \"\($0)\"? " } ?? ""
                report(item, itemPath, "unknown requirement id \(quoted(id))", fix: hint + "cite an id of the requirement catalogue (Sources/FlowCheckProviders/RequirementCatalogue.swift; `flowcheck --list --requirements specs/` lists them)")
            } else if ids.contains(id) {
                report(item, itemPath, "requirement \"\(id)\" is cited twice", fix: "remove the repeat")
            } else {
                ids.append(id)
            }
        }
        return ids
    }
}
