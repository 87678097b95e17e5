import Foundation

extension SpecDecoder {
    static let allowKeys = ["invariant", "why"]
    static let allowExample = "[{\"invariant\": \"INV-EXPIRED\", \"why\": \"No OAuth: the app hands the SDK a token it must send as it is\"}]"

    /// `"allow": [{"invariant": ID, "why": TEXT}]`: the invariants a step opts out of. Each
    /// needs a known id, a written reason, and appears once.
    func decodeAllow(_ member: JSONNode.Member, _ path: String) -> [InvariantAllowance] {
        guard case .array(let items) = member.value.value else {
            typeMismatch(member.value, path, expected: "a list of opt-outs", example: Self.allowExample)
            return []
        }
        if items.isEmpty {
            report(member.value, path, "an empty \"allow\" opts out of nothing", fix: "remove \"allow\", or name an invariant and why: \(Self.allowExample)")
        }
        var allowances: [InvariantAllowance] = []
        let ids = Invariant.allCases.map(\.rawValue)
        for (index, item) in items.enumerated() {
            let itemPath = path + "[\(index)]"
            guard let members = object(item, itemPath, allowed: Self.allowKeys, example: "{\"invariant\": \"INV-EXPIRED\", \"why\": \"...\"}") else { continue }
            let id = string(members, "invariant", in: item, itemPath, required: true, example: "\"INV-EXPIRED\"")
            let why = string(members, "why", in: item, itemPath, required: true, example: "\"why this step may break the invariant\"")
            var invariant: Invariant?
            if let id, let node = members["invariant"]?.value {
                invariant = Invariant(rawValue: id)
                if invariant == nil {
                    report(node, itemPath + ".invariant", "unknown invariant \(quoted(id))", fix: Suggestion.fix(for: id, in: ids, listName: "invariants"))
                } else if allowances.contains(where: { $0.invariant == invariant }) {
                    report(node, itemPath + ".invariant", "\"\(id)\" is allowed twice in this step", fix: "keep one entry for it")
                    invariant = nil
                }
            }
            if let why, let node = members["why"]?.value, why.trimmingCharacters(in: .whitespacesAndNewlines).count < 10 {
                report(node, itemPath + ".why", "an opt-out needs a reason a reader can judge, found \(quoted(why))", fix: "say why this step may break \(id ?? "the invariant"), in a sentence")
            }
            if let invariant, let why, why.trimmingCharacters(in: .whitespacesAndNewlines).count >= 10 {
                allowances.append(InvariantAllowance(invariant: invariant, why: why, location: item.location))
            }
        }
        return allowances
    }
}

extension SpecDecoder {
    static let notDerivedExample = "[{\"family\": \"tamper\", \"why\": \"...\"}]"

    /// `"notDerived": [{"family": "tamper", "why": "..."}]`: families no variant is derived
    /// from this flow for, each with a reason a reader can judge.
    func decodeNotDerived(_ member: JSONNode.Member, _ path: String) -> [DerivedOptOut] {
        guard case .array(let items) = member.value.value else {
            typeMismatch(member.value, path, expected: "a list of opt-outs", example: Self.notDerivedExample)
            return []
        }
        if items.isEmpty {
            report(member.value, path, "an empty \"notDerived\" opts out of nothing", fix: "remove it, or name a family and why: \(Self.notDerivedExample)")
        }
        var optOuts: [DerivedOptOut] = []
        let names = DerivedFamily.allCases.map(\.rawValue)
        for (index, item) in items.enumerated() {
            let itemPath = path + "[\(index)]"
            guard let members = object(item, itemPath, allowed: DerivedOptOut.keys, example: "{\"family\": \"tamper\", \"why\": \"...\"}") else { continue }
            let name = string(members, "family", in: item, itemPath, required: true, example: "\"tamper\"")
            let why = string(members, "why", in: item, itemPath, required: true, example: "\"why no variant of this family fits the flow\"")
            var family: DerivedFamily?
            if let name, let node = members["family"]?.value {
                family = DerivedFamily(rawValue: name)
                if family == nil {
                    report(node, itemPath + ".family", "unknown family \(quoted(name))", fix: Suggestion.fix(for: name, in: names, listName: "families"))
                } else if optOuts.contains(where: { $0.family == family }) {
                    report(node, itemPath + ".family", "\(quoted(name)) is opted out of twice", fix: "keep one entry for it")
                    family = nil
                }
            }
            let reason = why?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if why != nil, let node = members["why"]?.value, reason.count < 10 {
                report(node, itemPath + ".why", "an opt-out needs a reason a reader can judge, found \(quoted(why ?? ""))", fix: "say why no \(name ?? "such") variant fits this flow, in a sentence")
            }
            if let family, reason.count >= 10, let why {
                optOuts.append(DerivedOptOut(family: family, why: why, location: item.location))
            }
        }
        return optOuts
    }
}
