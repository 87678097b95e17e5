import Foundation
import FlowCheckCoreDriver
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Conforming SDKs: the real SDK core with one small edit each that a real, conforming client
/// makes, and the passage that says why it conforms. The mirror image of the broken variants:
/// every committed flow must pass against each (`ConformingVariantsTests`), so a check stricter
/// than the provider and the RFCs shows up as a false failure here.
///
/// Each is built the way the broken ones are, by wrapping the core driver's transport, store or
/// browser seam, or by giving it another tuning constant; nothing in the SDK switches on a variant.
enum ConformingVariants {
    struct Variant: CustomTestStringConvertible, Sendable {
        let name: String
        /// Why the edit conforms: the RFC section or seed passage that allows it.
        let why: String
        let driver: any FlowDriver
        var testDescription: String { name }
    }

    static let all: [Variant] = [
        Variant(name: "grant_type in Clover's JSON token calls",
                why: "RFC 6749 §4.1.3 and §6 name grant_type in every token request; Clover ignores it",
                driver: BrokenVariants.tampering("grant_type in Clover's JSON token calls") { request in
                    switch request.url.path {
                    case "/oauth/v2/token": return insertingJSONField(request, "grant_type", "authorization_code")
                    case "/oauth/v2/refresh": return insertingJSONField(request, "grant_type", "refresh_token")
                    default: return request
                    }
                }),
        Variant(name: "redirect_uri in Clover's code exchange",
                why: "RFC 6749 §4.1.3: redirect_uri is REQUIRED in the exchange when the authorization request carried it",
                driver: RedirectURIInExchangeDriver()),
        Variant(name: "charset parameters on every Content-Type",
                why: "RFC 9110 §8.3: a media type takes parameters; application/x-www-form-urlencoded; charset=UTF-8 and application/json; charset=utf-8 name the same bodies",
                driver: BrokenVariants.tampering("charset parameters on every Content-Type") { request in
                    var request = request
                    request.headers = request.headers.map { name, value in
                        guard name.lowercased() == "content-type" else { return (name, value) }
                        return (name, value.hasPrefix("application/json") ? value + "; charset=utf-8" : value + "; charset=UTF-8")
                    }
                    return request
                }),
        Variant(name: "header names in lower case",
                why: "RFC 9110 §5.1: field names are case-insensitive (HTTP/2 stacks send them in lower case)",
                driver: BrokenVariants.tampering("header names in lower case") { request in
                    var request = request
                    request.headers = request.headers.map { ($0.0.lowercased(), $0.1) }
                    return request
                }),
        Variant(name: "form spaces as %20",
                why: "WHATWG URL §5.1 and RFC 3986 §2.1: a form decoder reads %20 as a space, as it reads +",
                driver: BrokenVariants.tampering("form spaces as %20") { request in
                    guard request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true,
                          let body = request.body, let text = String(data: body, encoding: .utf8) else { return request }
                    var request = request
                    // In an encoded form a literal + is always %2B, so every + is a space.
                    request.body = Data(text.replacingOccurrences(of: "+", with: "%20").utf8)
                    return request
                }),
        Variant(name: "Connection: close on every request",
                why: "RFC 9112 §9.6: a client may close after each response; an HTTP stack without keep-alive sends this",
                driver: BrokenVariants.tampering("Connection: close on every request") { request in
                    var request = request
                    request.headers.append(("Connection", "close"))
                    return request
                }),
        Variant(name: "renewal margin 0",
                why: "seed 003 ('If the expiry time is reached, an auth or refresh request should be made before any other request') and seed 000 fix no margin: renewing at expiry conforms",
                driver: CoreSDKDriver(name: "renewal margin 0", cloverRefreshMargin: 0, moltinRefreshMargin: 0)),
        Variant(name: "Moltin gives up at once on a Retry-After and leaves the retry to the app",
                why: "RFC 9110 §10.2.3: Retry-After says how long the client ought to wait before a follow-up request, not that it must make one; RFC 6585 §4: a 429 may carry one. Giving up at once conforms, as waiting it out on the flow's clock and retrying once (the core driver's default) does",
                driver: CoreSDKDriver(name: "gives up at once on Retry-After", moltinRetryAfterLimit: 0)),
        Variant(name: "renewal margin 5 minutes",
                why: "no seed fixes a margin; renewing 5 minutes early (the margin several platform libraries use) still never sends an expired token",
                driver: CoreSDKDriver(name: "renewal margin 5 minutes", cloverRefreshMargin: 300, moltinRefreshMargin: 300)),
        Variant(name: "bearer in lower case",
                why: "RFC 9110 §11.1: the authentication scheme is case-insensitive; RFC 6750 §2.1 names it Bearer",
                driver: BrokenVariants.tampering("bearer in lower case") { request in
                    var request = request
                    request.headers = request.headers.map { name, value in
                        name.lowercased() == "authorization" && value.hasPrefix("Bearer ") ? (name, "bearer " + value.dropFirst("Bearer ".count)) : (name, value)
                    }
                    return request
                }),
        Variant(name: "token files read-only to their owner (0400)",
                why: "RFC 6819 §5.3.3 asks for storage only the app can read; 0400 is that, as 0600 is",
                driver: CoreSDKDriver(name: "token files 0400", store: { OwnerReadOnlyStore(base: $0) })),
        Variant(name: "a lock file beside the token files",
                why: "the store's guarantees (owner-only, replaced by rename, nothing of the token left after a delete) hold; an empty 0600 lock file is layout, not a leftover",
                driver: CoreSDKDriver(name: "a lock file beside the token files", store: { LockFileStore(base: $0) })),
        Variant(name: "a 64-character state in standard base64 (+, / and =)",
                why: "RFC 6749 Appendix A.5: state is any non-empty run of VSCHAR (%x20-7E); 47 random bytes are more than §10.10 asks",
                driver: LongStateDriver()),
        Variant(name: "a 128-character PKCE verifier over all 66 unreserved characters",
                why: "RFC 7636 §4.1: a verifier is 43 to 128 characters of [A-Z] / [a-z] / [0-9] / - . _ ~",
                driver: LongVerifierDriver()),
        Variant(name: "grant_type implicit for the Moltin Auth",
                why: "seed 003, 'Obtaining a new token': grant_type can be implicit or client_credentials, and 'For iOS apps, the implicit value should be used'",
                driver: BrokenVariants.tampering("grant_type implicit") { request in
                    guard request.url.path == "/oauth/access_token" else { return request }
                    var request = request
                    request.body = BrokenVariants.formRewrite(request.body) { $0.map { $0.0 == "grant_type" && $0.1 == "client_credentials" ? ($0.0, "implicit") : $0 } }
                    return request
                }),
        Variant(name: "Clever's token request as a form",
                why: "RFC 6749 §4.1.3 sends the token request as application/x-www-form-urlencoded; seed 004 names no body format, and Clever takes a form or JSON",
                driver: BrokenVariants.tampering("Clever's token request as a form") { request in
                    guard request.url.path == "/oauth/tokens", let body = request.body,
                          let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: String] else { return request }
                    var request = request
                    request.body = Data(FormURLEncoding.encode(object.sorted { $0.key < $1.key }).utf8)
                    request.headers = request.headers.map { $0.0.lowercased() == "content-type" ? ($0.0, "application/x-www-form-urlencoded") : $0 }
                    return request
                }),
        Variant(name: "response_type=CODE for Clever",
                why: "seed 004, 'Step 3 - Initiating a login', writes the authorize URL with response_type=CODE, and Clever takes it",
                driver: CoreSDKDriver(name: "response_type=CODE", userAgent: { base in
                    // Clever's authorize page only: Clover's documents write code.
                    RawQueryUserAgent(base: base, paths: ["/oauth/authorize"]) { query in
                        query.split(separator: "&", omittingEmptySubsequences: false).map { $0 == "response_type=code" ? "response_type=CODE" : String($0) }.joined(separator: "&")
                    }
                })),
        Variant(name: "JSON and form fields in another order",
                why: "RFC 8259 §4: an object's members are unordered; WHATWG URL §5.1: a form's fields are read by name",
                driver: BrokenVariants.tampering("fields in another order") { request in
                    guard let body = request.body, !body.isEmpty else { return request }
                    var request = request
                    let type = request.header("Content-Type") ?? ""
                    if type.hasPrefix("application/json"), let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] {
                        request.body = reversedJSON(object)
                    } else if type.hasPrefix("application/x-www-form-urlencoded") {
                        request.body = BrokenVariants.formRewrite(body) { $0.reversed() }
                    }
                    return request
                }),
        Variant(name: "an extra authorize parameter the server ignores",
                why: "RFC 6749 §3.1: the authorization server MUST ignore unrecognized request parameters",
                driver: CoreSDKDriver(name: "an extra authorize parameter", userAgent: { base in
                    RawQueryUserAgent(base: base) { $0 + "&prompt=login" }
                })),
        Variant(name: "the authorize URL's scheme in capitals",
                why: "RFC 3986 §3.1: schemes are case-insensitive (canonical form is lower case, but HTTP:// is the same URL)",
                driver: CoreSDKDriver(name: "HTTP:// authorize URL", userAgent: { base in UppercaseSchemeUserAgent(base: base) })),
        Variant(name: "Moltin's client credentials kept as the app's constants across a relaunch",
                why: "seed 003's tutorial holds kClientId and kClientSecret as app constants, so after a relaunch an expired token is renewed (seed 003: an auth or refresh request before any other request) instead of reported as not logged in; nothing in the seeds or RFC 8252 §8.5 forbids keeping them (a secret shipped in an app is no secret)",
                driver: CoreSDKDriver(name: "credentials kept across a relaunch", moltinCredentialStore: { _ in InMemoryTokenStore() })),
        Variant(name: "Clover and Clever logins in the device's own browser, never dismissed (externalBrowser)",
                why: "seed 000: the Clover SDK 'will call out to an external browser'; seed 004: on iOS 11 Clever's login opens in Safari; an app cannot close either (RFC 8252 §6, an external user agent). Braintree's seed 002 presents and dismisses its page, so there the variant dismisses as the core does",
                driver: ExternalBrowserDriver()),
        Variant(name: "a GET sent once more, at once, after a 5xx (with no Retry-After) or a dropped connection",
                why: "RFC 9110 §9.2.2 and RFC 9112 §9.3.1: a client may repeat an idempotent request that failed, as URLSession does after a reset and retry policies do after a 5xx; a POST is never repeated",
                driver: CoreSDKDriver(name: "a GET retried once", transport: { base in RetryingGETTransport(base: base) })),
    ]

    /// Sends a GET once more when it failed with a 5xx that names no Retry-After (one that does
    /// is the server asking for a wait: INV-RETRY-AFTER), or without an answer.
    struct RetryingGETTransport: HTTPTransport {
        let base: any HTTPTransport

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard request.method == "GET" else { return try await base.send(request) }
            do {
                let response = try await base.send(request)
                guard response.status >= 500, response.header("Retry-After") == nil else { return response }
            } catch is CancellationError {
                throw CancellationError()
            } catch {}
            return try await base.send(request)
        }
    }

    // MARK: - Body edits

    /// The request with `"name": "value"` added as the JSON object body's first member; the
    /// rest of the body is left byte for byte.
    static func insertingJSONField(_ request: TransportRequest, _ name: String, _ value: String) -> TransportRequest {
        guard let body = request.body, let text = String(data: body, encoding: .utf8),
              let open = text.firstIndex(of: "{") else { return request }
        let rest = text[text.index(after: open)...]
        let separator = rest.trimmingCharacters(in: .whitespaces).hasPrefix("}") ? "" : ","
        var request = request
        request.body = Data((text[...open] + "\"\(name)\":\"\(value)\"" + separator + rest).utf8)
        return request
    }

    /// A JSON object written with its members in descending name order (the core writes them in
    /// ascending order).
    static func reversedJSON(_ object: [String: Any]) -> Data {
        let members = object.keys.sorted(by: >).map { key -> String in
            let name = String(decoding: try! JSONSerialization.data(withJSONObject: key, options: .fragmentsAllowed), as: UTF8.self)
            let value = String(decoding: try! JSONSerialization.data(withJSONObject: object[key]!, options: .fragmentsAllowed), as: UTF8.self)
            return name + ":" + value
        }
        return Data(("{" + members.joined(separator: ",") + "}").utf8)
    }

    // MARK: - Browser seam

    /// Rewrites the raw (percent-encoded) query of every URL the SDK opens.
    struct RawQueryUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent
        /// The paths whose URLs are rewritten; nil: every login page (Braintree's connect URL
        /// is its merchant backend's, not the SDK's).
        var paths: Set<String>? = nil
        let rewrite: @Sendable (String) -> String

        func open(_ url: URL) async throws {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let query = components.percentEncodedQuery,
                  !(components.path.hasPrefix("/braintree")), paths?.contains(components.path) ?? true else { return try await base.open(url) }
            components.percentEncodedQuery = rewrite(query)
            try await base.open(components.url ?? url)
        }

        func dismiss() async { await base.dismiss() }
    }

    /// Opens `HTTP://` where the SDK wrote `http://`.
    /// Opens as the core does and never dismisses: the device's own browser.
    struct NeverDismissingUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent

        func open(_ url: URL) async throws { try await base.open(url) }
        func dismiss() async {}
    }

    /// The core, with Clover's and Clever's logins in the device's own browser
    /// (``NeverDismissingUserAgent``) and sessions that say so; Braintree's as the core's.
    struct ExternalBrowserDriver: FlowDriver {
        let name = "logins in the device's own browser"

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            guard context.provider != .braintree else { return try await CoreSDKDriver(name: name).makeSession(for: context) }
            let inner = try await CoreSDKDriver(name: name, userAgent: { NeverDismissingUserAgent(base: $0) }).makeSession(for: context)
            return ExternalBrowserSession(inner: inner)
        }
    }

    /// Forwards everything to the core's session, and says it opens an external browser.
    final class ExternalBrowserSession: FlowSession {
        let inner: any FlowSession
        init(inner: any FlowSession) { self.inner = inner }

        func perform(_ call: AppCall) async throws -> CallOutcome { try await inner.perform(call) }
        func storeContents() async throws -> [String: String] { try await inner.storeContents() }
        func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
        func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { try await inner.armStoreCrash(point) }
        func sentRequests() async -> [SentRequest]? { await inner.sentRequests() }
        func finish() async -> DriverError? { await inner.finish() }
        func log() async -> [String] { await inner.log() }
        func close() async { await inner.close() }
        func opensExternalBrowser() async -> Bool { true }
    }

    struct UppercaseSchemeUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent

        func open(_ url: URL) async throws {
            let text = url.absoluteString
            guard text.hasPrefix("http://"), let upper = URL(string: "HTTP://" + text.dropFirst("http://".count)) else { return try await base.open(url) }
            try await base.open(upper)
        }

        func dismiss() async { await base.dismiss() }
    }

    // MARK: - Stores

    /// Leaves each token file at 0400 after every write: still the owner's alone.
    struct OwnerReadOnlyStore: InterruptibleTokenStore {
        let base: FileTokenStore

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func delete(_ key: String) throws { try base.delete(key) }
        func keys() throws -> [String] { try base.keys() }

        func write(_ data: Data, for key: String) throws {
            try base.write(data, for: key)
            guard chmod(try base.fileURL(forKey: key).path, 0o400) == 0 else { throw StoreWriteError("could not make the token file read-only") }
        }

        func writeUntilCrash(_ data: Data, for key: String, at point: StoreCrashPoint) throws { try base.writeUntilCrash(data, for: key, at: point) }
    }

    /// Takes an advisory lock on an empty `.lock` file (0600) in the store's folder around every
    /// write and delete, as stores shared between an app and its extensions do; the lock file
    /// stays, holding nothing.
    struct LockFileStore: InterruptibleTokenStore {
        let base: FileTokenStore

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func keys() throws -> [String] { try base.keys() }
        func write(_ data: Data, for key: String) throws { try locked { try base.write(data, for: key) } }
        func delete(_ key: String) throws { try locked { try base.delete(key) } }
        func writeUntilCrash(_ data: Data, for key: String, at point: StoreCrashPoint) throws { try locked { try base.writeUntilCrash(data, for: key, at: point) } }

        private func locked(_ body: () throws -> Void) throws {
            let descriptor = open(base.directory.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw StoreWriteError("could not open the store's lock file") }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX) == 0 else { throw StoreWriteError("could not lock the store") }
            defer { flock(descriptor, LOCK_UN) }
            try body()
        }
    }
}

// MARK: - Drivers whose edit spans the browser seam and the wire

/// Sends, in Clover's code exchange, the `redirect_uri` of the authorize URL it opened.
struct RedirectURIInExchangeDriver: FlowDriver {
    let name = "redirect_uri in Clover's code exchange"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        let redirect = Locked<String?>(nil)
        let core = CoreSDKDriver(name: name, transport: { base in
            BrokenVariants.TamperingTransport(base: base) { request in
                guard request.url.path == "/oauth/v2/token", let uri = redirect.withLock({ $0 }) else { return request }
                return ConformingVariants.insertingJSONField(request, "redirect_uri", uri)
            }
        }, userAgent: { base in
            ObservingUserAgent(base: base) { url in
                if let uri = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "redirect_uri" })?.value {
                    redirect.withLock { $0 = uri }
                }
            }
        })
        return try await core.makeSession(for: context)
    }
}

/// Hands every URL the SDK opens to `observe` first.
struct ObservingUserAgent: ExternalUserAgent {
    let base: any ExternalUserAgent
    let observe: @Sendable (URL) -> Void

    func open(_ url: URL) async throws {
        observe(url)
        try await base.open(url)
    }

    func dismiss() async { await base.dismiss() }
}

/// A client whose `state` is 47 random bytes in standard base64 (64 characters, with `+`, `/`
/// and a final `=`), sent percent-encoded and read back with the form rules (`+` is a space),
/// as the core reads its redirects.
///
/// Built around the core: the state the core made is swapped for this client's on the way to
/// the browser, and this client's is swapped back when a redirect carrying it reaches the app.
/// A redirect carrying anything else (a tampered or forged state) reaches the core unchanged.
struct LongStateDriver: FlowDriver {
    let name = "a 64-character state in standard base64"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        // This client's state -> the core's.
        let states = Locked<[String: String]>([:])
        let core = CoreSDKDriver(name: name, userAgent: { base in
            LongStateUserAgent(base: base, states: states)
        })
        return RedirectRewritingSession(inner: try await core.makeSession(for: context)) { url in
            VariantQuery.replacing("state", in: url) { value in states.withLock { $0[value] } }
        }
    }

    struct LongStateUserAgent: ExternalUserAgent {
        let base: any ExternalUserAgent
        let states: Locked<[String: String]>

        func open(_ url: URL) async throws {
            // Braintree's state is its merchant backend's, not the app's.
            guard !url.path.hasPrefix("/braintree") else { return try await base.open(url) }
            let replaced = VariantQuery.replacing("state", in: url.absoluteString) { core in
                var random = SystemRandomNumberGenerator()
                let mine = Data((0..<47).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
                states.withLock { $0[mine] = core }
                return mine
            }
            try await base.open(URL(string: replaced) ?? url)
        }

        func dismiss() async { await base.dismiss() }
    }
}

/// Hands the SDK every `receiveRedirect` URL rewritten by `rewrite`; everything else, the
/// store's crash and files and the sent requests included, is the inner session's.
final class RedirectRewritingSession: FlowSession {
    let inner: any FlowSession
    let rewrite: @Sendable (String) -> String

    init(inner: any FlowSession, rewrite: @escaping @Sendable (String) -> String) {
        self.inner = inner
        self.rewrite = rewrite
    }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        guard call.name == "receiveRedirect", let url = call.arguments["url"] else { return try await inner.perform(call) }
        var arguments = call.arguments
        arguments["url"] = rewrite(url)
        return try await inner.perform(AppCall(name: call.name, arguments: arguments))
    }

    func storeContents() async throws -> [String: String] { try await inner.storeContents() }
    func close() async { await inner.close() }
    func storeLocation() async throws -> StoreLocation? { try await inner.storeLocation() }
    func armStoreCrash(_ point: StoreCrashPoint) async throws -> StoreCrashSupport { try await inner.armStoreCrash(point) }
    func sentRequests() async -> [SentRequest]? { await inner.sentRequests() }
}

/// A client whose PKCE verifier is 128 characters drawn from all 66 unreserved characters.
///
/// Built around the core: the challenge the core sent is swapped for the S256 challenge of this
/// client's verifier on the way to the browser, and the core's verifier for this client's in the
/// code exchange.
struct LongVerifierDriver: FlowDriver {
    let name = "a 128-character PKCE verifier"
    static let unreserved = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        // The core's challenge -> this client's verifier.
        let verifiers = Locked<[String: String]>([:])
        let core = CoreSDKDriver(name: name, transport: { base in
            BrokenVariants.TamperingTransport(base: base) { request in
                guard request.url.path == "/oauth/v2/token", let body = request.body,
                      let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: String],
                      let coreVerifier = object["code_verifier"],
                      let mine = verifiers.withLock({ $0[PKCE.challenge(for: coreVerifier)] }) else { return request }
                var request = request
                // The core's verifier is unreserved characters only: it appears in the body as written.
                request.body = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"\(coreVerifier)\"", with: "\"\(mine)\"").utf8)
                return request
            }
        }, userAgent: { base in
            TransformingUserAgent(base: base) { url in
                URL(string: VariantQuery.replacing("code_challenge", in: url.absoluteString) { coreChallenge in
                    var random = SystemRandomNumberGenerator()
                    let mine = String((0..<128).map { _ in Self.unreserved[Int.random(in: 0..<Self.unreserved.count, using: &random)] })
                    verifiers.withLock { $0[coreChallenge] = mine }
                    return PKCE.challenge(for: mine)
                }) ?? url
            }
        })
        return try await core.makeSession(for: context)
    }
}

/// Opens `transform(url)` where the SDK asked for `url`.
struct TransformingUserAgent: ExternalUserAgent {
    let base: any ExternalUserAgent
    let transform: @Sendable (URL) -> URL

    func open(_ url: URL) async throws { try await base.open(transform(url)) }
    func dismiss() async { await base.dismiss() }
}

/// Edits one parameter of a URL's raw query and leaves every other byte as it was.
enum VariantQuery {
    /// `url` with the value of each `name` parameter replaced by `transform(decoded value)`,
    /// percent-encoded (every byte but the unreserved ones); a nil answer leaves that one as it was.
    static func replacing(_ name: String, in url: String, _ transform: (String) -> String?) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let head = url[...question]
        let afterQuery = url[url.index(after: question)...]
        let fragmentStart = afterQuery.firstIndex(of: "#") ?? afterQuery.endIndex
        let pieces = afterQuery[..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false).map { piece -> String in
            guard let equals = piece.firstIndex(of: "="), piece[..<equals] == name,
                  let value = FormURLEncoding.decode(String(piece))?.first?.1,
                  let replaced = transform(value) else { return String(piece) }
            return name + "=" + encode(replaced)
        }
        return head + pieces.joined(separator: "&") + afterQuery[fragmentStart...]
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
