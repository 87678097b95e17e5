import Foundation

/// Turns a parsed JSON document into a ``FlowSpec``, collecting every problem it meets rather
/// than stopping at the first, so an author fixes a file in one pass.
struct SpecDecoder {
    let file: String
    let reader: SpecReader
    /// The providers a spec may name.
    let providers: ProviderCatalog
    /// The requirement ids a spec may cite.
    let requirements: RequirementCatalog
    /// Variables captured by earlier steps; a reference to any other is an error.
    var defined: Set<String> = Set(Vocabulary.builtinVariables)
    var capturedThisStep: Set<String> = []
    /// Background calls started with `"async"` and not yet awaited, by label.
    var running: [String: BackgroundCall] = [:]
    /// Labels already awaited, with the step that awaited them.
    var awaited: [String: Int] = [:]
    /// The step of a `hold` fault that may hold more than one request (`times` not 1): a
    /// `release` could not tell which of them is its call's.
    var manyHolds: Int?
    /// The app action of each awaited label (its results are what the await may check).
    var awaitedLabels: [String: String] = [:]
    /// Whether an earlier step checked `storeFiles`: `replacedByRename` compares with what that
    /// check saw, and with no earlier check it would have nothing to compare.
    var storeFilesSeen = false

    /// A call started with `"async": LABEL`, as the decoder tracks it until its `await`.
    struct BackgroundCall {
        var step: Int
        var action: String
        var node: JSONNode
        var path: String
    }

    init(file: String, providers: ProviderCatalog, requirements: RequirementCatalog) {
        self.file = file
        self.reader = SpecReader(file: file)
        self.providers = providers
        self.requirements = requirements
    }

    /// The keys of a spec's top-level object.
    enum TopLevelKey: String, CaseIterable {
        case schema = "$schema", id, title, summary, source, requirements, provider, fixture, decisions, notDerived, steps
    }

    static let topKeys = TopLevelKey.allCases.map(\.rawValue)
    static let sourceKeys = ["seed", "document", "passage"]
    static let stepKeys = ["note"] + actionKeys.prefix(2) + ["with", "async"] + actionKeys.dropFirst(2) + ["expect", "requirements", "allow"]
    static let actionKeys = ActionKind.allCases.map(\.rawValue)
    static let faultKeys = ["kind", "path", "times", "clockAdvance"]
    static let sendKeys = ["method", "path", "headers", "json", "form"]

    /// Decodes a document; returns the spec or every diagnostic found.
    mutating func decode(_ root: JSONNode) -> SpecFile {
        let spec = decodeSpec(root)
        if var spec, reader.diagnostics.isEmpty {
            spec.warnings = reader.warnings
            return .valid(spec)
        }
        return .invalid(reader.diagnostics)
    }

    static func parseDuration(_ text: String) -> Int? {
        guard !text.isEmpty, SpecPattern.duration.matches(text) else { return nil }
        var total = 0
        var number = 0
        for character in text {
            if let digit = character.wholeNumberValue {
                number = number * 10 + digit
                if number > 10_000_000 { return nil }
            } else {
                total += number * (character == "h" ? 3600 : character == "m" ? 60 : 1)
                number = 0
            }
        }
        return total
    }
}
