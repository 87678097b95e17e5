import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Deliberately broken Clover SDKs: the real SDK core with one defect each, built by wrapping
/// its transport, store, browser seam or clock, or by overriding one app-level behaviour.
enum CloverBrokenVariants {
    /// Rewrites the authorize URL the SDK opens.
    struct RewritingUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent
        let rewrite: @Sendable (URLComponents) -> URLComponents

        func open(_ url: URL) async throws {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let rewritten = rewrite(components).url else {
                return try await base.open(url)
            }
            try await base.open(rewritten)
        }

        func dismiss() async { await base.dismiss() }
    }

    /// A clock that stopped when the SDK was built: the SDK never sees its token expire.
    struct FrozenClock: TimeSource {
        let now: Date
    }

    static func query(_ components: URLComponents, _ transform: ([URLQueryItem]) -> [URLQueryItem]) -> URLComponents {
        var components = components
        components.queryItems = transform(components.queryItems ?? [])
        return components
    }

    /// Rewrites the JSON body of requests to one path.
    static func jsonRewrite(_ path: String, _ transform: @escaping @Sendable (inout [String: Any]) -> Void) -> @Sendable (TransportRequest) -> TransportRequest {
        { request in
            guard request.url.path == path, let body = request.body, var object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return request }
            var request = request
            transform(&object)
            request.body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return request
        }
    }

    /// A `plain` PKCE client: its challenge is the verifier itself (RFC 7636 §4.2).
    static let pkcePlain: any FlowDriver = PlainPKCEDriver()

    /// Leaves redirect_uri out of the authorize URL.
    static let noRedirectURI: any FlowDriver = CoreSDKDriver(name: "no redirect_uri", userAgent: { base in
        RewritingUserAgent(base: base) { query($0) { $0.filter { $0.name != "redirect_uri" } } }
    })

    /// Forgets the verifier in the code exchange.
    static let verifierNotSent = BrokenVariants.tampering("code_verifier not sent", jsonRewrite("/oauth/v2/token") { $0["code_verifier"] = nil })

    /// Sends the app secret with the code exchange, as a confidential client would.
    static let appSecretSent = BrokenVariants.tampering("app secret sent", jsonRewrite("/oauth/v2/token") { $0["client_secret"] = "clv-app-secret-7Yq2" })

    /// Never sees time pass, so it uses expired tokens.
    static let expiredTokenUsed: any FlowDriver = CoreSDKDriver(name: "no expiry handling", clock: { FrozenClock(now: $0.now) })

    /// Refreshes on every call.
    static let refreshEveryCall: any FlowDriver = CoreSDKDriver(name: "refresh on every call", cloverRefreshMargin: 10 * 3600)

    /// Two SDK instances over one store, each refreshing on its own: concurrent callers that do
    /// not share one refresh.
    static let twoRefreshes: any FlowDriver = TwoInstancesDriver()

    /// Keeps the old refresh token when it stores a refreshed pair.
    static let rotatedRefreshNotStored: any FlowDriver = CoreSDKDriver(name: "rotated refresh token not stored", store: { KeepsFirstRefreshToken(base: $0) })

    /// Keeps nothing across a relaunch.
    static let notPersisted: any FlowDriver = NotPersistedDriver()

    /// Logout that deletes nothing.
    static let logoutKeepsToken = BrokenVariants.undeletableStore

    /// Accepts a redirect whatever its state: replaces it with the one it sent before checking.
    static let stateNotChecked = BrokenVariants.overriding("state not checked") { call, inner, context in
        guard call.name == "receiveRedirect", let opened = context.browser.opened.last,
              let sent = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "state" })?.value,
              let url = call.arguments["url"], let components = URLComponents(string: url) else { return nil }
        let fixed = query(components) { items in items.filter { $0.name != "state" } + [URLQueryItem(name: "state", value: sent)] }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": fixed.string ?? url]))
    }

    /// Accepts a redirect for any client_id.
    static let clientNotChecked = BrokenVariants.overriding("client_id not checked") { call, inner, _ in
        guard call.name == "receiveRedirect", let url = call.arguments["url"], let components = URLComponents(string: url) else { return nil }
        let fixed = query(components) { $0.map { $0.name == "client_id" ? URLQueryItem(name: "client_id", value: "APP1") : $0 } }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": fixed.string ?? url]))
    }

    /// Registers each callback twice, so every change is reported twice.
    static let callbackTwice = BrokenVariants.overriding("callback fired twice") { call, inner, _ in
        guard call.name == "addTokenCallback" else { return nil }
        _ = try await inner.perform(call)
        return try await inner.perform(call)
    }

    /// Never calls the callback.
    static let callbackNever = BrokenVariants.overriding("callback never fired") { call, _, _ in
        call.name == "addTokenCallback" ? .ok(["id": "ignored"]) : nil
    }

    /// Reports logged in once a setup was attempted.
    static let isLoggedInLies = BrokenVariants.overriding("isLoggedIn true too early") { call, inner, _ in
        guard call.name == "status", case .ok(var result) = try await inner.perform(call) else { return nil }
        result["isLoggedIn"] = "true"
        return .ok(result)
    }

    /// Asks the network even with no code and nothing stored (a merchant call without a token).
    static let networkWithEmptyStore = BrokenVariants.overriding("network call with an empty store") { call, _, context in
        guard call.name == "setupPartial", call.arguments["code"] == nil else { return nil }
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        _ = try? await transport.send(TransportRequest(method: "GET", url: context.baseURL.appendingPathComponent("v3/merchants/\(call.arguments["merchantId"] ?? "MERCH1")")))
        return nil
    }

    /// Refreshes in No OAuth mode: before an API call it trades the app's token at the refresh
    /// endpoint, which No OAuth forbids (seed 000: "will not attempt any ... token refresh").
    static let noOAuthRefreshes: any FlowDriver = NoOAuthRefreshingDriver()

    /// Says every callback id was known.
    static let removeAlwaysTrue = BrokenVariants.overriding("remove always true") { call, inner, _ in
        guard call.name == "removeTokenCallback" else { return nil }
        _ = try await inner.perform(call)
        return .ok(["removed": "true"])
    }

    /// Accepts plain HTTP to any host.
    static let acceptsPlainHTTP = BrokenVariants.overriding("accepts http:// anywhere") { call, _, _ in
        guard call.name == "environment", let base = call.arguments["baseURL"], base.hasPrefix("http://") else { return nil }
        return .ok(["webHost": URL(string: base)?.host ?? "", "apiHost": URL(string: base)?.host ?? ""])
    }
}

/// A store that keeps the first refresh token it ever saw in the Clover session.
struct KeepsFirstRefreshToken: TokenStore {
    let base: any TokenStore

    func read(_ key: String) throws -> Data? { try base.read(key) }
    func delete(_ key: String) throws { try base.delete(key) }
    func keys() throws -> [String] { try base.keys() }

    func write(_ data: Data, for key: String) throws {
        guard let old = try base.read(key), let oldObject = (try? JSONSerialization.jsonObject(with: old)) as? [String: Any],
              var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let kept = oldObject["refreshToken"] else {
            return try base.write(data, for: key)
        }
        object["refreshToken"] = kept
        try base.write(try JSONSerialization.data(withJSONObject: object), for: key)
    }
}

/// A store that lives in memory and is lost when the driver builds a new SDK instance.
final class VolatileStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String: Data] = [:]

    func read(_ key: String) throws -> Data? { lock.lock(); defer { lock.unlock() }; return items[key] }
    func write(_ data: Data, for key: String) throws { lock.lock(); items[key] = data; lock.unlock() }
    func delete(_ key: String) throws { lock.lock(); items[key] = nil; lock.unlock() }
    func keys() throws -> [String] { lock.lock(); defer { lock.unlock() }; return Array(items.keys) }
    func forget() { lock.lock(); items = [:]; lock.unlock() }
}

/// The SDK core over an in-memory store that a relaunch wipes: nothing survives a restart.
struct NotPersistedDriver: FlowDriver {
    let name = "token not persisted across relaunch"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let store = VolatileStore()
        let inner = try await CoreSDKDriver(store: { _ in store }).makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: inner, context: context) { call, inner, _ in
            if call.name == "relaunch" { store.forget() }
            return nil
        }
    }
}

/// A plain-PKCE client: the challenge it sends is its verifier, with method `plain`.
struct PlainPKCEDriver: FlowDriver {
    let name = "PKCE plain"

    /// The verifier the rewritten authorize URL promised, for the token request that follows.
    final class Promise: @unchecked Sendable {
        private let lock = NSLock()
        private var verifier: String?
        var value: String? {
            get { lock.lock(); defer { lock.unlock() }; return verifier }
            set { lock.lock(); verifier = newValue; lock.unlock() }
        }
    }

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let promise = Promise()
        let driver = CoreSDKDriver(
            name: name,
            transport: { BrokenVariants.TamperingTransport(base: $0, rewrite: CloverBrokenVariants.jsonRewrite("/oauth/v2/token") { body in
                if let verifier = promise.value { body["code_verifier"] = verifier }
            }) },
            userAgent: { base in
                CloverBrokenVariants.RewritingUserAgent(base: base) { components in
                    let verifier = PKCE(random: SystemRandomSource()).verifier
                    promise.value = verifier
                    return CloverBrokenVariants.query(components) { items in
                        items.map { item in
                            switch item.name {
                            case "code_challenge": return URLQueryItem(name: item.name, value: verifier)
                            case "code_challenge_method": return URLQueryItem(name: item.name, value: "plain")
                            default: return item
                            }
                        }
                    }
                }
            }
        )
        return try await driver.makeSession(for: context)
    }
}

/// Two instances of the SDK core over one store (sessions from the same context share the
/// store folder): every call goes to the first, and a concurrent `merchant` runs on both, so
/// each refreshes on its own.
struct TwoInstancesDriver: FlowDriver {
    let name = "refresh not shared between callers"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let first = try await CoreSDKDriver().makeSession(for: context)
        let second = try await CoreSDKDriver().makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: first, context: context) { call, first, _ in
            if call.name.hasPrefix("setup") || call.name == "relaunch" {
                _ = try await second.perform(call)
                return nil
            }
            guard call.name == "merchant", (Int(call.arguments["concurrent"] ?? "1") ?? 1) > 1 else { return nil }
            async let one = first.perform(AppCall(name: "merchant"))
            async let two = second.perform(AppCall(name: "merchant"))
            let outcomes = try await [one, two]
            return outcomes.first { if case .error = $0 { return true } else { return false } } ?? .ok(["merchantId": "MERCH1", "calls": "2"])
        }
    }
}

/// In No OAuth mode, trades the app's token at the refresh endpoint before each API call.
struct NoOAuthRefreshingDriver: FlowDriver {
    let name = "No OAuth refreshes"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let token = PlainPKCEDriver.Promise()
        return BrokenVariants.OverridingSession(inner: try await CoreSDKDriver().makeSession(for: context), context: context) { call, _, context in
            if call.name == "setupNone" { token.value = call.arguments["token"] }
            guard call.name == "merchant", let current = token.value else { return nil }
            let transport = URLSessionTransport()
            defer { transport.invalidate() }
            let body = try JSONSerialization.data(withJSONObject: ["client_id": "APP1", "refresh_token": current])
            _ = try? await transport.send(TransportRequest(method: "POST", url: context.baseURL.appendingPathComponent("oauth/v2/refresh"), headers: [("Content-Type", "application/json")], body: body))
            return nil
        }
    }
}
