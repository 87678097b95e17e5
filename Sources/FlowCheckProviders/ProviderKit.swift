import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

/// A provider as one unit: what specs may say of it (``ProviderDescription``: id, title,
/// actions, store fields, server operations, fixture decoding and schema) and its fake
/// persona, made from the fake's own fixture type (one model: the spec decodes straight into
/// it).
///
/// Adding a provider is a folder with its kit, its fake persona and its fixture type, plus one
/// line in ``ProviderRegistry/kits``; docs/architecture.md walks through it.
public protocol ProviderKit: ProviderDescription {
    /// The fake's own fixture type, decoded straight from the spec.
    associatedtype Fixture: ProviderFixture
    /// The fake persona answering requests.
    associatedtype Persona: FakeProvider

    /// Decodes a spec's `fixture` object, reporting every problem (with its place) to `reader`.
    func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> Fixture?
    /// A fresh persona over `fixture`, with no state from any other flow.
    func makePersona(_ fixture: Fixture) -> Persona
    /// Runs one of ``ProviderDescription/serverOperations`` on the persona.
    /// - Throws: ``ProviderKitError`` for an operation the persona does not offer.
    func perform(_ operation: String, on persona: Persona) throws(ProviderKitError)
    /// The fixture `flowcheck serve` uses when given none, as spec JSON (docs/serve.md).
    var defaultServeFixture: String { get }
}

extension ProviderKit {
    /// The persona's origins: what a request expectation's `origin` may name is what the fake
    /// really listens on.
    public var origins: [String] { Persona.origins }

    public func decodeFixture(_ node: JSONNode, at path: String, reader: SpecReader) -> (any ProviderFixture)? {
        decode(node, at: path, reader: reader)
    }

    /// A persona for a fixture this kit decoded, with its server operations bound.
    /// - Throws: ``ProviderKitError`` when the fixture belongs to another provider.
    public func makeFake(for fixture: any ProviderFixture) throws(ProviderKitError) -> FakePersona {
        guard let fixture = fixture as? Fixture else {
            throw ProviderKitError("a \(type(of: fixture)) is not a fixture of the \(id.rawValue) provider")
        }
        let persona = makePersona(fixture)
        return FakePersona(provider: persona) { [self] operation throws(ProviderKitError) in try perform(operation, on: persona) }
    }
}

/// A running persona and the server operations specs may ask of it.
public struct FakePersona: Sendable {
    /// The persona, to put behind a ``FakeProviderServer``.
    public let provider: any FakeProvider
    private let operation: @Sendable (String) throws(ProviderKitError) -> Void

    init(provider: any FakeProvider, operation: @escaping @Sendable (String) throws(ProviderKitError) -> Void) {
        self.provider = provider
        self.operation = operation
    }

    /// Runs a server operation named in a spec (`"server": "revokeTokens"`).
    /// - Throws: ``ProviderKitError`` for an operation the provider does not offer.
    public func perform(_ name: String) throws(ProviderKitError) {
        try operation(name)
    }
}

/// A provider kit asked for something it does not have.
public struct ProviderKitError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// An operation the provider does not offer.
    static func unknownOperation(_ name: String, provider: Provider) -> ProviderKitError {
        ProviderKitError("the \(provider.rawValue) fake has no server operation \"\(name)\"")
    }
}
