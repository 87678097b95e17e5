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
        if case .error("invalidResponse", _) = try await inner.perform(call) { return .ok(["productCount": "0", "productIds": "", "productTitles": ""]) }
        return nil
    }
}
