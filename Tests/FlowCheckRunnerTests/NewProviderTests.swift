import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec

/// A provider is one unit: this file adds a whole provider (fixture type, persona, kit) and
/// runs a spec against it with nothing else changed: no switch in the spec module, the runner
/// or the reports learns of it. The registry line is the `providers:` list below.
@Suite(.integration, .timeLimit(.minutes(20)))
struct NewProviderTests {
    /// The fake's own fixture type; the spec decodes straight into it.
    struct EchoFixture: ProviderFixture, Equatable {
        var greeting: String
        var apiKey: String
        var secrets: [String] { [apiKey] }
    }

    /// Answers `GET /hello` with the greeting to a caller that sends the API key.
    final class FakeEcho: FakeProvider, @unchecked Sendable {
        let fixture: EchoFixture
        private let revoked = Locked(false)
        init(fixture: EchoFixture) { self.fixture = fixture }
        var name: String { "echo" }
        var issuedSecrets: [String] { [] }
        func revoke() { revoked.withLock { $0 = true } }
        func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
            guard request.headers["X-Api-Key"] == fixture.apiKey, !revoked.withLock({ $0 }) else { return .json(401, ["error": "bad key"]) }
            return .json(200, ["greeting": fixture.greeting])
        }
    }

    struct EchoKit: ProviderKit {
        var id: Provider { Provider("echo") }
        var title: String { "Echo (a provider added by a test)" }
        var seeds: [String] { ["003"] }
        var actions: [Vocabulary.ActionSignature] { [.init(name: "hello", required: [], optional: [], summary: "asks for the greeting", results: ["greeting"])] }
        var storeFields: [String] { [] }
        var derivation: DerivationProfile { DerivationProfile(notApplicable: [.tamper: "the echo provider has no redirect", .interleave: "the echo provider keeps no session", .storeCrash: "the echo provider keeps no store"]) }
        var externalBrowser: String? { nil }
        var serverOperations: [String] { ["revokeKeys"] }
        var defaultServeFixture: String { #"{"greeting": "hi", "apiKey": "echo-key-123"}"# }
        var fixtureSchema: SchemaNode { .closedObject([("greeting", .nonEmptyString), ("apiKey", .secret)], required: ["greeting", "apiKey"]) }

        func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> EchoFixture? {
            guard let members = reader.object(node, path, allowed: ["greeting", "apiKey"]) else { return nil }
            let greeting = reader.string(members, "greeting", in: node, path, required: true)
            let key = reader.string(members, "apiKey", in: node, path, required: true)
            if let key, let member = members["apiKey"] { reader.secret(key, member.value, path + ".apiKey") }
            guard let greeting, let key else { return nil }
            return EchoFixture(greeting: greeting, apiKey: key)
        }

        func makePersona(_ fixture: EchoFixture) -> FakeEcho { FakeEcho(fixture: fixture) }

        func perform(_ operation: String, on persona: FakeEcho) throws(ProviderKitError) {
            guard operation == "revokeKeys" else { throw ProviderKitError("no \(operation)") }
            persona.revoke()
        }
    }

    /// A driver for an SDK that speaks to Echo with URLSession.
    struct EchoDriver: FlowDriver {
        var name: String { "echo driver" }
        func makeSession(for context: DriverContext) async throws -> any FlowSession { EchoSession(baseURL: context.baseURL) }
    }

    final class EchoSession: FlowSession, @unchecked Sendable {
        let baseURL: URL
        init(baseURL: URL) { self.baseURL = baseURL }
        func perform(_ call: AppCall) async throws -> CallOutcome {
            var request = URLRequest(url: baseURL.appendingPathComponent("hello"), timeoutInterval: 10)
            request.setValue("echo-key-123", forHTTPHeaderField: "X-Api-Key")
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { return .error(kind: "tokenRejected", message: "refused") }
            let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
            return .ok(["greeting": object?["greeting"] ?? ""])
        }
        func storeContents() async throws -> [String: String] { [:] }
        func close() async {}
    }

    static let spec = """
    {
      "id": "ECHO-HELLO",
      "title": "A provider added in one file",
      "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "none"}, "requirements": ["RFC6750-2.1"],
      "provider": "echo",
      "fixture": {"greeting": "hello there", "apiKey": "echo-key-123"},
      "steps": [
        {"app": "hello", "expect": {"result": {"greeting": "hello there"}, "requests": [{"method": "GET", "path": "/hello", "status": 200}]}},
        {"server": "revokeKeys"},
        {"app": "hello", "expect": {"error": {"kind": "tokenRejected"}}}
      ]
    }
    """

    static let providers: [any ProviderKit] = ProviderRegistry.kits + [EchoKit()]

    @Test("a spec naming the new provider loads and runs with no other change")
    func aNewProviderRunsEndToEnd() async throws {
        let loader = SpecLoader(kits: Self.providers)
        guard case .valid(let spec) = loader.decode(Array(Self.spec.utf8), file: "echo.json") else {
            Issue.record("the echo spec did not load: \(loader.decode(Array(Self.spec.utf8), file: "echo.json"))")
            return
        }
        var options = FlowRunner.Options(concurrency: 1)
        options.providers = Self.providers
        let result = await FlowRunner(driver: EchoDriver(), options: options).run(spec)
        #expect(result.status == .passed, "\(result.failures.map(\.message)) \(result.errorMessage ?? "")")
        #expect(result.providerTitle == "Echo (a provider added by a test)")
        #expect(result.steps.first?.action?.contains("asks for the greeting") == true)
    }

    @Test("its fixture errors keep file, line:column and path, and its words are checked")
    func itsFixtureAndWordsAreChecked() {
        let loader = SpecLoader(kits: Self.providers)
        let broken = Self.spec.replacingOccurrences(of: #""apiKey": "echo-key-123"}"#, with: #""apiKey": "short"}"#)
            .replacingOccurrences(of: #"{"app": "hello", "expect": {"error""#, with: #"{"app": "helo", "expect": {"error""#)
        guard case .invalid(let problems) = loader.decode(Array(broken.utf8), file: "echo.json") else {
            Issue.record("a broken echo spec loaded")
            return
        }
        #expect(problems.map(\.description).contains { $0.hasPrefix("echo.json:6:") && $0.contains("$.fixture.apiKey") && $0.contains("cannot be masked") })
        #expect(problems.map(\.description).contains { $0.contains("unknown app action \"helo\"") && $0.contains("did you mean \"hello\"") })
    }

    @Test("the standard registry does not know it: a spec naming it is a located error")
    func unregisteredProvidersAreRefused() {
        guard case .invalid(let problems) = SpecLoader.standard.decode(Array(Self.spec.utf8), file: "echo.json") else {
            Issue.record("an unregistered provider loaded")
            return
        }
        #expect(problems.first?.description.contains("unknown provider \"echo\"") == true)
    }
}
