import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Issue 11, harness feature 4: Clover SDKs that mix up its two hosts. Clover's custom
/// environment takes a web base URL (the login pages) and an API base URL (the token
/// endpoints and `/v3/merchants`); each defect here is the one-word slip a shipping SDK makes in
/// `CloverEnvironment`'s `webBaseURL` / `apiBaseURL` switch, modelled by handing our SDK core
/// the environment that slip produces.
enum OriginBrokenVariants {
    /// `apiBaseURL` answers the web URL for a custom environment (`case .custom(let web, _):
    /// return web`): the code exchange, the refresh and every merchant call, Bearer token and
    /// all, go to the login host.
    static let apiCallsToWebHost: any FlowDriver = SwappedHostsDriver(name: "custom environment uses the web URL for the API") { urls in
        urls["api"] = urls["web"]
    }

    /// The merchant call is built on the web base URL (`environment.webBaseURL
    /// .appendingPathComponent("v3/merchants/\(id)")`, a slip in one call site while the
    /// token calls are right): the Bearer token goes to the login host.
    static let merchantCallToWebHost: any FlowDriver = MerchantOnWebHostDriver()

    /// `webBaseURL` answers the API URL for a custom environment: the login page is opened on
    /// the API host.
    static let authorizeOnAPIHost: any FlowDriver = SwappedHostsDriver(name: "custom environment opens the login page on the API host") { urls in
        urls["web"] = urls["api"]
    }
}

/// Our SDK core built over the custom environment a host mix-up produces.
struct SwappedHostsDriver: FlowDriver {
    let name: String
    let swap: @Sendable (inout [String: URL]) -> Void

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        var context = context
        swap(&context.baseURLs)
        return try await CoreSDKDriver().makeSession(for: context)
    }
}

/// Our SDK core whose merchant calls go to the web host.
struct MerchantOnWebHostDriver: FlowDriver {
    let name = "merchant call built on the web base URL"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        guard let web = context.baseURLs["web"] else { return try await CoreSDKDriver().makeSession(for: context) }
        return try await CoreSDKDriver(transport: { base in
            BrokenVariants.TamperingTransport(base: base) { request in
                guard request.url.path.hasPrefix("/v3/merchants/"),
                      var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return request }
                components.port = web.port
                var request = request
                request.url = components.url ?? request.url
                return request
            }
        }).makeSession(for: context)
    }
}
