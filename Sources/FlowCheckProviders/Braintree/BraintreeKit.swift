import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

extension Provider {
    /// Braintree's client-side connect flow (seed 002).
    public static let braintree = Provider("braintree")
}

/// Braintree client-side connect (seed 002): the merchant's server holds the secret; the app
/// only opens the connect URL and trusts the return URL.
public struct BraintreeKit: ProviderKit {
    public init() {}

    public var id: Provider { .braintree }
    public var title: String { "Braintree client-side connect (seed 002)" }
    public var seeds: [String] { ["002"] }

    public var actions: [Vocabulary.ActionSignature] { Self.actionList }

    /// Built once: the runner reads the actions for every step of every flow.
    private static let actionList: [Vocabulary.ActionSignature] = [
        .init(name: "connect", required: ["returnURL"], optional: [], summary: "the Connect with Braintree button: the connect URL from the merchant's server, opened in the in-app browser", results: [], types: ["returnURL": .url]),
        .init(name: "openURL", required: ["url", "returnURL"], optional: [], summary: "the AppDelegate's open-URL handler with its trusted-source check", results: ["handled"], types: ["url": .url, "returnURL": .url]).endingLogin(.unlessResult(field: "handled", is: "false")),
        .init(name: "status", required: [], optional: [], summary: "reads the notifications posted so far", results: ["connected", "failed", "lastMerchant", "lastError"]),
    ]

    /// The device holds no token in the Braintree flow: there is nothing to store.
    /// Seed 002 presents the connect page in an SFSafariViewController and dismisses it in the
    /// return callback: dismissal is judged whatever browser a driver says it uses.
    public var externalBrowser: String? { nil }

    public var derivation: DerivationProfile {
        DerivationProfile(
            parameters: ["merchant_id": .required("seed 002: the return URL names the merchant that connected (SEED-002-trusted: 'with its expected parameters'); which merchant it is, the SDK has nothing to check against")],
            injectedCredentials: .refused(because: "seed 002: the merchant server keeps the token; a return URL carrying one is not from the trusted source (BT-UNTRUSTED step 7)", requirements: ["SEED-002-trusted"]),
            notApplicable: [
                .interleave: "the device keeps no token (seed 002: the merchant server holds it), so there is no session to resurrect",
                .storeCrash: "the device keeps no token (seed 002: the merchant server holds it), so it writes no store to crash",
            ],
            // The merchant server reads the token answers (seed 002); the device reads the
            // connect URL its backend gives.
            answers: [.init(path: FakeBraintreeConnect.connectURLPath)])
    }

    public var storeFields: [String] { [] }
    public var serverOperations: [String] { ["revokeTokens"] }

    public func makePersona(_ fixture: BraintreeFixture) -> FakeBraintreeConnect {
        FakeBraintreeConnect(fixture: fixture)
    }

    public func perform(_ operation: String, on persona: FakeBraintreeConnect) throws(ProviderKitError) {
        guard operation == "revokeTokens" else { throw .unknownOperation(operation, provider: id) }
        persona.revokeAllTokens()
    }

    public var defaultServeFixture: String {
        """
        {
            "clientId": "serve-braintree", "clientSecret": "serve-bt-secret-1",
            "merchants": [{"id": "SERVE-MERCHANT", "email": "owner@example.com", "password": "serve-password-3"}],
            "returnURL": "com.example.merchantapp:/braintree"
          }
        """
    }
}

extension BraintreeFixture: ProviderFixture {
    public var secrets: [String] { [clientSecret] + merchants.map(\.password) }
    /// The client secret lives on the merchant's server (seed 002: "never on the device"), and
    /// merchants' passwords go to Braintree's page.
    public var serverOnlySecrets: [String] { secrets }
}

/// How a spec writes a ``BraintreeFixture``: the merchant backend's OAuth client, merchants who
/// approve, and the app's return URL.
extension BraintreeKit {
    static let fixtureKeys = ["clientId", "clientSecret", "merchants", "returnURL"]
    static let optionalFixtureKeys = ["backendConnectURLs"]
    static let merchantKeys = ["id", "email", "password"]
    static let backendConnectURLsExample = "[\"http://connect.example.com/braintree/oauth/connect\"]"

    public func decode(_ node: JSONNode, at path: String, reader: SpecReader) -> BraintreeFixture? {
        guard let members = reader.object(node, path, allowed: Self.fixtureKeys + Self.optionalFixtureKeys) else { return nil }
        let clientID = reader.string(members, "clientId", in: node, path, required: true, example: "\"bt-client-1\"")
        let clientSecret = reader.string(members, "clientSecret", in: node, path, required: true, example: "\"...\"")
        if let clientSecret { reader.secret(clientSecret, members["clientSecret"]!.value, path + ".clientSecret") }
        let returnURL = reader.string(members, "returnURL", in: node, path, required: true, example: "\"examplescheme://braintree\"")
        if let returnURL, URL(string: returnURL)?.scheme == nil {
            reader.report(members["returnURL"]!.value, path + ".returnURL", "returnURL \(reader.quoted(returnURL)) has no scheme", fix: "write the app's custom URL, e.g. \"examplescheme://braintree\" or \"com.example.app:/braintree\"")
        }
        var backendConnectURLs: [String] = []
        if let member = members["backendConnectURLs"], let items = reader.array(member, path + ".backendConnectURLs", example: Self.backendConnectURLsExample) {
            if items.isEmpty {
                reader.report(member.value, path + ".backendConnectURLs", "an empty backendConnectURLs changes nothing", fix: "remove it to hand out the backend's own connect URL, or list the URLs to hand out first, e.g. \(Self.backendConnectURLsExample)")
            }
            for (index, item) in items.enumerated() {
                let itemPath = path + ".backendConnectURLs[\(index)]"
                guard case .string(let text) = item.value else {
                    reader.typeMismatch(item, itemPath, expected: "a string", example: "\"http://connect.example.com/braintree/oauth/connect\"")
                    continue
                }
                if URL(string: text)?.scheme == nil || text.contains(where: \.isWhitespace) {
                    reader.report(item, itemPath, "\(reader.quoted(text)) is not an absolute URL", fix: "write it with a scheme and no spaces, e.g. \"http://connect.example.com/braintree/oauth/connect\" or \"examplescheme://connect\"")
                    continue
                }
                backendConnectURLs.append(text)
            }
        }
        var merchants: [BraintreeFixture.Merchant] = []
        for (item, itemPath) in reader.elements(members, "merchants", in: node, path, example: "[{\"id\": \"M1\", \"email\": \"owner@example.com\", \"password\": \"...\"}]") {
            guard let fields = reader.object(item, itemPath, allowed: Self.merchantKeys) else { continue }
            let id = reader.string(fields, "id", in: item, itemPath, required: true, example: "\"M1\"")
            let email = reader.string(fields, "email", in: item, itemPath, required: true, example: "\"owner@example.com\"")
            let password = reader.string(fields, "password", in: item, itemPath, required: true, example: "\"...\"")
            if let password { reader.secret(password, fields["password"]!.value, itemPath + ".password") }
            if let id, let email, let password { merchants.append(.init(id: id, email: email, password: password)) }
        }
        guard let clientID, let clientSecret, let returnURL else { return nil }
        return BraintreeFixture(clientID: clientID, clientSecret: clientSecret, merchants: merchants, returnURL: returnURL, backendConnectURLs: backendConnectURLs)
    }

    public var fixtureSchema: SchemaNode {
        .closedObject([
            ("clientId", .nonEmptyString),
            ("clientSecret", .secret),
            ("merchants", .array(of: .closedObject([("id", .nonEmptyString), ("email", .nonEmptyString), ("password", .secret)], required: Self.merchantKeys))),
            ("returnURL", .pattern("^[A-Za-z][A-Za-z0-9+.-]*:", description: "The app's custom URL, with a scheme.")),
            ("backendConnectURLs", .array(of: .pattern("^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]*$", description: "An absolute URL the merchant's backend hands out verbatim."), minItems: 1)),
        ], required: Self.fixtureKeys)
    }
}
