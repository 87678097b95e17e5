import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Deliberately broken SDKs for the review fixes of issue 11, each the real SDK core with one defect.
enum ReviewBrokenVariants {
    /// Clever's redirect parser relaxed to read only `code` and `state`: every other parameter,
    /// a token or secret included, is dropped before the redirect is judged.
    static let cleverExtraCredentialsIgnored = BrokenVariants.overriding("Clever redirect reads only code and state") { call, inner, _ in
        guard call.name == "receiveRedirect", let url = call.arguments["url"], var components = URLComponents(string: url) else { return nil }
        components.queryItems = components.queryItems?.filter { ["code", "state", "error", "error_description"].contains($0.name) }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": components.string ?? url]))
    }

    /// Braintree's return handler dismisses the browser in its connected branch only: a denied
    /// or failed return is posted to the app but leaves Safari on screen.
    struct BraintreeDismissOnlyOnConnect: FlowDriver {
        var name: String { "Braintree browser dismissed only on connect" }

        /// Drops a dismissal unless the last event posted was `.connected`.
        final class DismissAfterConnect: ExternalUserAgent, @unchecked Sendable {
            let base: any ExternalUserAgent
            let lastEvent: SeamBox<BraintreeConnectEvent?>

            init(base: any ExternalUserAgent, lastEvent: SeamBox<BraintreeConnectEvent?>) {
                self.base = base
                self.lastEvent = lastEvent
            }

            func open(_ url: URL) async throws { try await base.open(url) }

            func dismiss() async {
                guard case .connected = lastEvent.withLock({ $0 }) else { return }
                await base.dismiss()
            }
        }

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let lastEvent = SeamBox<BraintreeConnectEvent?>(nil)
            let core = CoreSDKDriver(
                name: name,
                userAgent: { base in DismissAfterConnect(base: base, lastEvent: lastEvent) },
                braintreeNotify: { post in
                    { event in
                        lastEvent.withLock { $0 = event }
                        post(event)
                    }
                }
            )
            return try await core.makeSession(for: context)
        }
    }

    static let braintreeDismissOnlyOnConnect: any FlowDriver = BraintreeDismissOnlyOnConnect()
}
