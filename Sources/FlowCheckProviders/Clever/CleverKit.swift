import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

extension Provider {
    /// Clever Instant Login for iOS (seed 004).
    public static let clever = Provider("clever")
}

/// Clever Instant Login (seed 004): a state per login, the custom-scheme redirect, the token.
public struct CleverKit: ProviderKit {
    public init() {}

    public var id: Provider { .clever }
    public var title: String { "Clever Instant Login (seed 004)" }
    public var seeds: [String] { ["004"] }

    public var actions: [Vocabulary.ActionSignature] { Self.actionList }

    /// Built once: the runner reads the actions for every step of every flow.
    private static let actionList: [Vocabulary.ActionSignature] = [
        .init(name: "startLogin", required: ["clientId", "redirectURI"], optional: [], summary: "steps 2 and 3: a fresh state, then the authorize URL in the browser", results: [], types: ["clientId": .text, "redirectURI": .url]),
        .init(name: "receiveRedirect", required: ["url"], optional: [], summary: "step 4: the custom redirect URL the app was opened with", results: ["tokenType"], types: ["url": .url]).endingLogin(),
        .init(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
    ]

    public var storeFields: [String] { ["accessToken", "tokenType"] }

    public var externalBrowser: String? {
        "seed 004: \"If your app is running on iOS 11, you should open this URL using Safari\", which an app cannot close"
    }

    public var derivation: DerivationProfile {
        DerivationProfile(
            parameters: ["state": .bindsLogin, "code": .credential],
            injectedCredentials: .ignored,
            notApplicable: [
                .interleave: "seed 004's SDK has no logout and no renewal: a login's one request (the code exchange) has nothing to race",
                .storeCrash: "seed 004's SDK has no logout, so a session cannot be ended to see what a crashed write left (a relaunch alone keeps the token, crash or not)",
            ],
            replaysRefused: "seed 004: the state is all that binds a redirect to its login (no PKCE), so once that login has ended (exchanged, denied or failed) its state is spent, and a redirect carrying it again is a replay or a forgery (RFC 6749 §10.12)",
            answers: [.init(path: FakeClever.tokenPath, equivalent: [.init("unknownMembers", statuses: 200...499, why: "RFC 6749 §5.1 and §5.2: the client ignores value names it does not recognise")])])
    }
    public var serverOperations: [String] { ["revokeTokens"] }

    public func makePersona(_ fixture: CleverFixture) -> FakeClever {
        FakeClever(fixture: fixture)
    }

    public func perform(_ operation: String, on persona: FakeClever) throws(ProviderKitError) {
        guard operation == "revokeTokens" else { throw .unknownOperation(operation, provider: id) }
        persona.revokeAllTokens()
    }

    public var defaultServeFixture: String {
        """
        {
            "clients": [{"id": "serve-clever", "redirectURL": "clever-serve://oauth"}],
            "users": [{"email": "student@example.edu", "password": "serve-password-2"}]
          }
        """
    }
}

extension CleverFixture: ProviderFixture {
    public var secrets: [String] { users.map(\.password) }
    /// Users' passwords go to Clever's page, never through the SDK.
    public var serverOnlySecrets: [String] { secrets }
}

/// How a spec writes a ``CleverFixture``: iOS-platform clients with their custom redirect URLs,
/// and users who log in.
extension CleverKit {
    static let fixtureKeys = ["clients", "users"]
    static let clientKeys = ["id", "redirectURL"]
    static let userKeys = ["email", "password"]

    public func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> CleverFixture? {
        guard let members = reader.object(node, path, allowed: Self.fixtureKeys) else { return nil }
        var clients: [CleverFixture.Client] = []
        for (item, itemPath) in reader.elements(members, "clients", in: node, path, example: "[{\"id\": \"CLE1\", \"redirectURL\": \"clever-cle1://oauth\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.clientKeys) else { continue }
            let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"CLE1\"")
            let redirect = reader.string(fields, "redirectURL", in: item, itemPath, required: true, example: "\"clever-cle1://oauth\"")
            if let id, let redirect { clients.append(.init(id: id, redirectURL: redirect)) }
        }
        var users: [CleverFixture.User] = []
        for (item, itemPath) in reader.elements(members, "users", in: node, path, example: "[{\"email\": \"student@example.com\", \"password\": \"...\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.userKeys) else { continue }
            let email = reader.string(fields, "email", in: item, itemPath, required: true, example: "\"student@example.com\"")
            let password = reader.string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
            if let password { reader.secret(password, fields["password"]!.value, itemPath + ".password") }
            if let email, let password { users.append(.init(email: email, password: password)) }
        }
        return CleverFixture(clients: clients, users: users)
    }

    public var fixtureSchema: SchemaNode {
        .closedObject([
            ("clients", .array(of: .closedObject([("id", .nonEmptyString), ("redirectURL", .nonEmptyString)], required: Self.clientKeys))),
            ("users", .array(of: .closedObject([("email", .nonEmptyString), ("password", .secret)], required: Self.userKeys))),
        ], required: ["clients", "users"])
    }
}
