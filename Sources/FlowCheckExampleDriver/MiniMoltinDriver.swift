import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckProviders
import FlowCheckRunner
import FlowCheckSpec

/// An example of checking an SDK that is not ours: a small, self-contained Moltin client (it
/// shares no code with FlowCheck's SDK core) and the driver that puts it under the runner.
///
/// This is what another team writes in their own package, with their SDK in place of
/// `MiniMoltinClient`:
/// ```swift
/// let specs = try SpecLoader().load(paths: ["specs/moltin"]).specs
/// let results = await FlowRunner(driver: MiniMoltinDriver()).run(specs)
/// #expect(results.allSatisfy { $0.status == .passed })
/// ```
public struct MiniMoltinDriver: FlowDriver {
    public let name = "MiniMoltin (example driver)"

    public init() {}

    /// Moltin only, and no request timeout on the flow's clock: flows of other providers, and
    /// flows whose server stalls (they would wait for the runner's real-time limit), are not run.
    public func unsupportedReason(for spec: FlowSpec) async -> String? {
        guard spec.provider == .moltin else { return "MiniMoltin speaks Moltin only, not \(spec.provider.rawValue)" }
        let stalls = spec.steps.contains { step in
            if case .fault(let fault)? = step.action { return fault.kind == "stall" }
            return false
        }
        return stalls ? "MiniMoltin has no request timeout on the flow's clock, and this flow's server stalls" : nil
    }

    public func makeSession(for context: DriverContext) async throws -> any FlowSession {
        guard context.provider == .moltin else { throw DriverError("MiniMoltin speaks Moltin only, not \(context.provider.rawValue)") }
        return MiniMoltinSession(client: MiniMoltinClient(baseURL: context.baseURL, now: { context.clock.now }))
    }
}

/// The driver's session: maps app actions onto the client, errors onto the harness's kinds.
final class MiniMoltinSession: FlowSession {
    private let client: MiniMoltinClient

    init(client: MiniMoltinClient) {
        self.client = client
    }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        do {
            switch call.name {
            case "auth": try await client.auth(id: call.arguments["clientId"] ?? "", secret: call.arguments["clientSecret"] ?? "")
            case "refreshToken": try await client.renew(refreshOnly: true)
            case "deleteToken": await client.deleteToken()
            case "products":
                let products = try await client.products()
                return .ok(["productCount": String(products.count), "productIds": products.map(\.id).joined(separator: ","), "productTitles": products.map(\.title).joined(separator: ",")])
            case "relaunch": await client.forgetCredentials()
            default: throw DriverError.unsupported(call, provider: .moltin)
            }
            return .ok([:])
        } catch let error as MiniMoltinClient.Failure {
            return .error(kind: error.kind, message: error.message)
        }
    }

    func storeContents() async throws -> [String: String] {
        guard let token = await client.token else { return [:] }
        return ["accessToken": token.value, "tokenType": "Bearer", "expiresAt": String(Int(token.expiresAt.timeIntervalSince1970))]
    }

    func close() async {
        await client.close()
    }
}

/// A deliberately small Moltin client: client credentials, refresh, products with one bounded
/// recovery from "Access token is not valid", and expiry handled before use. An actor: every
/// call the session makes is async already, so its token and credentials need no lock.
actor MiniMoltinClient {
    struct Token: Sendable {
        var value: String
        var expiresAt: Date
    }

    struct Failure: Error {
        var kind: String
        var message: String
    }

    private let baseURL: URL
    private let now: @Sendable () -> Date
    private let session = URLSession(configuration: .ephemeral)
    private(set) var token: Token?
    /// Set by `close()`: a call still running afterwards (one the app started in the
    /// background) must not touch the invalidated session, which on Linux is a fatal error.
    private var closed = false
    /// The remembered Auth credentials (in memory only: a relaunch forgets them).
    private var savedCredentials: (id: String, secret: String)?

    init(baseURL: URL, now: @escaping @Sendable () -> Date) {
        self.baseURL = baseURL
        self.now = now
    }

    func deleteToken() {
        token = nil
    }

    func forgetCredentials() {
        savedCredentials = nil
    }

    func close() {
        closed = true
        session.finishTasksAndInvalidate()
    }

    func auth(id: String, secret: String) async throws {
        token = try await requestToken(["grant_type": "client_credentials", "client_id": id, "client_secret": secret])
        savedCredentials = (id, secret)
    }

    /// Refreshes with the current token; when not `refreshOnly`, falls back to a new Auth.
    func renew(refreshOnly: Bool = false) async throws {
        guard let credentials = savedCredentials, let current = token else { throw Failure(kind: "notLoggedIn", message: "no token to refresh") }
        do {
            token = try await requestToken(["grant_type": "refresh_token", "client_id": credentials.id, "client_secret": credentials.secret, "refresh_token": current.value])
        } catch let failure as Failure where failure.kind == "tokenEndpoint" && !refreshOnly {
            try await auth(id: credentials.id, secret: credentials.secret)
        }
    }

    func products() async throws -> [(id: String, title: String)] {
        if let current = token, current.expiresAt.timeIntervalSince(now()) < 60 { try await renew() }
        var (status, json) = try await send("GET", "v1/products", body: nil)
        if status == 401, (json?["error"] as? String) == "Access token is not valid", token != nil {
            try await renew()
            (status, json) = try await send("GET", "v1/products", body: nil)
            if status == 401 { throw Failure(kind: "tokenRejected", message: json?["error"] as? String ?? "token rejected") }
        }
        guard status == 200 else { throw Self.failure(status, json, endpoint: false) }
        guard let result = json?["result"] as? [[String: Any]] else { throw Failure(kind: "invalidResponse", message: "no product list") }
        return result.compactMap { item in (item["id"] as? String).flatMap { id in (item["title"] as? String).map { (id, $0) } } }
    }

    private func requestToken(_ fields: [String: String]) async throws -> Token {
        let (status, json) = try await send("POST", "oauth/access_token", body: fields)
        guard status == 200 else { throw Self.failure(status, json, endpoint: true) }
        guard let value = json?["access_token"] as? String else { throw Failure(kind: "invalidResponse", message: "no access_token") }
        // Moltin's absolute `expires`, else RFC 6749's `expires_in`, else seed 003's hour.
        let expires = (json?["expires"] as? Double).map(Date.init(timeIntervalSince1970:))
            ?? now().addingTimeInterval((json?["expires_in"] as? Double) ?? 3600)
        return Token(value: value, expiresAt: expires)
    }

    private static func failure(_ status: Int, _ json: [String: Any]?, endpoint: Bool) -> Failure {
        let message = json?["error"] as? String ?? "HTTP \(status)"
        if status >= 500 { return Failure(kind: "serverError", message: message) }
        // 429 asks the client to slow down: no verdict on the grant, so no fallback Auth.
        if status == 429 { return Failure(kind: "httpStatus", message: message) }
        if json == nil { return Failure(kind: "invalidResponse", message: "the answer was not JSON") }
        return Failure(kind: endpoint ? "tokenEndpoint" : "httpStatus", message: message)
    }

    /// x-www-form-urlencoded: only ALPHA / DIGIT / "-" / "." / "_" / "*" stay as they are.
    private static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._*")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    private func send(_ method: String, _ path: String, body: [String: String]?) async throws -> (Int, [String: Any]?) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(Self.formEncode(body).utf8)
        } else if let token {
            request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
        }
        // Checked on the actor with no suspension before the task is made: close() cannot
        // come in between.
        guard !closed else { throw Failure(kind: "transport", message: "the client was closed") }
        let (data, response): (Data?, URLResponse?) = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: error == nil ? (data, response) : (nil, nil))
            }.resume()
        }
        guard let http = response as? HTTPURLResponse else { throw Failure(kind: "transport", message: "the server could not be reached") }
        let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
        return (http.statusCode, json)
    }
}
