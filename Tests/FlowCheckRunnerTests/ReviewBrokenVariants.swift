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
}
