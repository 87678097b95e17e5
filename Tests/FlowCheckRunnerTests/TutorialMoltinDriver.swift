import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckRunner
import FlowCheckSpec

/// The Moltin tutorial's client (seed 003, "Moltin API interface" and "Token Storage"),
/// transcribed faithfully, defects included, behind the driver protocol:
/// - form values escaped with `.urlHostAllowed` (so `&`, `=` and `+` pass unescaped);
/// - no expiry handling ("The largest missing functionality ... is the token expiration");
/// - `refreshToken()` is the tutorial's placeholder;
/// - `getProducts` force-unwraps the response data (`data!`), which traps when the server is
///   unreachable. A trap would take the test process down with it, so it is reported as
///   ``CallOutcome/crashed(_:)`` at exactly the point the tutorial's app would die;
/// - a parse error in auth is overwritten by the auth-error check.
struct TutorialMoltinDriver: FlowDriver {
    let name = "Moltin tutorial client (seed 003, as written)"

    func makeSession(for context: DriverContext) async throws -> any FlowSession {
        TutorialMoltinSession(base: context.baseURL.absoluteString + "/")
    }
}

final class TutorialMoltinSession: FlowSession, @unchecked Sendable {
    private let base: String
    private let session = URLSession(configuration: .ephemeral)
    private let lock = NSLock()
    /// MoltinTokenStorage.accessToken (the keychain stands in as this property).
    private var accessToken: String?

    init(base: String) {
        self.base = base
    }

    private var token: String? {
        get { lock.lock(); defer { lock.unlock() }; return accessToken }
        set { lock.lock(); accessToken = newValue; lock.unlock() }
    }

    func perform(_ call: AppCall) async throws -> CallOutcome {
        switch call.name {
        case "auth":
            if let message = await auth(clientId: call.arguments["clientId"] ?? "", clientSecret: call.arguments["clientSecret"] ?? "") {
                return .error(kind: "tokenEndpoint", message: message)
            }
            return .ok([:])
        case "refreshToken":
            // func refreshToken() { print("refreshToken() not implemented") }
            return .ok([:])
        case "deleteToken":
            token = nil
            return .ok([:])
        case "products":
            return await getProducts()
        case "relaunch":
            return .ok([:])
        default:
            throw DriverError.unsupported(call, provider: .moltin)
        }
    }

    func storeContents() async throws -> [String: String] {
        token.map { ["accessToken": $0] } ?? [:]
    }

    func close() async {
        session.finishTasksAndInvalidate()
    }

    // MARK: - The tutorial's code, in async form

    private static func percentEscaped(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed)!
    }

    private func dataTask(_ request: URLRequest) async -> (Data?, URLResponse?, Error?) {
        await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: (data, response, error))
            }.resume()
        }
    }

    private func update(data: Data?) throws {
        if let d = data, let json = try JSONSerialization.jsonObject(with: d) as? [String: Any], let t = json["access_token"] as? String {
            token = t
        }
    }

    private func authErrorMessage(data: Data?) -> String? {
        guard let d = data else { return nil }
        do {
            if let json = try JSONSerialization.jsonObject(with: d) as? [String: Any], let status = json["status"] as? Bool, status == false {
                return json["error"] as? String ?? json["errors"] as? String ?? "Unknown Error"
            }
            return nil
        } catch {
            return error.localizedDescription
        }
    }

    private func auth(clientId: String, clientSecret: String) async -> String? {
        let dict = ["client_id": clientId, "client_secret": clientSecret, "grant_type": "client_credentials"]
        var request = URLRequest(url: URL(string: base + "oauth/access_token")!)
        request.httpMethod = "POST"
        request.httpBody = dict.map { "\(Self.percentEscaped($0))=\(Self.percentEscaped($1))" }.joined(separator: "&").data(using: .utf8)
        let (data, _, _) = await dataTask(request)
        var errorMessage: String?
        do {
            try update(data: data)
        } catch {
            errorMessage = error.localizedDescription
        }
        // The tutorial overwrites the parse error here.
        errorMessage = authErrorMessage(data: data)
        return errorMessage
    }

    private func getProducts() async -> CallOutcome {
        var request = URLRequest(url: URL(string: base + "v1/products")!)
        request.httpMethod = "GET"
        request.setValue("Bearer \(token ?? "")", forHTTPHeaderField: "Authorization")
        let (data, _, _) = await dataTask(request)
        var errorMessage = authErrorMessage(data: data)
        guard let data else {
            // `try JSONSerialization.jsonObject(with: data!)`: the app traps here.
            return .crashed("Fatal error: Unexpectedly found nil while unwrapping an Optional value (getProducts: data!)")
        }
        var parsed = false
        do {
            parsed = try JSONSerialization.jsonObject(with: data) is [String: Any]
        } catch {
            errorMessage = error.localizedDescription
        }
        guard let errorMessage else { return .ok([:]) }
        if errorMessage == "Access token is not valid" { return .error(kind: "tokenRejected", message: errorMessage) }
        return .error(kind: parsed ? "httpStatus" : "invalidResponse", message: errorMessage)
    }
}
