import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner

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
