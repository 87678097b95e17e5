import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Our Clever Instant Login client behind the driver protocol. The client is built when the
/// app starts a login (its configuration comes with that step) and survives until a relaunch.
public final class CleverSession: FlowSession {
    private let baseURL: URL
    private let transport: any HTTPTransport
    private let store: any TokenStore
    private let userAgent: any ExternalUserAgent
    private let random: any RandomSource
    private let onClose: @Sendable () -> Void
    /// The client, with the client id and redirect URI it was built with; nil until a login.
    private let client = Locked<(login: CleverInstantLogin, key: [String])?>(nil)

    public init(context: DriverContext, transport: any HTTPTransport, store: any TokenStore, userAgent: any ExternalUserAgent, random: any RandomSource, onClose: @escaping @Sendable () -> Void = {}) {
        self.baseURL = context.baseURL
        self.transport = transport
        self.store = store
        self.userAgent = userAgent
        self.random = random
        self.onClose = onClose
    }

    public func perform(_ call: AppCall) async throws -> CallOutcome {
        do {
            switch call.name {
            case "startLogin":
                let configuration = try CleverConfiguration(clientID: call.arguments["clientId"] ?? "", redirectURI: call.arguments["redirectURI"] ?? "", baseURL: baseURL)
                let key = [configuration.clientID, configuration.redirectURI]
                let fresh = CleverInstantLogin(configuration: configuration, transport: transport, userAgent: userAgent, store: store, random: random)
                // Another login with the same configuration reuses the client, as an app would:
                // the SDK itself must replace the pending state.
                let client = self.client.withLock { client -> CleverInstantLogin in
                    if let existing = client, existing.key == key { return existing.login }
                    client = (fresh, key)
                    return fresh
                }
                try await client.startLogin()
                return .ok([:])
            case "receiveRedirect":
                guard let client = self.client.withLock({ $0?.login }) else {
                    throw DriverError("receiveRedirect before any startLogin: the driver has no Clever client to hand the URL to")
                }
                guard let url = URL(string: call.arguments["url"] ?? ""), !(call.arguments["url"] ?? "").isEmpty else {
                    throw DriverError("receiveRedirect: \"\(call.arguments["url"] ?? "")\" is not a URL (did the browser capture a redirect?)")
                }
                let token = try await client.handleRedirect(url)
                return .ok(["tokenType": token.tokenType])
            case "relaunch":
                client.withLock { $0 = nil }
                return .ok([:])
            default:
                throw DriverError.unsupported(call, provider: .clever)
            }
        } catch let error as OAuthError {
            return .error(kind: error.code.name, message: error.message)
        }
    }

    public func storeContents() async throws -> [String: String] {
        guard let data = try store.read(CleverInstantLogin.storeKey) else { return [:] }
        let token = try JSONDecoder().decode(CleverToken.self, from: data)
        return ["accessToken": token.accessToken, "tokenType": token.tokenType]
    }

    public func close() async {
        onClose()
    }
}
