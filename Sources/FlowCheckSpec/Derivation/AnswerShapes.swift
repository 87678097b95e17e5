/// The `answer` family: every answer the SDK reads (``DerivationProfile/answers``), where a
/// flow's call gets it,
///
/// - **garbled**: a truncated JSON document, an HTML page or a JSON object of none of its shapes
///   sent with 200, from then until the call ends. The call fails with an error value; when the garbled answer is the call's
///   first, the store is as it was (nothing the call could have learnt was written, nothing
///   deleted). The variant ends with the call.
/// - **reshaped** as the provider's documents allow (a member the client does not know, one
///   of two documented expiry fields, the error text under its other documented name, a
///   `Retry-After` as the date it names): from
///   the first call that gets such an answer to the end of the flow, the flow's own
///   expectations hold unchanged.
enum AnswerShapes {
    static let garbled = DerivedRule(
        id: "DRV-GARBLED",
        statement: "an answer the SDK cannot read (a truncated JSON document, an HTML page sent with 200, a JSON object of none of its shapes) is an error value: the call fails, never with a crash or a made-up default, and when it is the call's first answer the store stays as it was",
        requirements: ["SEED-003-errors", "RFC6749-5.1"])
    static let same = DerivedRule(
        id: "DRV-ANSWER-SAME",
        statement: "an answer in another shape its documents allow (a member the client does not know, RFC 6749 §5.1 and §5.2; Moltin's expiry by expires_in alone, or left out where its documented default of an hour holds; its error text under errors; an expired-token answer known by its documented body, without a challenge; a Retry-After as the HTTP-date it names instead of delay-seconds, RFC 9110 §10.2.3) behaves exactly as the original",
        requirements: ["RFC6749-5.1", "RFC6749-5.2", "SEED-003-invalid-token", "RFC9110-10.2.3"])

    /// The garbling faults, each a fault kind the fake server answers with.
    static let garblings: [(fault: String, words: String)] = [
        ("truncatedJSON", "a truncated JSON document"), ("nonJSONBody", "an HTML page sent with 200"), ("otherJSON", "a JSON object of none of its shapes, sent with 200"),
    ]

    static func derive(_ spec: FlowSpec, provider: any ProviderDescription) -> [Deriver.Candidate] {
        let answers = provider.derivation.answers
        guard !answers.isEmpty else { return [] }
        let logout = provider.derivation.logoutAction
        var candidates: [Deriver.Candidate] = []
        // Where each reshape of each answer starts, by the answer's path and the reshape: two
        // answers may list the same reshape (Clover's token and refresh answers).
        var reshapeStarts: [String: (index: Int, path: String)] = [:]
        for (index, step) in spec.steps.enumerated() {
            guard case .app(let name, _)? = step.action, step.background == nil, let expect = step.expect,
                  let requests = expect.checks.lazy.compactMap({ check -> [RequestExpectation]? in
                      if case .requests(let list) = check { return list } else { return nil }
                  }).first else { continue }
            var seen = Set<String>()
            for (position, request) in requests.enumerated() where !request.isOptional {
                guard let (method, path) = Interleavings.literal(request), let answer = answers.first(where: { $0.matches(path) }) else { continue }
                let status = request.checks.lazy.compactMap { check -> Int? in if case .status(let status) = check { return status } else { return nil } }.first
                for shape in answer.equivalent where reshapeStarts[answer.path + " " + shape.fault] == nil && shape.appliesTo(spec.fixture) {
                    if let status, shape.statuses.contains(where: { $0.contains(status) }) { reshapeStarts[answer.path + " " + shape.fault] = (index, path) }
                }
                // Garbled where the call was to succeed with this answer, no fault of the
                // flow's own stands in the way, and the call is not the session's end (which a
                // garbled answer to a revocation need not fail).
                guard expect.effectiveOutcome == .ok, name != logout, (200..<300).contains(status ?? 200),
                      !faultArmed(spec, before: index), seen.insert(path).inserted else { continue }
                let slug = "\(method)-" + path.split(separator: "/").joined(separator: "-")
                for garbling in garblings {
                    let derivation = Derivation(parent: spec.id, family: .answer, variant: "step\(step.number).\(slug).\(garbling.fault)", rule: garbled,
                                                description: "step \(step.number)'s \(method) \(path) answered with \(garbling.words)")
                    candidates.append(Deriver.candidate(spec, steps: garble(spec, at: index, path: path, fault: garbling.fault, first: position == 0, derivation: derivation),
                                                        attacked: index, derivation: derivation, kind: "\(name).\(slug).\(garbling.fault)"))
                }
            }
        }
        for answer in answers {
            for shape in answer.equivalent {
                guard let start = reshapeStarts[answer.path + " " + shape.fault] else { continue }
                let slug = start.path.split(separator: "/").joined(separator: "-")
                let derivation = Derivation(parent: spec.id, family: .answer, variant: "\(slug).\(shape.fault)", rule: same,
                                            description: "every answer to \(start.path) from step \(spec.steps[start.index].number) on reshaped (\(shape.fault): \(shape.why))")
                var steps = Array(spec.steps[..<start.index])
                steps.append(Step(number: 0, location: spec.steps[start.index].location,
                                  note: "Derived (\(same.id)): from here every answer to \(start.path) is reshaped (\(shape.fault)): \(shape.why); the flow's expectations hold unchanged.",
                                  action: .fault(FaultSpec(kind: shape.fault, path: start.path))))
                steps += spec.steps[start.index...]
                candidates.append(Deriver.candidate(spec, steps: steps, attacked: start.index, derivation: derivation, kind: "\(slug).\(shape.fault)"))
            }
        }
        return candidates
    }

    /// Whether a fault step of the flow's own may still be armed before step `index` (none
    /// cleared since): its answer would win over the garbling one, or hold the request.
    static func faultArmed(_ spec: FlowSpec, before index: Int) -> Bool {
        var armed = false
        for step in spec.steps[..<index] {
            switch step.action {
            case .fault?: armed = true
            case .clearFaults?: armed = false
            default: break
            }
        }
        return armed
    }

    /// The flow up to the call, the garbling fault (until the flow's end, so a retry meets it
    /// too), and the call, which must fail.
    static func garble(_ spec: FlowSpec, at index: Int, path: String, fault: String, first: Bool, derivation: Derivation) -> [Step] {
        let original = spec.steps[index]
        var judged = original
        judged.expect = Expectation([.error([])] + (first ? [.storeUnchanged] : []))
        judged.note = "Derived (\(derivation.rule.id)): \(derivation.rule.statement)."
        judged.requirements = original.requirements + derivation.rule.requirements.filter { !original.requirements.contains($0) }
        return Array(spec.steps[..<index]) + [
            Step(number: 0, location: original.location, note: "Derived: every answer to \(path) is garbled from here (\(fault)).",
                 action: .fault(FaultSpec(kind: fault, path: path)), allow: original.allow),
            judged,
        ]
    }
}
