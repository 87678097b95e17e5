import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Broken SDKs built from the real core, each with one small defect of the kind a shipping SDK
/// has, that the committed specs do not catch and explore's models do. The helpers are copied
/// from the runner tests' broken variants (a test target cannot import another).
enum ExploreBrokenSDKs {
    /// What one broken SDK instance remembers across calls (its in-memory state); a relaunch
    /// starts a new one, as a new app process would.
    final class Memory: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: String] = [:]
        subscript(key: String) -> String? {
            get { lock.lock(); defer { lock.unlock() }; return values[key] }
            set { lock.lock(); values[key] = newValue; lock.unlock() }
        }
        func reset() { lock.lock(); values = [:]; lock.unlock() }
    }

    /// A transport that rewrites each request before it leaves.
    struct TamperingTransport: HTTPTransport {
        let base: any HTTPTransport
        let rewrite: @Sendable (TransportRequest) -> TransportRequest

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            try await base.send(rewrite(request))
        }
    }

    /// Lets a broken app-level behaviour stand in front of the real one, with the instance's
    /// memory.
    final class OverridingSession: FlowSession, @unchecked Sendable {
        typealias Override = @Sendable (AppCall, any FlowSession, Memory) async throws -> CallOutcome?
        let inner: any FlowSession
        let memory: Memory
        let override: Override

        init(inner: any FlowSession, memory: Memory, override: @escaping Override) {
            self.inner = inner
            self.memory = memory
            self.override = override
        }

        func perform(_ call: AppCall) async throws -> CallOutcome {
            if let outcome = try await override(call, inner, memory) { return outcome }
            return try await inner.perform(call)
        }

        func storeContents() async throws -> [String: String] { try await inner.storeContents() }
        func close() async { await inner.close() }
        func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
        func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { try await inner.armStoreCrash(point) }
    }

    /// Our core with a per-flow memory shared by an overriding session and a rewriting transport.
    struct StatefulDriver: FlowDriver {
        let name: String
        let rewrite: @Sendable (TransportRequest, Memory) -> TransportRequest
        let override: OverridingSession.Override

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let memory = Memory()
            let rewrite = self.rewrite
            let core = CoreSDKDriver(name: name, transport: { base in TamperingTransport(base: base, rewrite: { rewrite($0, memory) }) })
            return OverridingSession(inner: try await core.makeSession(for: context), memory: memory, override: override)
        }
    }

    /// The form fields of a token request, or nil for another request.
    static func form(_ request: TransportRequest) -> [(String, String)]? {
        guard let body = request.body, let text = String(data: body, encoding: .utf8) else { return nil }
        return FormURLEncoding.decode(text)
    }


    /// Refresh Token with nothing stored quietly authenticates again with the credentials in
    /// memory, instead of saying there is nothing to refresh.
    static let moltinRefreshOnEmptyStoreReauths: any FlowDriver = StatefulDriver(name: "Refresh Token on an empty store re-authenticates", rewrite: { request, _ in request }) { call, inner, memory in
        switch call.name {
        case "auth":
            let outcome = try await inner.perform(call)
            if case .ok = outcome { memory["clientId"] = call.arguments["clientId"]; memory["clientSecret"] = call.arguments["clientSecret"] }
            return outcome
        case "relaunch":
            memory.reset()
            return nil
        case "refreshToken":
            guard try await inner.storeContents().isEmpty, let id = memory["clientId"], let secret = memory["clientSecret"] else { return nil }
            return try await inner.perform(AppCall(name: "auth", arguments: ["clientId": id, "clientSecret": secret]))
        default:
            return nil
        }
    }

    /// Keeps the bearer token in memory, loaded lazily: Delete Token clears the store but not
    /// the cached token, and a later Auth fills the cache only when it is empty, so Products
    /// after Delete Token and Auth sends the old token (until a refresh replaces it).
    static let moltinStaleTokenAfterDelete: any FlowDriver = StatefulDriver(name: "stale in-memory token after Delete Token and Auth", rewrite: { request, memory in
        var request = request
        if let fields = form(request), fields.contains(where: { $0 == ("grant_type", "refresh_token") }) {
            memory["stale"] = nil
        }
        if let stale = memory["stale"], request.headers.contains(where: { $0.0.lowercased() == "authorization" }) {
            request.headers = request.headers.map { $0.0.lowercased() == "authorization" ? ($0.0, "Bearer \(stale)") : $0 }
        }
        return request
    }) { call, inner, memory in
        switch call.name {
        case "deleteToken":
            if let token = try await inner.storeContents()["accessToken"] { memory["stale"] = token }
            return nil
        case "relaunch":
            memory.reset()
            return nil
        default:
            return nil
        }
    }

    /// Clover No OAuth (mutant 68): updateToken fires the token-change callbacks once Clover has
    /// accepted the token, before the store's write, so a write that dies still reports a
    /// change. From outside the core: each callback registered when such an update failed
    /// counts one more in `status`.
    static let cloverUpdateTokenNotifiesBeforeSave: any FlowDriver = StatefulDriver(name: "updateToken notifies before its write", rewrite: { request, _ in request }) { call, inner, memory in
        let registered = (memory["registered"] ?? "").split(separator: ",").map(String.init)
        switch call.name {
        case "addTokenCallback", "removeTokenCallback":
            let outcome = try await inner.perform(call)
            if case .ok(let result) = outcome, let label = call.arguments["label"] {
                let labels = call.name == "addTokenCallback" ? registered + [label] : result["removed"] == "true" ? registered.filter { $0 != label } : registered
                memory["registered"] = Set(labels).sorted().joined(separator: ",")
            }
            return outcome
        case "relaunch":
            memory["registered"] = nil
            return nil
        case "updateToken":
            let outcome = try await inner.perform(call)
            if case .error(kind: "storage", _) = outcome {
                for label in registered { memory["extra." + label] = String((Int(memory["extra." + label] ?? "0") ?? 0) + 1) }
            }
            return outcome
        case "status":
            let outcome = try await inner.perform(call)
            guard case .ok(var result) = outcome else { return outcome }
            for (key, value) in result where key.hasPrefix("fired.") {
                if let extra = Int(memory["extra." + key.dropFirst("fired.".count)] ?? "0"), extra > 0, let count = Int(value) {
                    result[key] = String(count + extra)
                }
            }
            return .ok(result)
        default:
            return nil
        }
    }

    /// Remembers the client credentials of the first successful Auth only: a later Auth as
    /// another client stores that client's token, but refreshes and renewals still sign with
    /// the first client's credentials.
    static let moltinCredentialsRememberedOnce: any FlowDriver = StatefulDriver(name: "credentials remembered once", rewrite: { request, memory in
        guard memory["inAuth"] == nil, let id = memory["firstId"], let secret = memory["firstSecret"], let fields = form(request) else { return request }
        var request = request
        let rewritten = fields.map { field -> (String, String) in
            switch field.0 {
            case "client_id": return (field.0, id)
            case "client_secret": return (field.0, secret)
            default: return field
            }
        }
        request.body = Data(FormURLEncoding.encode(rewritten).utf8)
        return request
    }) { call, inner, memory in
        switch call.name {
        case "auth":
            memory["inAuth"] = "1"
            let outcome = try await inner.perform(call)
            memory["inAuth"] = nil
            if case .ok = outcome, memory["firstId"] == nil {
                memory["firstId"] = call.arguments["clientId"]
                memory["firstSecret"] = call.arguments["clientSecret"]
            }
            return outcome
        case "relaunch":
            memory.reset()
            return nil
        default:
            return nil
        }
    }
}
