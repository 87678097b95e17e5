import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Broken clients for the fault flows (FLT-*).
enum FaultBrokenVariants {
    /// Follows redirects from API calls, as URLSession does by default.
    struct FollowingTransport: HTTPTransport {
        let base: any HTTPTransport

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            var response = try await base.send(request)
            for _ in 0..<5 {
                guard (300...399).contains(response.status), let location = response.headers["location"],
                      let target = URL(string: location, relativeTo: request.url)?.absoluteURL else { break }
                request.url = target
                response = try await base.send(request)
            }
            return response
        }
    }

    static let followsRedirects: any FlowDriver = CoreSDKDriver(name: "follows redirects", transport: { FollowingTransport(base: $0) })

    /// Reads an unparseable product list as an empty one.
    static let truncatedIsEmpty = BrokenVariants.overriding("truncated answer read as an empty list") { call, inner, _ in
        guard call.name == "products" else { return nil }
        let outcome = try await inner.perform(call)
        if case .error("invalidResponse", _) = outcome { return .ok(["productCount": "0", "productIds": "", "productTitles": ""]) }
        return outcome
    }

    /// Treats any failed token call as a logout: a lenient client that cannot tell a network
    /// fault from a refused grant throws away a token that was still good.
    static let failedTokenCallClearsStore = BrokenVariants.overriding("a failed token call clears the store") { call, inner, _ in
        guard call.name == "auth" || call.name == "refreshToken" else { return nil }
        let outcome = try await inner.perform(call)
        if case .error = outcome { _ = try await inner.perform(AppCall(name: "deleteToken")) }
        return outcome
    }

    /// Reports every failure as one kind, as an SDK with a single catch-all error does; the
    /// message is kept, so only the kind is wrong.
    static func oneErrorKind(_ kind: String) -> any FlowDriver {
        BrokenVariants.overriding("every error is \(kind)") { call, inner, _ in
            let outcome = try await inner.perform(call)
            if case .error(_, let message) = outcome { return .error(kind: kind, message: message) }
            return outcome
        }
    }

    /// No request timeout worth the name: an hour on the SDK's clock, which a stalled flow
    /// moves by only 31 seconds.
    static let noTimeout: any FlowDriver = CoreSDKDriver(name: "no request timeout", requestTimeout: 3600)
}
