extension SpecDecoder {
    // MARK: - Requirements

    /// A `"requirements"` list: a non-empty array of catalogue ids, none twice. An unknown id is
    /// a located error with "did you mean"; so is a repeat. `required` (the flow level) also
    /// reports a missing key: a flow that cites nothing would leave the coverage matrix blind.
    /// - Returns: the ids as written, in order (only the valid ones).
    /// - Parameter provider: the spec's provider, whose own seed the examples cite.
    func decodeRequirements(_ member: JSONNode.Member?, in node: JSONNode, _ path: String, required: Bool, provider: (any ProviderDescription)?) -> [String] {
        let example = requirementsExample(for: provider)
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
                report(item, itemPath, "unknown requirement id \(quoted(id))", fix: hint + "cite an id of the requirement catalogue (Sources/FlowCheckProviders/RequirementCatalogue.swift; `flowcheck --list --requirements specs/` lists them), or add your own to a \(TeamRequirementFile.name) beside your specs")
            } else if ids.contains(id) {
                report(item, itemPath, "requirement \"\(id)\" is cited twice", fix: "remove the repeat")
            } else {
                ids.append(id)
                if let provider, let seed = Self.seed(of: id), !provider.seeds.contains(seed), !Self.invariantIDs.contains(id) {
                    reader.warn(item, itemPath, "requirement \(quoted(id)) is a passage of seed \(seed), not of the \(provider.id.rawValue) spec's (seed\(provider.seeds.count == 1 ? "" : "s") \(provider.seeds.joined(separator: ", ")))", fix: "cite a passage of the \(provider.id.rawValue) seed the flow checks, e.g. \(requirementsExample(for: provider)), or an RFC section")
                }
            }
        }
        return ids
    }

    /// The seed number of a `SEED-00N-...` id.
    static func seed(of id: String) -> String? {
        guard id.hasPrefix("SEED-") else { return nil }
        let rest = id.dropFirst(5)
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return String(rest[..<dash])
    }

    /// Ids the invariants cite: generalised from one provider's seed to every provider (a
    /// spec of any provider that checks them may cite them).
    static let invariantIDs: Set<String> = Set(Invariant.allCases.flatMap(\.requirements))

    /// `["SEED-00N-...", "RFC6749-..."]` with an id of the provider's own seed (the first in
    /// the catalogue) and an RFC section of its grant: never another provider's passage.
    func requirementsExample(for provider: (any ProviderDescription)?) -> String {
        let seedID = provider?.seeds.lazy.compactMap { seed in self.requirements.ids.first { $0.hasPrefix("SEED-\(seed)-") } }.first
        // Moltin's grant is client credentials (RFC 6749 §4.4); the others log a user in (§4.1).
        let rfc = provider?.id.rawValue == "moltin" ? "RFC6749-4.4" : "RFC6749-4.1.3"
        let ids = [seedID ?? "SEED-003-auth", requirements.contains(rfc) ? rfc : nil].compactMap { $0 }
        return "[" + ids.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}
