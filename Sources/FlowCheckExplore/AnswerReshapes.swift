import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSpec

/// The documented-equivalent reshapes of a provider's answers, from the `answer` family's own
/// list (`DerivationProfile.answers`): a model arms them as persistent faults and predicts
/// exactly what it predicts without them, since a conforming client reads each as the
/// original (two unknown members, RFC 6749 §5.1; `expires_in` alone, seed 003; ...).
enum AnswerReshapes {
    struct Reshape: Sendable, Equatable {
        var path: String
        /// The reshape's fault kind.
        var kind: String

        /// The reach table's name for arming it.
        var reachName: String { "reshape.\(kind)@\(path)" }
    }

    /// The reshapes of `provider`'s answers on exact paths that apply to `fixture`.
    static func of(_ provider: Provider, fixture: any ProviderFixture) -> [Reshape] {
        guard let profile = ProviderRegistry.catalog.description(of: provider)?.derivation else { return [] }
        return profile.answers.filter { !$0.path.hasSuffix("/") }.flatMap { answer in
            answer.equivalent.filter { $0.appliesTo(fixture) }.map { Reshape(path: answer.path, kind: $0.fault) }
        }
    }

    /// The `fault` step that arms `reshape` until faults are cleared.
    static func step(_ reshape: Reshape) -> SpecJSON {
        .object([
            ("fault", .object([("kind", .string(reshape.kind)), ("path", .string(reshape.path))])),
            ("note", .string("From here on \(reshape.path) answers in a shape its documents allow (\(reshape.kind)): a conforming client reads it as the original, so every prediction stands.")),
        ])
    }
}
