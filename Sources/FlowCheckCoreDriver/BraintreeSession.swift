import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

/// Our Braintree client-side connect behind the driver protocol. The notifications the SDK
/// posts (the seed's `braintreeConnectedRedirectNotification`) are counted for `status`.
public final class BraintreeSession: FlowSession {

    private let baseURL: URL
    private let transport: any HTTPTransport
    private let userAgent: any ExternalUserAgent
    private let notify: @Sendable (BraintreeConnectEvent) -> Void
    /// What the SDK posted, in order.
    private let notifications = Locked<[BraintreeConnectEvent]>([])
    private let onClose: @Sendable () -> Void
    private let urlPolicy: BaseURLPolicy
    private let client = Locked<BraintreeConnect?>(nil)

    /// - Parameter notify: wraps the SDK's notification (tests pass one that misbehaves).
    public init(context: DriverContext, transport: any HTTPTransport, userAgent: any ExternalUserAgent, notify: BraintreeNotifyFactory = { $0 }, urlPolicy: BaseURLPolicy = .standard, onClose: @escaping @Sendable () -> Void = {}) {
        self.baseURL = context.baseURL
        self.transport = transport
        self.userAgent = userAgent
        let notifications = self.notifications
        self.notify = notify { event in notifications.withLock { $0.append(event) } }
        self.onClose = onClose
        self.urlPolicy = urlPolicy
    }

    /// The app's one client, built on first use with the app's return URL.
    private func client(returnURL: String) throws -> BraintreeConnect {
        if let existing = client.withLock({ $0 }) { return existing }
        let configuration = try BraintreeConnectConfiguration(connectURLEndpoint: baseURL.appendingPathComponent("backend/connect-url"), returnURL: returnURL, urlPolicy: urlPolicy)
        let fresh = BraintreeConnect(configuration: configuration, transport: transport, userAgent: userAgent, notify: notify)
        return client.withLock { client in
            if let existing = client { return existing }
            client = fresh
            return fresh
        }
    }

    public func perform(_ call: AppCall) async throws -> CallOutcome {
        do {
            switch call.name {
            case "connect":
                try await client(returnURL: call.arguments["returnURL"] ?? "").connect()
                return .ok([:])
            case "openURL":
                guard let url = URL(string: call.arguments["url"] ?? "") else {
                    throw DriverError("openURL: \"\(call.arguments["url"] ?? "")\" is not a URL")
                }
                // Before any connect the app still has its handler: the SDK itself must refuse.
                let handler = try client(returnURL: call.arguments["returnURL"] ?? "")
                return .ok(["handled": String(await handler.handleOpenURL(url))])
            case "status":
                let events = notifications.withLock { $0 }
                var result = ["connected": "0", "failed": "0"]
                var connected = 0, failed = 0
                for event in events {
                    switch event {
                    case .connected(let merchant):
                        connected += 1
                        result["lastMerchant"] = merchant
                    case .failed(let error):
                        failed += 1
                        result["lastError"] = error
                    }
                }
                result["connected"] = String(connected)
                result["failed"] = String(failed)
                return .ok(result)
            default:
                throw DriverError.unsupported(call, provider: .braintree)
            }
        } catch let error as OAuthError {
            return .error(kind: error.code.name, message: error.message)
        }
    }

    /// The device holds no token in this flow: `BraintreeConnect` takes no token store at all,
    /// so there is nothing to report.
    public func storeContents() async throws -> [String: String] { [:] }

    public func close() async {
        onClose()
    }
}

/// Wraps how the SDK's notifications reach the app.
public typealias BraintreeNotifyFactory = @Sendable (@escaping @Sendable (BraintreeConnectEvent) -> Void) -> @Sendable (BraintreeConnectEvent) -> Void
