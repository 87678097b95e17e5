import Foundation
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Our Moltin client behind the driver protocol.
public final class MoltinSession: FlowSession, @unchecked Sendable {
    private let configuration: MoltinConfiguration
    private let transport: any HTTPTransport
    private let store: any TokenStore
    private let clock: any TimeSource
    private let credentialStore: (any TokenStore)?
    private let onClose: @Sendable () -> Void
    private let client: LockedClient

    /// The current client; replaced on relaunch. Guarded because sessions are `Sendable`.
    private final class LockedClient: @unchecked Sendable {
        private var value: MoltinClient
        private let lock = NSLock()
        init(_ value: MoltinClient) { self.value = value }
        var current: MoltinClient {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; lock.unlock() }
        }
    }

    /// - Parameters:
    ///   - transport: how the client reaches the fake (tests pass a tampering one).
    ///   - store: where the client keeps its token (tests pass a forgetful one).
    ///   - refreshMargin: seconds before expiry the client renews (tests pass a wrong one).
    ///   - credentialStore: where the client keeps its credentials besides memory; nil, the
    ///     SDK's default (tests pass one that survives a relaunch).
    public init(context: DriverContext, transport: any HTTPTransport, store: any TokenStore, clock: any TimeSource, refreshMargin: TimeInterval = 60, credentialStore: (any TokenStore)? = nil, onClose: @escaping @Sendable () -> Void = {}) throws {
        self.configuration = try MoltinConfiguration(baseURL: context.baseURL, refreshMargin: refreshMargin)
        self.transport = transport
        self.store = store
        self.clock = clock
        self.credentialStore = credentialStore
        self.onClose = onClose
        self.client = LockedClient(MoltinClient(configuration: configuration, transport: transport, store: store, clock: clock, credentialStore: credentialStore))
    }

    public func perform(_ call: AppCall) async throws -> CallOutcome {
        let client = self.client.current
        do {
            switch call.name {
            case "auth":
                let token = try await client.auth(clientId: call.arguments["clientId"] ?? "", clientSecret: call.arguments["clientSecret"] ?? "")
                return .ok(Self.fields(of: token))
            case "refreshToken":
                return .ok(Self.fields(of: try await client.refreshToken()))
            case "deleteToken":
                try await client.deleteToken()
                return .ok([:])
            case "products":
                let products = try await client.products()
                return .ok(["productCount": String(products.count), "productIds": products.map(\.id).joined(separator: ","), "productTitles": products.map(\.title).joined(separator: ",")])
            case "relaunch":
                // A relaunch is a new SDK instance over the same store: nothing in memory survives.
                self.client.current = MoltinClient(configuration: configuration, transport: transport, store: store, clock: clock, credentialStore: credentialStore)
                return .ok([:])
            default:
                throw DriverError.unsupported(call, provider: .moltin)
            }
        } catch let error as OAuthError {
            return .error(kind: error.code.name, message: error.message)
        }
    }

    public func storeContents() async throws -> [String: String] {
        // Read through a fresh client: what a relaunched app would find in the store.
        let reader = MoltinClient(configuration: configuration, transport: transport, store: store, clock: clock, credentialStore: credentialStore)
        guard let token = try await reader.currentToken() else { return [:] }
        return Self.fields(of: token)
    }

    public func close() async {
        onClose()
    }

    static func fields(of token: StoredToken) -> [String: String] {
        var fields = ["accessToken": token.accessToken, "tokenType": token.tokenType]
        if let expiresAt = token.expiresAt { fields["expiresAt"] = String(Int(expiresAt.timeIntervalSince1970)) }
        if let refreshToken = token.refreshToken { fields["refreshToken"] = refreshToken }
        if let scope = token.scope { fields["scope"] = scope }
        return fields
    }
}
