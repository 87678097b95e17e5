import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Our Moltin client behind the driver protocol.
public final class MoltinSession: FlowSession {
    private let configuration: MoltinConfiguration
    private let transport: any HTTPTransport
    private let store: any TokenStore
    private let clock: any TimeSource
    private let credentialStore: (any TokenStore)?
    private let onClose: @Sendable () -> Void
    /// The current client; replaced on relaunch.
    private let client: Locked<MoltinClient>

    /// - Parameters:
    ///   - transport: how the client reaches the fake (tests pass a tampering one).
    ///   - store: where the client keeps its token (tests pass a forgetful one).
    ///   - refreshMargin: seconds before expiry the client renews (tests pass a wrong one).
    ///   - retryAfterLimit: the longest `Retry-After` the client waits out before one retry.
    ///   - credentialStore: where the client keeps its credentials besides memory; nil, the
    ///     SDK's default (tests pass one that survives a relaunch).
    public init(context: DriverContext, transport: any HTTPTransport, store: any TokenStore, clock: any TimeSource, refreshMargin: TimeInterval = 60, retryAfterLimit: TimeInterval = 0, credentialStore: (any TokenStore)? = nil, onClose: @escaping @Sendable () -> Void = {}) throws {
        var configuration = try MoltinConfiguration(baseURL: context.baseURL, refreshMargin: refreshMargin)
        configuration.retryAfterLimit = retryAfterLimit
        self.configuration = configuration
        self.transport = transport
        self.store = store
        self.clock = clock
        self.credentialStore = credentialStore
        self.onClose = onClose
        self.client = Locked(MoltinClient(configuration: configuration, transport: transport, store: store, clock: clock, credentialStore: credentialStore))
    }

    public func perform(_ call: AppCall) async throws -> CallOutcome {
        let client = self.client.withLock { $0 }
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
                let relaunched = MoltinClient(configuration: configuration, transport: transport, store: store, clock: clock, credentialStore: credentialStore)
                self.client.withLock { $0 = relaunched }
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
