import Foundation

/// Which Clover servers the SDK talks to (seed 000, "Sandbox" / "Production").
///
/// Clover splits each environment over two hosts: the web host serves the OAuth login page
/// (`/oauth/v2/authorize`), the API host serves the token endpoints and `/v3/merchants`.
public enum CloverEnvironment: Sendable, Equatable {
    /// Clover's sandbox: web `https://sandbox.dev.clover.com`, API
    /// `https://apisandbox.dev.clover.com`. Payments are validated but no money moves.
    case sandbox

    /// Clover's production: web `https://www.clover.com`, API `https://api.clover.com`.
    case production

    /// Any other pair of hosts, e.g. a fake server on `http://127.0.0.1:PORT`.
    /// `CloverConfiguration` refuses plain `http://` unless the host is loopback.
    case custom(web: URL, api: URL)

    /// The host of the login page (`/oauth/v2/authorize`).
    public var webBaseURL: URL {
        switch self {
        case .sandbox: return Self.sandboxWeb
        case .production: return Self.productionWeb
        case .custom(let web, _): return web
        }
    }

    /// The host of the token endpoints and the REST API.
    public var apiBaseURL: URL {
        switch self {
        case .sandbox: return Self.sandboxAPI
        case .production: return Self.productionAPI
        case .custom(_, let api): return api
        }
    }

    private static let sandboxWeb = URL(string: "https://sandbox.dev.clover.com")!
    private static let sandboxAPI = URL(string: "https://apisandbox.dev.clover.com")!
    private static let productionWeb = URL(string: "https://www.clover.com")!
    private static let productionAPI = URL(string: "https://api.clover.com")!
}
