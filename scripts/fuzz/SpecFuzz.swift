// libFuzzer entry point for the spec loader.
//
// Compiled into the same module as Sources/FlowCheckSpec/*.swift (see scripts/fuzz.sh), so it
// reaches the loader without `import FlowCheckSpec`. The loader must turn any bytes into a spec
// or diagnostics, never trap: spec files come from users and from other teams' repositories.
//
// The real provider kits live in another module (FlowCheckProviders, over the fake server), so
// the loader here knows one provider of the fuzzer's own, "moltin", with actions of every
// argument type (and a dependent argument) and a fixture read through the same SpecReader the kits use.

struct FuzzFixture: ProviderFixture {
    var secrets: [String]
}

struct FuzzProvider: ProviderDescription {
    var id: Provider { Provider("moltin") }
    var title: String { "Fuzz" }
    var seeds: [String] { ["003"] }
    var actions: [Vocabulary.ActionSignature] {
        [
            .init(name: "auth", required: ["clientId", "clientSecret"], optional: [], summary: "auth", results: ["accessToken"]),
            .init(name: "products", required: [], optional: ["concurrent", "url", "name", "remove"], summary: "products", results: ["productCount", "fired."], types: ["concurrent": .count(1...64), "url": .url, "name": .oneOf(["a", "b"]), "remove": .listOf(["state", "code"])])
                .requiring("url", when: "name", is: ["b"]),
        ]
    }
    var storeFields: [String] { ["accessToken", "refreshToken"] }
    var serverOperations: [String] { ["revokeTokens"] }
    // Every family applies, so a decoded spec reaches the deriver's every path.
    var derivation: DerivationProfile { DerivationProfile(parameters: ["state": .bindsLogin, "code": .credential, "name": .required("fuzz")], logoutAction: "auth") }
    var externalBrowser: String? { nil }
    var fixtureSchema: SchemaNode { .closedObject([("clients", .array(of: .anyString))]) }

    func decodeFixture(_ node: JSONNode, at path: String, reader: SpecReader) -> (any ProviderFixture)? {
        guard let members = reader.object(node, path, allowed: ["clients", "tokenLifetime"]) else { return nil }
        var secrets: [String] = []
        for (item, itemPath) in reader.elements(members, "clients", in: node, path, example: "[]") {
            guard let fields = reader.object(item, itemPath, allowed: ["id", "secret"]) else { continue }
            _ = reader.string(fields, "id", in: item, itemPath, required: true)
            if let secret = reader.string(fields, "secret", in: item, itemPath, required: true), let member = fields["secret"] {
                reader.secret(secret, member.value, itemPath + ".secret")
                secrets.append(secret)
            }
        }
        _ = reader.integer(members["tokenLifetime"], path + ".tokenLifetime", range: 1...86_400, example: "3600")
        return FuzzFixture(secrets: secrets)
    }
}

/// A few ids of each shape the catalogue holds, so `requirements` lists reach both the
/// "known id" and the "unknown id, did you mean" paths.
let fuzzRequirements = RequirementCatalog(["RFC6749-4.1", "RFC6749-10.12", "RFC7636-4.6", "SEED-003-refresh", "SEED-001-full"])

@_cdecl("LLVMFuzzerTestOneInput")
public func specFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let loader = SpecLoader(providers: ProviderCatalog([FuzzProvider()]), requirements: fuzzRequirements)
    switch loader.decode(bytes, file: "fuzz.json") {
    case .valid(let spec):
        // Rendering touches every decoded value, as the runner and reports do; deriving its
        // variants walks every step as `flowcheck specs/` does.
        _ = String(describing: spec)
        for variant in Deriver.variants(of: [spec], providers: ProviderCatalog([FuzzProvider()])) { _ = variant.id }
        for warning in spec.warnings { _ = warning.description }
    case .invalid(let diagnostics):
        for diagnostic in diagnostics { _ = diagnostic.description }
    }
    do {
        let fixtures = try loader.decodeFixtures(bytes, file: "fixtures.json")
        _ = String(describing: fixtures)
    } catch {
        _ = "\(error)"
    }
    // The same bytes as a regex pattern: the engine must compile or refuse any text, and a
    // search must end within its budget (a small one here, to keep runs fast).
    if let pattern = String(validating: bytes, as: UTF8.self) {
        do {
            let regex = try LinearRegex(pattern)
            for value in regexFuzzValues { _ = regex.search(value, stepBudget: 200_000) }
            for warning in regex.portabilityWarnings { _ = warning.title(pattern: pattern) }
        } catch {
            _ = error.title(pattern: pattern) + error.fix
        }
    }
    return 0
}

/// Values the fuzzed patterns are searched in: empty, line ends, case variants, a long run.
let regexFuzzValues = ["", "a", "\r\n", "Bearer abc\n", "\u{212A}ſé\u{301}", String(repeating: "a", count: 2000) + "!"]
