/// What the spec format needs to know of a provider: its id and title, the app actions its
/// drivers understand, the fields of its token store, its server operations, how to decode its
/// fixture and the JSON Schema of that fixture.
///
/// The fake-server side of a provider (its persona) is added by `ProviderKit` in
/// FlowCheckProviders; the spec module knows only this description, so it depends on no fake.
public protocol ProviderDescription: Sendable {
    /// The id specs name it by.
    var id: Provider { get }
    /// How reports title its flows, e.g. "Moltin (seed 003)".
    var title: String { get }
    /// The numbers of the seed documents it encodes (`003` for `SEED-003-...` ids), first the
    /// main one: the examples a diagnostic gives a spec of this provider cite these.
    var seeds: [String] { get }
    /// The app actions a driver for this provider performs.
    var actions: [Vocabulary.ActionSignature] { get }
    /// The fields a driver reports from the SDK's token store.
    var storeFields: [String] { get }
    /// Server-side operations the provider's fake offers to specs (`"server": "revokeTokens"`).
    var serverOperations: [String] { get }
    /// Decodes a spec's `fixture` object, reporting every problem to `reader` (nil when invalid).
    func decodeFixture(_ node: JSONNode, at path: String, reader: SpecReader) -> (any ProviderFixture)?
    /// The JSON Schema of the fixture object, for the generated spec schema.
    var fixtureSchema: SchemaNode { get }
    /// The origins (hosts) its fake serves on, primary first, that a request expectation's
    /// `origin` may name: Clover's `api` and `web`; one for most providers.
    var origins: [String] { get }
    /// How the derived families judge its redirects and sessions. No default: a new provider
    /// says, or nothing compiles.
    var derivation: DerivationProfile { get }
    /// Why its documents let an SDK open the login in the device's own browser, which no app
    /// can close (so dismissal is not judged for a driver that says it does), or nil when they
    /// have the SDK present a page and dismiss it, or open none. No default, as ``derivation``.
    var externalBrowser: String? { get }
}

extension ProviderDescription {
    /// One origin, named `main`: nothing for a request's `origin` to tell apart.
    public var origins: [String] { ["main"] }
}

/// A decoded fixture: the provider fake's own data (one model, decoded straight from the spec).
public protocol ProviderFixture: Sendable {
    /// Every secret the fixture holds (passwords, client secrets): none may reach a report, and
    /// the harness judges leaks by them.
    var secrets: [String] { get }
    /// The secrets among ``secrets`` that must never leave the device in an SDK request
    /// (INV-SECRET-WIRE): a backend's client secret the seeds keep on the server, a low-trust
    /// app's secret, a user's password (typed into the provider's page, never given to the SDK).
    var serverOnlySecrets: [String] { get }
}

extension ProviderFixture {
    /// None, unless the provider's seeds say otherwise.
    public var serverOnlySecrets: [String] { [] }
}

/// The providers a load knows, looked up by id.
public struct ProviderCatalog: Sendable {
    /// In registration order: reports and the schema list them so.
    public let all: [any ProviderDescription]

    public init(_ all: [any ProviderDescription]) {
        self.all = all
    }

    /// The description registered under `id`.
    public func description(of id: Provider) -> (any ProviderDescription)? {
        all.first { $0.id == id }
    }

    /// Every registered id, in order.
    public var ids: [Provider] { all.map(\.id) }
}
