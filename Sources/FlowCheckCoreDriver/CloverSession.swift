import Foundation
import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Our Clover client (`CloverPaymentSDK`) behind the driver protocol.
///
/// Token-change callbacks are registered under the spec's labels and counted, so specs can say
/// "fired exactly once". A relaunch is a new SDK instance over the same store: callbacks and any
/// login in progress are gone, as in a real app restart.
public final class CloverSession: FlowSession {
    /// The fake's web host (login pages) and API host (token endpoints, merchants).
    private let webBaseURL: URL
    private let apiBaseURL: URL
    private let transport: any HTTPTransport
    private let store: any TokenStore
    private let userAgent: any ExternalUserAgent
    private let clock: any TimeSource
    private let random: any RandomSource
    private let refreshMargin: TimeInterval
    private let baseURLPolicy: BaseURLPolicy
    private let onClose: @Sendable () -> Void
    /// The current SDK instance (replaced on relaunch) and its callbacks' ids by label.
    private struct Instance {
        var sdk: CloverPaymentSDK
        var callbackIDs: [String: String] = [:]
    }

    private let instance: Locked<Instance>
    /// Label -> how often that callback fired, over the whole flow.
    private let fired = Locked<[String: Int]>([:])

    public init(context: DriverContext, transport: any HTTPTransport, store: any TokenStore, userAgent: any ExternalUserAgent, clock: any TimeSource, random: any RandomSource = SystemRandomSource(), refreshMargin: TimeInterval = 60, baseURLPolicy: BaseURLPolicy = .standard, onClose: @escaping @Sendable () -> Void = {}) {
        self.baseURLPolicy = baseURLPolicy
        self.webBaseURL = context.baseURLs["web"] ?? context.baseURL
        self.apiBaseURL = context.baseURLs["api"] ?? context.baseURL
        self.transport = transport
        self.store = store
        self.userAgent = userAgent
        self.clock = clock
        self.random = random
        self.refreshMargin = refreshMargin
        self.onClose = onClose
        self.instance = Locked(Instance(sdk: CloverPaymentSDK(store: store, transport: transport, userAgent: userAgent, clock: clock, random: random, refreshMargin: refreshMargin)))
    }

    private var current: CloverPaymentSDK {
        instance.withLock { $0.sdk }
    }

    private func configuration(_ arguments: [String: String], _ flow: any OAuthFlowType) throws -> CloverConfiguration {
        try CloverConfiguration(
            environment: .custom(web: webBaseURL, api: apiBaseURL), appID: arguments["appId"] ?? "", appSecret: arguments["appSecret"] ?? "",
            apiKey: "flowcheck-api-key", apiSecret: "flowcheck-api-secret", oauthFlowType: flow
        )
    }

    private static func fields(_ outcome: CloverSetupOutcome) -> [String: String] {
        switch outcome {
        case .ready(let merchant): return ["outcome": "ready", "merchantId": merchant.id, "merchantName": merchant.name]
        case .loginStarted: return ["outcome": "loginStarted"]
        }
    }

    public func perform(_ call: AppCall) async throws -> CallOutcome {
        let sdk = current
        let arguments = call.arguments
        do {
            switch call.name {
            case "addTokenCallback":
                let label = arguments["label"] ?? ""
                fired.withLock { $0[label] = $0[label] ?? 0 }
                let counter = fired
                let id = await sdk.addOnTokenChangeCallback { counter.withLock { $0[label, default: 0] += 1 } }
                instance.withLock { $0.callbackIDs[label] = id }
                return .ok(["id": id])
            case "removeTokenCallback":
                let id = instance.withLock { $0.callbackIDs[arguments["label"] ?? ""] ?? "no-such-callback" }
                let removed = await sdk.removeOnTokenChangeCallback(identifier: id)
                return .ok(["removed": String(removed)])
            case "setupFull":
                let outcome = try await sdk.setup(configuration: configuration(arguments, FullOAuth(redirectURI: arguments["redirectURI"] ?? "")))
                return .ok(Self.fields(outcome))
            case "setupPartial":
                let response = arguments["code"].map {
                    OAuthCodeResponse(code: $0, codeVerifier: arguments["codeVerifier"] ?? "", merchantID: arguments["merchantId"] ?? "")
                }
                return .ok(Self.fields(try await sdk.setup(configuration: configuration(arguments, PartialOAuth(codeResponse: response)))))
            case "setupNone":
                let flow = NoOAuth(token: arguments["token"] ?? "", merchantID: arguments["merchantId"] ?? "")
                return .ok(Self.fields(try await sdk.setup(configuration: configuration(arguments, flow))))
            case "receiveRedirect":
                guard let url = URL(string: arguments["url"] ?? ""), !(arguments["url"] ?? "").isEmpty else {
                    throw DriverError("receiveRedirect: \"\(arguments["url"] ?? "")\" is not a URL (did the browser capture a redirect?)")
                }
                try await sdk.receivedOAuthCodeOrToken(url)
                return .ok([:])
            case "updateToken":
                try await sdk.updateToken(arguments["token"] ?? "")
                return .ok([:])
            case "logout":
                try await sdk.logout()
                return .ok([:])
            case "status":
                var result = ["isLoggedIn": String(await sdk.isLoggedIn)]
                for (label, count) in fired.withLock({ $0 }) { result["fired.\(label)"] = String(count) }
                return .ok(result)
            case "merchant":
                // The loader checks the same range; a value from elsewhere that is out of it is a
                // harness error, never silently one caller.
                let written = arguments["concurrent"] ?? "1"
                guard let count = Int(written), CloverKit.concurrentCallers.contains(count) else {
                    throw DriverError("merchant: concurrent \"\(written)\" is not a whole number from \(CloverKit.concurrentCallers.lowerBound) to \(CloverKit.concurrentCallers.upperBound)")
                }
                let merchants = try await withThrowingTaskGroup(of: CloverMerchant.self) { group in
                    for _ in 0..<count { group.addTask { try await sdk.merchant() } }
                    var all: [CloverMerchant] = []
                    for try await merchant in group { all.append(merchant) }
                    return all
                }
                return .ok(["merchantId": merchants.first?.id ?? "", "merchantName": merchants.first?.name ?? "", "calls": String(merchants.count)])
            case "codeChallenge":
                let pkce = CloverPaymentSDK.makeCodeChallenge(random: random)
                return .ok(["codeVerifier": pkce.verifier, "codeChallenge": pkce.challenge, "codeChallengeMethod": pkce.method])
            case "environment":
                let environment: CloverEnvironment
                switch arguments["name"] {
                case "sandbox": environment = .sandbox
                case "production": environment = .production
                case "custom":
                    guard let url = URL(string: arguments["baseURL"] ?? "") else { throw DriverError("environment: baseURL is not a URL") }
                    environment = .custom(web: url, api: url)
                default:
                    // The loader refuses any other name; a misspelt one is never taken as custom.
                    throw DriverError("environment: unknown name \"\(arguments["name"] ?? "")\" (sandbox, production or custom)")
                }
                _ = try CloverConfiguration(environment: environment, appID: "app", appSecret: "", apiKey: "", apiSecret: "", oauthFlowType: FullOAuth(redirectURI: "https://example.com/oauth/callback"), baseURLPolicy: baseURLPolicy)
                return .ok(["webHost": environment.webBaseURL.host ?? "", "apiHost": environment.apiBaseURL.host ?? ""])
            case "relaunch":
                let fresh = CloverPaymentSDK(store: store, transport: transport, userAgent: userAgent, clock: clock, random: random, refreshMargin: refreshMargin)
                instance.withLock { $0 = Instance(sdk: fresh) }
                return .ok([:])
            default:
                throw DriverError.unsupported(call, provider: .clover)
            }
        } catch let error as OAuthError {
            return .error(kind: error.code.name, message: error.message)
        }
    }

    public func storeContents() async throws -> [String: String] {
        guard let session = try await current.storedSession() else { return [:] }
        var fields = ["accessToken": session.accessToken, "merchantId": session.merchantID]
        if let date = session.accessTokenExpiration { fields["accessTokenExpiration"] = String(Int(date.timeIntervalSince1970)) }
        if let token = session.refreshToken { fields["refreshToken"] = token }
        if let date = session.refreshTokenExpiration { fields["refreshTokenExpiration"] = String(Int(date.timeIntervalSince1970)) }
        return fields
    }

    public func close() async {
        onClose()
    }
}
