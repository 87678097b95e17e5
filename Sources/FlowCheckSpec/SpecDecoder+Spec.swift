import Foundation

extension SpecDecoder {
    // MARK: - Spec

    mutating func decodeSpec(_ root: JSONNode) -> FlowSpec? {
        let path = "$"
        guard let members = object(root, path, allowed: Self.topKeys, example: "{\"id\": \"MLT-AUTH\", \"title\": \"...\", ...}") else { return nil }
        // The fixture is read ahead of everything else (its problems are still listed in their
        // place below): its secrets are masked in every diagnostic of the file.
        let provider = providerToCheckAgainst(members)
        let fixtureReader = SpecReader(file: file)
        let fixtureMember = members["fixture"]
        let fixture = provider.flatMap { provider in fixtureMember.flatMap { provider.description.decodeFixture($0.value, at: "$.fixture", reader: fixtureReader) } }
        reader.registerSecrets(fixtureReader.secrets + (fixture?.secrets ?? []))
        let id = string(members, "id", in: root, path, required: true, example: "\"MLT-AUTH\"")
        if let id, let member = members["id"], !SpecPattern.catalogueID.matches(id) {
            report(member.value, "$.id", "id \(quoted(id)) is not a catalogue id", fix: "use an id of capitals, digits and dashes, a prefix then names, e.g. \"MLT-AUTH\"")
        }
        let title = string(members, "title", in: root, path, required: true, example: "\"Auth stores a token\"")
        let summary = string(members, "summary", in: root, path, required: false)
        if let schema = members["$schema"], case .string = schema.value.value {} else if let schema = members["$schema"] {
            typeMismatch(schema.value, "$[\"$schema\"]", expected: "a string", example: "\"../flowcheck.schema.json\"")
        }
        let source = members["source"].flatMap { decodeSource($0.value, "$.source") }
        if members["source"] == nil { missing("source", in: root, path, example: "{\"seed\": \"003_d427daaf6ba0e8e7.txt\", \"passage\": \"...\"}") }
        let requirements = decodeRequirements(members["requirements"], in: root, path, required: true, provider: provider?.description)

        if let name = string(members, "provider", in: root, path, required: true, example: "\"moltin\""), let member = members["provider"], provider?.isGuess != false {
            let guess = provider.map { "; the rest of this spec was checked as a \(quoted($0.description.id.rawValue)) spec" } ?? ""
            report(member.value, "$.provider", "unknown provider \(quoted(name))", fix: Suggestion.fix(for: name, in: providers.ids.map(\.rawValue), listName: "providers") + guess)
        }
        if let provider = provider?.description {
            defined.formUnion(Vocabulary.originVariables(provider.origins))
            if fixtureMember != nil {
                reader.append(contentsOf: fixtureReader)
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
        let notDerived = members["notDerived"].map { decodeNotDerived($0, "$.notDerived") } ?? []
        var steps: [Step] = []
        if let member = members["steps"] {
            if let items = array(member, "$.steps", example: "[{\"app\": \"auth\", ...}]") {
                if items.isEmpty {
                    report(member.value, "$.steps", "a flow needs at least one step", fix: "add a step, e.g. {\"app\": \"products\", \"expect\": {\"outcome\": \"ok\"}}")
                }
                for (i, item) in items.enumerated() {
                    capturedThisStep = []
                    let stepRequirements = decodeRequirements(item.members?.first { $0.key == "requirements" }, in: item, "$.steps[\(i)]", required: false, provider: provider?.description)
                    if var step = decodeStep(item, "$.steps[\(i)]", number: i + 1, provider: provider?.description) {
                        step.requirements = stepRequirements
                        steps.append(step)
                    }
                    defined.formUnion(capturedThisStep)
                }
            }
        } else {
            missing("steps", in: root, path, example: "[ ... ]")
        }
        for (label, call) in running.sorted(by: { $0.value.step < $1.value.step }) {
            report(call.node, call.path, "the background call \(quoted(label)) (step \(call.step)) is never awaited", fix: "add a step {\"await\": \"\(label)\"} after it, so its end is checked")
        }
        guard let id, let title, let source, let provider, !provider.isGuess, let fixture else { return nil }
        var spec = FlowSpec(file: file, id: id, title: title, summary: summary, source: source, provider: provider.description.id, fixture: fixture, decisions: decisions, steps: steps, location: root.location, requirements: requirements)
        spec.notDerived = notDerived
        return spec
    }

    /// A fixture file for `flowcheck serve`: an object whose keys are provider names and whose
    /// values are fixtures as specs write them.
    mutating func decodeFixtureSet(_ root: JSONNode) -> Result<[(Provider, any ProviderFixture)], FixtureSetError> {
        var fixtures: [(Provider, any ProviderFixture)] = []
        let names = providers.ids.map(\.rawValue)
        if let members = object(root, "$", allowed: names, example: "{\"moltin\": {\"clients\": [...]}}") {
            for provider in providers.all {
                guard let member = members[provider.id.rawValue] else { continue }
                if let fixture = provider.decodeFixture(member.value, at: "$." + provider.id.rawValue, reader: reader) { fixtures.append((provider.id, fixture)) }
            }
            if members.isEmpty { report(root, "$", "the fixture file names no provider", fix: "add at least one of \(names.joined(separator: ", "))") }
        }
        return reader.diagnostics.isEmpty ? .success(fixtures) : .failure(FixtureSetError(diagnostics: reader.diagnostics))
    }

    /// The provider the spec names or, when that is unknown, the one "did you mean" would
    /// suggest (`isGuess`): the rest of the spec is checked against it, so every problem shows
    /// in one pass rather than only after the provider's name is fixed.
    func providerToCheckAgainst(_ members: [String: JSONNode.Member]) -> (description: any ProviderDescription, isGuess: Bool)? {
        guard case .string(let name)? = members["provider"]?.value.value else { return nil }
        if let known = providers.description(of: Provider(name)) { return (known, false) }
        guard let guess = Suggestion.closest(to: name, in: providers.ids.map(\.rawValue)) else { return nil }
        return providers.description(of: Provider(guess)).map { ($0, true) }
    }

    func decodeSource(_ node: JSONNode, _ path: String) -> SourceReference? {
        guard let members = object(node, path, allowed: Self.sourceKeys, example: "{\"seed\": \"003_d427daaf6ba0e8e7.txt\", \"passage\": \"...\"}") else { return nil }
        // A seed file FlowCheck encodes, or a team's own document (a path or an http(s) URL).
        let document = string(members, "document", in: node, path, required: false)
        let seed = string(members, "seed", in: node, path, required: document == nil && members["document"] == nil, example: "\"003_d427daaf6ba0e8e7.txt\"")
        if let seed, let member = members["seed"], !SpecPattern.seedFile.matches(seed) {
            report(member.value, path + ".seed", "seed \(quoted(seed)) is not a seed file name", fix: "name one of the seed files, e.g. \"003_d427daaf6ba0e8e7.txt\", or cite your own document as \"document\": \"docs/login.md\"")
        }
        if members["seed"] != nil, let member = members["document"] {
            report(member.value, path + ".document", "a source is a seed or a document, not both", fix: "keep the one the flow encodes")
        }
        if let document, let member = members["document"], document.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            report(member.value, path + ".document", "document \(quoted(document)) holds a control character", fix: "name a file path or an http(s) URL on one line")
        }
        let passage = string(members, "passage", in: node, path, required: true, example: "\"Obtaining a new token\"")
        guard let text = seed ?? document, let passage else { return nil }
        return SourceReference(seed: text, passage: passage)
    }

}
