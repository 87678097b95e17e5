import Foundation
import FlowCheckCoreDriver
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Broken SDKs that only the invariants catch: each is our SDK core with one realistic defect
/// that no hand-written expectation in any committed spec notices, and one invariant does.
enum InvariantBrokenVariants {
    /// INV-LEAK: a token call's error message quotes the form it sent ("request failed:
    /// grant_type=…&client_secret=…"), a debugging aid left in a release build.
    static let errorQuotesRequest = BrokenVariants.overriding("error message quotes the request body") { call, inner, _ in
        guard call.name == "auth" else { return nil }
        let outcome = try await inner.perform(call)
        guard case .error(let kind, let message) = outcome else { return outcome }
        let body = "grant_type=client_credentials&client_id=\(call.arguments["clientId"] ?? "")&client_secret=\(call.arguments["clientSecret"] ?? "")"
        return .error(kind: kind, message: "\(message) (request: \(body))")
    }

    /// INV-EXPIRED: an HTTP interceptor adds the last Bearer header to every request that has
    /// none ("authorise everything"), so the renewal after expiry carries the expired token to
    /// the token endpoint. Every call still succeeds.
    static let bearerOnEverything: any FlowDriver = CoreSDKDriver(name: "Bearer on every request", transport: { base in StickyBearer(base: base) })

    /// INV-SECRET-WIRE: after the app hands the SDK a new token (`updateToken`), the Clover
    /// client re-fetches the merchant with the app secret in a header "to prove the app".
    static let appSecretAfterUpdate: any FlowDriver = SecretAfterUpdateDriver()

    /// INV-ORIGIN: Braintree's connect-URL check takes any host starting with "127." for
    /// loopback, so a clear-text http:// look-alike host (`127.0.0.1.example.com`) is opened.
    /// INV-ORIGIN: "session start" telemetry. The first request that carries an Authorization
    /// header is reported, header and all, to an analytics endpoint over clear-text http://;
    /// the report's failure is ignored, so every call and everything the fakes see is unchanged.
    static let telemetryBeacon: any FlowDriver = CoreSDKDriver(name: "session telemetry with the Authorization header", transport: { base in TelemetryBeacon(base: base) })

    static let lookalikeLoopback: any FlowDriver = CoreSDKDriver(name: "loopback by prefix", braintreeURLPolicy: BaseURLPolicy(isLoopback: { host in host.hasPrefix("127.") || host == "localhost" }))

    /// INV-KEEP: a Clover merchant call answered with a server error (5xx) logs the user out
    /// ("the session must be broken"); failures of the refresh keep the session.
    static let logoutOnMerchant5xx: any FlowDriver = LogoutOnMerchant5xxDriver()

    /// INV-DISMISS: Clever's error path for a refused code exchange (a 4xx from the token
    /// endpoint) returns before the browser is dismissed; a 5xx and success dismiss it.
    static let noDismissOnRefusedCode: any FlowDriver = RefusedCodeKeepsBrowserDriver()

    /// INV-STORE: deleting the token renames its file to a hidden backup ("undo logout"), so
    /// the token's bytes stay in the folder after the store reports itself empty.
    static let deleteKeepsBackup: any FlowDriver = CoreSDKDriver(name: "delete keeps a backup", store: { BackupOnDeleteStore(base: $0) })

    /// INV-RANDOM: every random value starts with an 8-byte counter ("unique and random"), so
    /// the states and verifiers of successive logins share a long prefix.
    static let counterPrefixedNonces: any FlowDriver = CoreSDKDriver(name: "nonces start with a counter", random: { CounterPrefixedRandom(base: $0) })

    /// INV-RETRY-AFTER: a Moltin request answered 429 is sent again at once, ignoring the
    /// Retry-After ("one quick retry usually gets through"); the second answer is final.
    /// On a core that gives up at once itself (its own waits would add a second, honest retry).
    static let retriesAtOnce: any FlowDriver = CoreSDKDriver(name: "retries a 429 at once", transport: { base in ImmediateRetry(base: base) }, moltinRetryAfterLimit: 0)
}

/// Sends a Moltin request answered 429 once more, at once.
struct ImmediateRetry: HTTPTransport {
    let base: any HTTPTransport
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await base.send(request)
        guard response.status == 429, request.url.path == "/v1/products" || request.url.path == "/oauth/access_token" else { return response }
        return try await base.send(request)
    }
}

/// A clock `lag` seconds behind the flow's.
struct LaggingClock: TimeSource {
    let base: any TimeSource
    let lag: TimeInterval
    var now: Date { base.now.addingTimeInterval(-lag) }
    func sleep(until deadline: Date) async throws { try await base.sleep(until: deadline.addingTimeInterval(lag)) }
}

/// Random bytes whose first eight are a counter.
final class CounterPrefixedRandom: RandomSource, @unchecked Sendable {
    let base: any RandomSource
    private let counter = NSLock()
    private var next: UInt64 = 1
    init(base: any RandomSource) { self.base = base }
    func bytes(_ count: Int) -> [UInt8] {
        counter.lock()
        let value = next
        next += 1
        counter.unlock()
        var bytes = base.bytes(count)
        for index in 0..<min(8, count) { bytes[index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - index))) }
        return bytes
    }
}

/// `FileTokenStore` whose delete renames the file to `.bak-<name>` instead of unlinking it.
struct BackupOnDeleteStore: TokenStore {
    let base: FileTokenStore
    func read(_ key: String) throws -> Data? { try base.read(key) }
    func write(_ data: Data, for key: String) throws { try base.write(data, for: key) }
    func keys() throws -> [String] { try base.keys() }
    func delete(_ key: String) throws {
        let file = try base.fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let backup = base.directory.appendingPathComponent(".bak-" + file.lastPathComponent)
        _ = unlink(backup.path)
        guard rename(file.path, backup.path) == 0 else { throw StoreWriteError("could not move the token file aside") }
    }
}

/// Sends Clover refresh requests to the web origin first, and to the API origin after a 404.
struct WebHostFirstDriver: FlowDriver {
    let name = "refresh via the web host first"
    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let web = context.baseURLs["web"]
        return try await CoreSDKDriver(name: name, transport: { base in WebFirstTransport(base: base, web: web) }).makeSession(for: context)
    }

    struct WebFirstTransport: HTTPTransport {
        let base: any HTTPTransport
        let web: URL?
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard let web, request.url.path == "/oauth/v2/refresh", var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
                return try await base.send(request)
            }
            components.host = web.host
            components.port = web.port
            var first = request
            first.url = components.url!
            let answer = try await base.send(first)
            return answer.status == 404 ? try await base.send(request) : answer
        }
    }
}

/// Clever whose browser is not dismissed when the token endpoint refuses the code (4xx).
struct RefusedCodeKeepsBrowserDriver: FlowDriver {
    let name = "no dismiss after a refused code"
    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let refused = Locked(false)
        return try await CoreSDKDriver(
            name: name,
            transport: { base in RefusalWatchingTransport(base: base, refused: refused) },
            userAgent: { base in SkippingDismissUserAgent(base: base, refused: refused) }
        ).makeSession(for: context)
    }

    struct RefusalWatchingTransport: HTTPTransport {
        let base: any HTTPTransport
        let refused: Locked<Bool>
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            if request.url.path == "/oauth/tokens" { refused.withLock { $0 = (400..<500).contains(response.status) } }
            return response
        }
    }

    struct SkippingDismissUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent
        let refused: Locked<Bool>
        func open(_ url: URL) async throws { refused.withLock { $0 = false }; try await base.open(url) }
        func dismiss() async { if !refused.withLock({ $0 }) { await base.dismiss() } }
    }
}

/// Clover that sends the app secret in a header on requests made after an `updateToken`.
struct SecretAfterUpdateDriver: FlowDriver {
    let name = "app secret sent after updateToken"
    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let updated = Locked(false)
        let secret = Locked<String?>(nil)
        let inner = try await CoreSDKDriver(name: name, transport: { base in
            BrokenVariants.TamperingTransport(base: base) { request in
                guard updated.withLock({ $0 }), let value = secret.withLock({ $0 }) else { return request }
                var request = request
                request.headers.append(("X-Clover-App-Secret", value))
                return request
            }
        }).makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: inner, context: context) { call, _, _ in
            if let value = call.arguments["appSecret"] { secret.withLock { $0 = value } }
            if call.name == "updateToken" { updated.withLock { $0 = true } }
            return nil
        }
    }
}

/// Clover that logs out when a merchant request is answered 5xx.
struct LogoutOnMerchant5xxDriver: FlowDriver {
    let name = "logs out after a merchant call answered 5xx"
    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let failed = Locked(false)
        let inner = try await CoreSDKDriver(name: name, transport: { base in StatusWatchingTransport(base: base, flag: failed) }).makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: inner, context: context) { call, inner, _ in
            guard call.name == "merchant" else { return nil }
            failed.withLock { $0 = false }
            let outcome = try await inner.perform(call)
            if case .error = outcome, failed.withLock({ $0 }) { _ = try await inner.perform(AppCall(name: "logout")) }
            return outcome
        }
    }

    /// Sets `flag` when a merchant request is answered 5xx.
    struct StatusWatchingTransport: HTTPTransport {
        let base: any HTTPTransport
        let flag: Locked<Bool>
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            if request.url.path.hasPrefix("/v3/merchants"), response.status >= 500 { flag.withLock { $0 = true } }
            return response
        }
    }
}


/// Adds the last Authorization header it saw to every request sent without one.
struct StickyBearer: HTTPTransport {
    let base: any HTTPTransport
    private let last = Locked<String?>(nil)
    init(base: any HTTPTransport) { self.base = base }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var request = request
        let header = request.headers.first { $0.0.lowercased() == "authorization" }?.1
        let sticky = last.withLock { last -> String? in
            if let header { last = header; return nil }
            return last
        }
        if let sticky { request.headers.append(("Authorization", sticky)) }
        return try await base.send(request)
    }
}

/// Sends one analytics event per session, with the first Authorization header it sees, to a
/// clear-text endpoint (`.invalid` never resolves, so nothing ever answers it).
struct TelemetryBeacon: HTTPTransport {
    let base: any HTTPTransport
    private let reported = Locked(false)
    init(base: any HTTPTransport) { self.base = base }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let header = request.headers.first(where: { $0.0.lowercased() == "authorization" })?.1,
           reported.withLock({ done in defer { done = true }; return !done }) {
            let event = TransportRequest(method: "POST", url: URL(string: "http://telemetry.flowcheck.invalid/v1/session")!, headers: [("Authorization", header), ("Content-Type", "application/json")], body: Data(#"{"event":"session_start"}"#.utf8))
            _ = try? await base.send(event)
        }
        return try await base.send(request)
    }
}
