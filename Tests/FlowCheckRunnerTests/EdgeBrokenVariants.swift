import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Deliberately broken SDKs for the flows off the happy path of issue 11 (Clever denials, one
/// client-authentication method per token call, trusted-source edges, loopback look-alikes, the
/// connect URL a merchant's server hands out). Each is the real SDK core with one defect of the
/// kind shipping mobile OAuth SDKs have.
enum EdgeBrokenVariants {
    // MARK: - Loopback look-alikes (CLV-API-4)

    /// Decides "loopback" by the start of the host name, as in
    /// `host.hasPrefix("127.") || host.hasPrefix("localhost")`: a DNS name such as
    /// 127.0.0.1.example.com or localhost.example.com passes for the device's own loopback.
    static let loopbackByPrefix: any FlowDriver = CoreSDKDriver(
        name: "loopback judged by string prefix",
        cloverBaseURLPolicy: BaseURLPolicy { host in host.hasPrefix("127.") || host.lowercased().hasPrefix("localhost") }
    )

    // MARK: - Clever denials (CLE-DENIED)

    /// Looks for `error` before it compares the state (`if let error = params["error"] { end the
    /// login; throw }`), so any page that opens the app's URL with an error cancels the login in
    /// progress. Built by handing the SDK its own state whenever the redirect carries an error.
    static let errorBeforeState = BrokenVariants.overriding("error redirect judged before its state") { call, inner, context in
        guard call.name == "receiveRedirect", let url = call.arguments["url"], let components = URLComponents(string: url),
              components.queryItems?.contains(where: { $0.name == "error" }) == true,
              let opened = context.browser.opened.last,
              let sent = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "state" })?.value
        else { return nil }
        let fixed = CloverBrokenVariants.query(components) { items in items.filter { $0.name != "state" } + [URLQueryItem(name: "state", value: sent)] }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": fixed.string ?? url]))
    }

    /// Whether the session's last login reached the token endpoint.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set(_ new: Bool) { lock.lock(); value = new; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    }

    /// Notes every request to a path.
    struct ObservingTransport: HTTPTransport {
        let base: any HTTPTransport
        let path: String
        let flag: Flag
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            if request.url.path == path { flag.set(true) }
            return try await base.send(request)
        }
    }

    /// Forwards `dismiss` only when the login got as far as the token request.
    struct DismissesAfterTokenOnly: ExternalUserAgent {
        let base: any ExternalUserAgent
        let flag: Flag
        func open(_ url: URL) async throws {
            flag.set(false)
            try await base.open(url)
        }
        func dismiss() async {
            if flag.isSet { await base.dismiss() }
        }
    }

    /// Closes the browser only on the success path (the `dismiss` sits after the token exchange,
    /// not where every login ends): a denied login leaves Clever's page on screen.
    struct DenialLeavesBrowserOpen: FlowDriver {
        let name = "a denial leaves the browser open"
        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let flag = Flag()
            return try await CoreSDKDriver(
                name: name,
                transport: { ObservingTransport(base: $0, path: "/oauth/tokens", flag: flag) },
                userAgent: { DismissesAfterTokenOnly(base: $0, flag: flag) }
            ).makeSession(for: context)
        }
    }

    static let denialLeavesBrowserOpen: any FlowDriver = DenialLeavesBrowserOpen()

    // MARK: - One client-authentication method per token request

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Moltin: sends the client's id and secret in a Basic header as well as in the form, two
    /// methods in one request (`client_secret_basic` and `client_secret_post` at once).
    static let moltinBasicAlongsideForm = BrokenVariants.tampering("Basic header alongside the form credentials") { request in
        guard request.url.path == "/oauth/access_token", let body = request.body, let text = String(data: body, encoding: .utf8),
              let fields = FormURLEncoding.decode(text),
              let id = fields.first(where: { $0.0 == "client_id" })?.1, let secret = fields.first(where: { $0.0 == "client_secret" })?.1
        else { return request }
        var request = request
        request.headers.append(("Authorization", basic(id, secret)))
        return request
    }

    /// Clover: authenticates the code exchange and the refresh with Basic `client_id:` as well as
    /// the JSON body's `client_id` (the Clever habit carried over to a PKCE client).
    static let cloverBasicAlongsideJSON = BrokenVariants.tampering("Basic header alongside the JSON client_id") { request in
        guard ["/oauth/v2/token", "/oauth/v2/refresh"].contains(request.url.path) else { return request }
        var request = request
        request.headers.append(("Authorization", basic("APP1", "")))
        return request
    }

    /// Clever: keeps its token-request headers in a list it appends to on every login (a
    /// `defaultHeaders` property, say), so the second login's request carries the Basic
    /// credentials twice.
    static let cleverHeadersAccumulate: any FlowDriver = CoreSDKDriver(name: "token-request headers accumulate", transport: { base in
        let count = Counter()
        return BrokenVariants.TamperingTransport(base: base) { request in
            guard request.url.path == "/oauth/tokens", let header = request.headers.first(where: { $0.0.lowercased() == "authorization" }) else { return request }
            var request = request
            for _ in 0..<count.next() { request.headers.append(header) }
            return request
        }
    })

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        /// The count before this call.
        func next() -> Int { lock.lock(); defer { value += 1; lock.unlock() }; return value }
    }

    // MARK: - Trusted-source edges (BT-TRUSTED-EDGES, BT-RDNS-HOST)

    /// The URL with its scheme, host and path replaced by the trusted ones, the query kept.
    static func retarget(_ components: URLComponents, onto trusted: String) -> String? {
        guard var target = URLComponents(string: trusted) else { return nil }
        target.percentEncodedQuery = components.percentEncodedQuery
        return target.string
    }

    /// Compares the host with `hasSuffix`: `evilbraintree` and `attacker.braintree` pass for
    /// `braintree`.
    static let hostBySuffix = BrokenVariants.overriding("host checked with hasSuffix") { call, inner, _ in
        guard call.name == "openURL", let url = call.arguments["url"], var components = URLComponents(string: url),
              let host = components.host, let trusted = URL(string: call.arguments["returnURL"] ?? "")?.host,
              host != trusted, host.lowercased().hasSuffix(trusted.lowercased()) else { return nil }
        components.host = trusted
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": components.string ?? url, "returnURL": call.arguments["returnURL"] ?? ""]))
    }

    /// Reads the parameters it needs (`merchant_id`, `error`, `error_description`) and ignores
    /// the rest, so a return URL carrying a code, a token or a secret is acted on.
    static let credentialsIgnored = BrokenVariants.overriding("credential-like parameters ignored") { call, inner, _ in
        guard call.name == "openURL", let url = call.arguments["url"], let components = URLComponents(string: url),
              let items = components.queryItems else { return nil }
        let kept = CloverBrokenVariants.query(components) { $0.filter { ["merchant_id", "error", "error_description"].contains($0.name) } }
        guard kept.queryItems?.count != items.count else { return nil }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": kept.string ?? url, "returnURL": call.arguments["returnURL"] ?? ""]))
    }

    /// Trusts a URL by its scheme and the last path segment (`connected` or `failed`), as in
    /// `url.scheme == "com.example.merchantapp" && url.lastPathComponent == "connected"`: a host,
    /// and whatever path comes before, are never looked at.
    static let schemeOnly = BrokenVariants.overriding("trusted by scheme only") { call, inner, _ in
        guard call.name == "openURL", let url = call.arguments["url"], let parsed = URL(string: url),
              let components = URLComponents(string: url), let returnURL = call.arguments["returnURL"],
              parsed.scheme?.lowercased() == URL(string: returnURL)?.scheme?.lowercased(),
              ["connected", "failed"].contains(parsed.lastPathComponent),
              let trusted = retarget(components, onto: returnURL + "/" + parsed.lastPathComponent), trusted != url
        else { return nil }
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": trusted, "returnURL": returnURL]))
    }

    /// Clever: compares the redirect's host to the registered one with `hasSuffix`, so
    /// `evil-oauth` and `attacker.oauth` pass for `oauth`.
    static let cleverHostBySuffix = BrokenVariants.overriding("redirect host checked with hasSuffix") { call, inner, context in
        guard call.name == "receiveRedirect", let url = call.arguments["url"], var components = URLComponents(string: url),
              let host = components.host, let opened = context.browser.opened.last,
              let registered = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "redirect_uri" })?.value,
              let trusted = URL(string: registered)?.host, host != trusted, host.lowercased().hasSuffix(trusted.lowercased())
        else { return nil }
        components.host = trusted
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": components.string ?? url]))
    }

    // MARK: - The connect URL the merchant's server hands out (BT-CONNECT-URL)

    /// Opens whatever URL the backend hands out: its URL policy takes every host for loopback
    /// (`isLoopback: { _ in true }`, a debug setting that shipped), so a plain-http connect URL is
    /// opened.
    static let opensAnyConnectURL: any FlowDriver = CoreSDKDriver(
        name: "opens any connect URL", braintreeURLPolicy: BaseURLPolicy { _ in true }
    )
}
