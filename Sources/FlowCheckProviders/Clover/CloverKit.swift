import Foundation
import FlowCheckFakeServer
import FlowCheckSpec

extension Provider {
    /// Clover Go's Full, Partial and No OAuth (seeds 000 and 001).
    public static let clover = Provider("clover")
}

/// Clover Go (seeds 000, 001): Full, Partial and No OAuth, token callbacks, refresh, logout.
public struct CloverKit: ProviderKit {
    public init() {}

    public var id: Provider { .clover }
    public var title: String { "Clover Go (seeds 000, 001)" }
    public var seeds: [String] { ["000", "001"] }

    public var actions: [Vocabulary.ActionSignature] { Self.actionList }

    /// Built once: the runner reads the actions for every step of every flow.
    private static let actionList: [Vocabulary.ActionSignature] = [
        .init(name: "addTokenCallback", required: ["label"], optional: [], summary: "addOnTokenChangeCallback; the driver counts its calls under the label", results: ["id"], types: ["label": .text]),
        .init(name: "removeTokenCallback", required: ["label"], optional: [], summary: "removeOnTokenChangeCallback with the id the label was given (an unknown label passes an unknown id)", results: ["removed"], types: ["label": .text]),
        .init(name: "setupFull", required: ["appId", "appSecret", "redirectURI"], optional: [], summary: "setup with FullOAuth(redirectURI)", results: ["outcome", "merchantId", "merchantName"], types: ["appId": .text, "appSecret": .text, "redirectURI": .url]),
        .init(name: "setupPartial", required: ["appId", "appSecret"], optional: ["code", "codeVerifier", "merchantId"], summary: "setup with PartialOAuth(codeResponse), nil when no code is given", results: ["outcome", "merchantId", "merchantName"], types: ["appId": .text, "appSecret": .text, "code": .text, "codeVerifier": .text, "merchantId": .text]),
        .init(name: "setupNone", required: ["appId", "appSecret", "token", "merchantId"], optional: [], summary: "setup with NoOAuth(token)", results: ["outcome", "merchantId", "merchantName"], types: ["appId": .text, "appSecret": .text, "token": .text, "merchantId": .text]),
        .init(name: "receiveRedirect", required: ["url"], optional: [], summary: "receivedOAuthCodeOrToken with the URL the app was opened with", types: ["url": .url]).endingLogin(),
        .init(name: "updateToken", required: ["token"], optional: [], summary: "updateToken in No OAuth", types: ["token": .text]),
        .init(name: "logout", required: [], optional: [], summary: "logout").clearingStore(),
        .init(name: "status", required: [], optional: [], summary: "reads isLoggedIn and how often each callback fired", results: ["isLoggedIn", "fired."]),
        .init(name: "merchant", required: [], optional: ["concurrent"], summary: "an API call that needs the token: the merchant, by several callers at once when concurrent is given", results: ["merchantId", "merchantName", "calls"], types: ["concurrent": .count(Self.concurrentCallers)]),
        .init(name: "codeChallenge", required: [], optional: [], summary: "the SDK's code-challenge helper for Partial OAuth apps", results: ["codeVerifier", "codeChallenge", "codeChallengeMethod"]),
        .init(name: "environment", required: ["name"], optional: ["baseURL"], summary: "resolves an environment (sandbox, production, or custom with a base URL) to its hosts", results: ["webHost", "apiHost"], types: ["name": .oneOf(["sandbox", "production", "custom"]), "baseURL": .url])
            // The driver reads baseURL for a custom environment only.
            .requiring("baseURL", when: "name", is: ["custom"]),
        .init(name: "relaunch", required: [], optional: [], summary: "a relaunch: a new SDK instance over the same token store"),
    ]

    /// How many callers `merchant`'s `concurrent` may start at once. The driver starts one task
    /// and one request per caller; the point is that they share one refresh, which 2 callers
    /// already show. 64 stays far inside the per-flow time limit with every core running flows
    /// (measured on a debug build: 64 callers 0.2 s, 5,000 callers 4 s for one flow alone;
    /// 100,000 ran into the 30 s watchdog).
    public static let concurrentCallers = 1...64

    public var externalBrowser: String? {
        "seed 000: the SDK \"will call out to an external browser with the Clover login page\" (the device's default browser), which an app cannot close"
    }

    public var derivation: DerivationProfile {
        DerivationProfile(
            parameters: [
                "state": .bindsLogin, "code": .credential,
                "client_id": .unjudged("seed 000 hands the whole URL to receivedOAuthCodeOrToken and says nothing of comparing its client_id; the exchange carries the app's own"),
                "merchant_id": .required("seed 000: the redirect names the merchant the session is for; which merchant it is, the SDK has nothing to check against before the exchange"),
            ],
            injectedCredentials: .ignored,
            logoutAction: "logout",
            sessionStarts: ["setupFull", "setupPartial", "setupNone", "receiveRedirect", "updateToken"],
            relaunchInFlight: "CLV-FULL-20 (written): a refresh still in flight in the old instance is answered after the relaunched instance's logout, and nothing is stored; the same holds for every request of the session",
            answers: [
                .init(path: FakeClover.tokenPath, equivalent: [.init("unknownMembers", statuses: 200...499, why: "RFC 6749 §5.1 and §5.2: the client ignores value names it does not recognise")]),
                .init(path: FakeClover.refreshPath, equivalent: [
                    .init("unknownMembers", statuses: 200...499, why: "RFC 6749 §5.1 and §5.2: the client ignores value names it does not recognise"),
                    .retryAfterDate,
                ]),
                .init(path: FakeClover.merchantsPrefix),
            ])
    }

    public var storeFields: [String] { ["accessToken", "accessTokenExpiration", "refreshToken", "refreshTokenExpiration", "merchantId"] }
    public var serverOperations: [String] { ["revokeTokens"] }

    public func makePersona(_ fixture: CloverFixture) -> FakeClover {
        FakeClover(fixture: fixture)
    }

    public func perform(_ operation: String, on persona: FakeClover) throws(ProviderKitError) {
        guard operation == "revokeTokens" else { throw .unknownOperation(operation, provider: id) }
        persona.revokeAllTokens()
    }

    public var defaultServeFixture: String {
        """
        {
            "apps": [{"id": "SERVEAPP", "secret": "serve-app-secret-1", "siteURL": "https://app.example.com/"}],
            "merchants": [{"id": "SERVEMERCHANT", "name": "Serve Cafe", "installedApps": ["SERVEAPP"]}],
            "employees": [{"email": "employee@example.com", "password": "serve-password-1", "merchant": "SERVEMERCHANT"}]
          }
        """
    }
}

extension CloverFixture: ProviderFixture {
    public var secrets: [String] { apps.map(\.secret) + employees.map(\.password) }
    /// The app secret too: Full OAuth is PKCE for a low-trust app that cannot keep one (seed
    /// 000, "PKCE"), and Partial and No OAuth exchange codes the same way.
    public var serverOnlySecrets: [String] { secrets }
}
