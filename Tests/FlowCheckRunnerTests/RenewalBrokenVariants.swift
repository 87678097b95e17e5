import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Broken SDKs for the renewal flows of issue 11, part a: expiry boundaries, faults during an
/// automatic renewal, refresh-token expiry, a refused `updateToken`, Moltin's remembered
/// credentials, and telling "the server ended the session" from "the server is down".
///
/// Each is the real SDK core with one defect a shipping SDK could have.
enum RenewalBrokenVariants {
    /// The token endpoints of every provider these flows use.
    static let tokenPaths: Set<String> = ["/oauth/v2/refresh", "/oauth/v2/token", "/oauth/access_token"]

    /// Lets a token run on past its expiry, as an SDK does whose check allows "clock skew"
    /// after expiry (`now > expiresAt + 120`) instead of before it: its expiry decisions read a
    /// clock two minutes behind, so a token 30 s past its end is still sent. (A margin of 0,
    /// renewing at expiry, conforms: seed 003 asks for a new token once "the expiry time is
    /// reached", and `ConformingVariants` runs every flow with it.)
    struct LaggingClock: TimeSource {
        let base: any TimeSource
        static let lag: TimeInterval = 120

        var now: Date { base.now.addingTimeInterval(-Self.lag) }
        func sleep(until deadline: Date) async throws { try await base.sleep(until: deadline.addingTimeInterval(Self.lag)) }
    }

    static let graceAfterExpiry: any FlowDriver = CoreSDKDriver(name: "a token trusted 2 minutes past its expiry", clock: { LaggingClock(base: $0) })

    /// Reads every failed token call as a refused grant, as an SDK does whose refresh handler
    /// is `if response.status != 200 || error != nil { endSession() }`: a 429, a 5xx or a
    /// dropped connection then logs the user out (Clover) or triggers a needless fallback Auth
    /// (Moltin).
    struct FailureIsRefusalTransport: HTTPTransport {
        let base: any HTTPTransport

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard RenewalBrokenVariants.tokenPaths.contains(request.url.path) else { return try await base.send(request) }
            let response: TransportResponse
            do {
                response = try await base.send(request)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                return RenewalBrokenVariants.invalidGrant
            }
            guard (200..<300).contains(response.status) || response.status == 400 || response.status == 401 else {
                return RenewalBrokenVariants.invalidGrant
            }
            return response
        }
    }

    static let invalidGrant = TransportResponse(
        status: 400, headers: ["Content-Type": "application/json"],
        body: Data(#"{"error":"invalid_grant","error_description":"read as refused by the SDK"}"#.utf8)
    )

    static let anyTokenFailureIsRefusal: any FlowDriver = CoreSDKDriver(
        name: "any failed token call read as invalid_grant", transport: { FailureIsRefusalTransport(base: $0) }
    )

    /// Reads a refused grant from the token endpoint as a server hiccup: a 400 (RFC 6749 §5.2),
    /// or Moltin's 401 to a refresh with a dead token, becomes a 503. The session then
    /// stays though it is dead, and Moltin never falls back to its client credentials.
    struct BadRequestIsTransientTransport: HTTPTransport {
        let base: any HTTPTransport

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            // A refused grant: a 400 (RFC 6749 §5.2), or Moltin's 401 to a refresh.
            let refresh = String(decoding: request.body ?? Data(), as: UTF8.self).contains("grant_type=refresh_token")
            let refused = response.status == 400 || (response.status == 401 && refresh)
            guard RenewalBrokenVariants.tokenPaths.contains(request.url.path), refused else { return response }
            return TransportResponse(status: 503, headers: response.headers, body: response.body)
        }
    }

    static let invalidGrantIsTransient: any FlowDriver = CoreSDKDriver(
        name: "invalid_grant read as transient", transport: { BadRequestIsTransientTransport(base: $0) }
    )

    /// Stores the Clover session without the refresh token's expiry (a field the persistence
    /// model forgot): the SDK can no longer know that the session died, reports it logged in and
    /// sends a dead refresh token.
    struct DropsRefreshExpiryStore: TokenStore {
        let base: any TokenStore

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func delete(_ key: String) throws { try base.delete(key) }
        func keys() throws -> [String] { try base.keys() }

        func write(_ data: Data, for key: String) throws {
            guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return try base.write(data, for: key) }
            object["refreshTokenExpiration"] = nil
            try base.write(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), for: key)
        }
    }

    static let refreshExpiryNotStored: any FlowDriver = CoreSDKDriver(
        name: "refresh token expiry not stored", store: { DropsRefreshExpiryStore(base: $0) }
    )

    /// No OAuth `updateToken` that stores the new token first and verifies it afterwards, so a
    /// token Clover refuses has already replaced the good one.
    static let updateTokenStoredBeforeCheck: any FlowDriver = StoresBeforeVerifyingDriver()

    /// Remembers the credentials of the latest Auth attempt, failed or not (the client sets
    /// them before the request instead of after its success): after a Bad Auth, renewals go out
    /// with the wrong secret.
    static let failedAuthCredentialsKept: any FlowDriver = FailedAuthCredentialsDriver()

}

/// The SDK core whose `auth` remembers the attempted credentials before the request succeeds.
///
/// Modelled on the wire: explicit Auth calls go out as the app passed them, and every token
/// request the client makes on its own (a renewal, its fallback Auth) carries the secret of the
/// latest Auth attempt, as it would if the client had stored that attempt's credentials.
struct FailedAuthCredentialsDriver: FlowDriver {
    let name = "credentials of a failed Auth remembered"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let attempted = LockedValue<String?>(nil)
        let inExplicitAuth = LockedValue(false)
        let inner = try await CoreSDKDriver(transport: { base in
            BrokenVariants.TamperingTransport(base: base) { request in
                guard request.url.path == "/oauth/access_token", !inExplicitAuth.get(), let secret = attempted.get() else { return request }
                var request = request
                request.body = BrokenVariants.formRewrite(request.body) { $0.map { $0.0 == "client_secret" ? ($0.0, secret) : $0 } }
                return request
            }
        }).makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: inner, context: context) { call, inner, _ in
            guard call.name == "auth" else { return nil }
            attempted.set(call.arguments["clientSecret"])
            inExplicitAuth.set(true)
            defer { inExplicitAuth.set(false) }
            return try await inner.perform(call)
        }
    }
}

/// The SDK core whose No OAuth `updateToken` writes the new token into the stored session before
/// the merchant check, and leaves it there when the check fails.
struct StoresBeforeVerifyingDriver: FlowDriver {
    let name = "updateToken stores before verifying"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let store = LockedValue<(any TokenStore)?>(nil)
        let inner = try await CoreSDKDriver(store: { base in
            store.set(base)
            return base
        }).makeSession(for: context)
        return BrokenVariants.OverridingSession(inner: inner, context: context) { call, _, _ in
            guard call.name == "updateToken", let token = call.arguments["token"], let store = store.get(),
                  let data = try store.read(CloverPaymentSDK.storeKey),
                  var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
            object["accessToken"] = token
            try store.write(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), for: CloverPaymentSDK.storeKey)
            return nil
        }
    }
}

/// A value shared between a broken driver's parts, guarded by a lock.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
}
