import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

extension Provider {
    /// Moltin's client-credentials API (seed 003).
    public static let moltin = Provider("moltin")
}

/// Moltin (seed 003): client credentials for a token, the catalogue, refresh and delete.
public struct MoltinKit: ProviderKit {
    public init() {}

    public var id: Provider { .moltin }
    public var title: String { "Moltin (seed 003)" }
    public var seeds: [String] { ["003"] }

    public var actions: [Vocabulary.ActionSignature] { Self.actionList }

    /// Built once: the runner reads the actions for every step of every flow.
    private static let actionList: [Vocabulary.ActionSignature] = [
        .init(name: "auth", required: ["clientId", "clientSecret"], optional: [], summary: "the tutorial's Auth / Bad Auth: client credentials for a token", results: ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"], types: ["clientId": .text, "clientSecret": .text]),
        .init(name: "refreshToken", required: [], optional: [], summary: "the tutorial's Refresh Token exercise", results: ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"]),
        .init(name: "deleteToken", required: [], optional: [], summary: "the tutorial's Delete Token").clearingStore(),
        .init(name: "products", required: [], optional: [], summary: "the tutorial's Products", results: ["productCount", "productIds", "productTitles"]),
        .init(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
    ]

    /// No browser: seed 003's grants are client credentials and refresh tokens.
    public var externalBrowser: String? { nil }

    public var derivation: DerivationProfile {
        DerivationProfile(
            notApplicable: [.tamper: "seed 003's grants are client credentials and refresh tokens: no redirect or callback URL ever reaches the SDK"],
            logoutAction: "deleteToken",
            answers: [
                .init(path: FakeMoltin.tokenPath, equivalent: [
                    .init("unknownMembers", statuses: 200...499, why: "RFC 6749 §5.1 and §5.2: the client ignores value names it does not recognise"),
                    .init("withoutExpires", statuses: 200...299, why: "seed 003 documents expires and expires_in; an RFC 6749 §5.1 answer gives expires_in alone, which says when the token expires as well"),
                    .init("withoutExpiry", statuses: 200...299, why: "RFC 6749 §5.1: a server that leaves expires_in out documents its default, and seed 003 does: tokens last an hour",
                          appliesTo: { ($0 as? MoltinFixture)?.tokenLifetime == 3600 }),
                    .retryAfterDate,
                ]),
                .init(path: FakeMoltin.productsPath, equivalent: [
                    .init("errorsMember", statuses: 400...401, why: "seed 003's authErrorMessage reads the error text under error or errors"),
                    .init("withoutChallenge", statuses: 401...401, why: "seed 003 documents the expired-token answer by its body alone"),
                    .retryAfterDate,
                ]),
            ])
    }

    public var storeFields: [String] { ["accessToken", "refreshToken", "tokenType", "expiresAt", "scope"] }
    public var serverOperations: [String] { ["revokeTokens"] }

    public func makePersona(_ fixture: MoltinFixture) -> FakeMoltin {
        FakeMoltin(fixture: fixture)
    }

    public func perform(_ operation: String, on persona: FakeMoltin) throws(ProviderKitError) {
        guard operation == "revokeTokens" else { throw .unknownOperation(operation, provider: id) }
        persona.revokeAllTokens()
    }

    public var defaultServeFixture: String {
        #"{"clients": [{"id": "serve-client", "secret": "serve-secret-1234"}]}"#
    }
}

extension MoltinFixture: ProviderFixture {
    public var secrets: [String] { clients.map(\.secret) }
}
