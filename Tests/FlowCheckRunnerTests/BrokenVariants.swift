import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Deliberately broken SDKs, each built from the real SDK core with one defect, so every spec
/// is shown to fail when the SDK breaks what the spec checks.
enum BrokenVariants {
    /// A transport that rewrites each request before it leaves.
    struct TamperingTransport: HTTPTransport {
        let base: any HTTPTransport
        let rewrite: @Sendable (TransportRequest) -> TransportRequest

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            try await base.send(rewrite(request))
        }
    }

    /// Waits out a 429's or 503's `Retry-After` on the flow's clock and sends the very same
    /// request again, whatever happened meanwhile: our core before it checked a bearer token's
    /// expiry after the wait (MLT-RETRY-EXPIRY).
    struct ResendAfterWaitTransport: HTTPTransport {
        let base: any HTTPTransport
        let clock: any TimeSource

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            guard [429, 503].contains(response.status), let delay = response.header("Retry-After").flatMap(Int.init), delay <= 300 else { return response }
            try await clock.pause(until: clock.now.addingTimeInterval(TimeInterval(delay)))
            return try await base.send(request)
        }
    }

    /// The core with its own waits off and ``ResendAfterWaitTransport`` under it, made per flow
    /// so the transport waits on that flow's clock.
    struct ResendAfterWaitDriver: FlowDriver {
        let name = "resends the same request after a Retry-After wait"

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let clock = context.clock
            return try await CoreSDKDriver(name: name, transport: { ResendAfterWaitTransport(base: $0, clock: clock) }, moltinRetryAfterLimit: 0).makeSession(for: context)
        }
    }

    /// A store with one operation that silently does nothing.
    struct LeakyStore: TokenStore {
        let base: any TokenStore
        var ignoresWrites = false
        var ignoresDeletes = false

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func write(_ data: Data, for key: String) throws { if !ignoresWrites { try base.write(data, for: key) } }
        func delete(_ key: String) throws { if !ignoresDeletes { try base.delete(key) } }
        func keys() throws -> [String] { try base.keys() }
    }

    /// A session that lets a broken app-level behaviour stand in front of the real one.
    final class OverridingSession: FlowSession, @unchecked Sendable {
        typealias Override = @Sendable (AppCall, any FlowSession, DriverContext) async throws -> CallOutcome?
        let inner: any FlowSession
        let context: DriverContext
        let override: Override

        init(inner: any FlowSession, context: DriverContext, override: @escaping Override) {
            self.inner = inner
            self.context = context
            self.override = override
        }

        func perform(_ call: AppCall) async throws -> CallOutcome {
            if let outcome = try await override(call, inner, context) { return outcome }
            return try await inner.perform(call)
        }

        func storeContents() async throws -> [String: String] { try await inner.storeContents() }
        func close() async { await inner.close() }
        // The store is the real one's: its files are judged as they are, and crashed as they are.
        func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
        func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { try await inner.armStoreCrash(point) }
    }

    struct OverridingDriver: FlowDriver {
        let name: String
        let base: any FlowDriver
        let override: OverridingSession.Override

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            OverridingSession(inner: try await base.makeSession(for: context), context: context, override: override)
        }
    }

    /// Rewrites one form field of token requests.
    static func formRewrite(_ body: Data?, _ transform: ([(String, String)]) -> [(String, String)]) -> Data? {
        guard let body, let text = String(data: body, encoding: .utf8), let fields = FormURLEncoding.decode(text) else { return body }
        return Data(FormURLEncoding.encode(transform(fields)).utf8)
    }

    static func tampering(_ name: String, _ rewrite: @escaping @Sendable (TransportRequest) -> TransportRequest) -> any FlowDriver {
        CoreSDKDriver(name: name, transport: { TamperingTransport(base: $0, rewrite: rewrite) })
    }

    static func overriding(_ name: String, base: any FlowDriver = CoreSDKDriver(), _ override: @escaping OverridingSession.Override) -> any FlowDriver {
        OverridingDriver(name: name, base: base, override: override)
    }

    /// Answers a refresh by authenticating again, never sending the refresh grant.
    static let refreshIsReauth = tampering("refresh sent as client_credentials") { request in
        var request = request
        request.body = formRewrite(request.body) { fields in
            fields.contains { $0 == ("grant_type", "refresh_token") }
                ? fields.filter { $0.0 != "refresh_token" }.map { $0.0 == "grant_type" ? ($0.0, "client_credentials") : $0 }
                : fields
        }
        return request
    }

    /// Forgets the Bearer header.
    static let noBearer = tampering("no Authorization header") { request in
        var request = request
        request.headers.removeAll { $0.0.lowercased() == "authorization" }
        return request
    }

    /// Escapes form values with the URL-host set, as the tutorial does.
    static let hostEncoding = tampering("URL-host form encoding") { request in
        var request = request
        if let body = request.body, let text = String(data: body, encoding: .utf8), let fields = FormURLEncoding.decode(text) {
            let encoded = fields.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed)!)" }
            request.body = Data(encoded.joined(separator: "&").utf8)
        }
        return request
    }

    /// Keeps nothing it is given.
    static let forgetfulStore: any FlowDriver = CoreSDKDriver(name: "store ignores writes", store: { LeakyStore(base: $0, ignoresWrites: true) })

    /// Delete Token that deletes nothing.
    static let undeletableStore: any FlowDriver = CoreSDKDriver(name: "store ignores deletes", store: { LeakyStore(base: $0, ignoresDeletes: true) })

    /// Throws the stored token away before every Auth, so a failed Auth leaves nothing.
    static let clobberingAuth = overriding("auth clobbers the stored token") { call, inner, _ in
        guard call.name == "auth" else { return nil }
        _ = try await inner.perform(AppCall(name: "deleteToken"))
        return nil
    }

    /// Replaces the server's message with its own.
    static let genericAuthError = overriding("auth error message lost") { call, inner, _ in
        guard call.name == "auth" else { return nil }
        if case .error(let kind, _) = try await inner.perform(call) { return .error(kind: kind, message: "Authentication failed") }
        return .ok([:])
    }

    /// Retries a rejected products call until it gives up, five times over.
    static let retriesForever = overriding("retries products until it works") { call, inner, _ in
        guard call.name == "products" else { return nil }
        var outcome = try await inner.perform(call)
        for _ in 0..<5 {
            guard case .error("tokenRejected", _) = outcome else { break }
            outcome = try await inner.perform(call)
        }
        return outcome
    }

    /// Logs the user out whenever a call fails.
    static let clearsStoreOnError = overriding("clears the store on any error") { call, inner, context in
        let outcome = try await inner.perform(call)
        if case .error = outcome { _ = try await inner.perform(AppCall(name: context.provider == .moltin ? "deleteToken" : "logout")) }
        return outcome
    }
}
