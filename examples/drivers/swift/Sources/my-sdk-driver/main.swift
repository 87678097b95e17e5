// A FlowCheck driver skeleton in Swift: Foundation only, no packages.
//
// It speaks the driver protocol (docs/protocol.md; every action's arguments and results:
// docs/protocol-actions.md) for Moltin's `auth` and `products`, with a client of its own
// standing in for your SDK: replace the five places marked YOUR SDK with calls into your SDK.
// As it stands it passes MLT-AUTH (its answer variants too), MLT-BADAUTH and MLT-NETFAIL.
// From the repository's root:
//
//     swift build --product flowcheck
//     swift build --package-path examples/drivers/swift
//     .build/debug/flowcheck --driver examples/drivers/swift/.build/debug/my-sdk-driver --filter '^MLT-AUTH$' --no-derived specs/
//
// Every line on stdout is a protocol message; log to stderr.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking // URLSession on Linux
#endif

/// One protocol message: one line of JSON on stdout.
func send(_ message: [String: Any]) {
    // Cannot throw: the messages are dictionaries of strings, numbers and arrays.
    let line = try! JSONSerialization.data(withJSONObject: message)
    FileHandle.standardOutput.write(line + Data("\n".utf8))
}

/// The fields of the runner's messages that this skeleton reads (docs/protocol.md, "Messages").
struct Message: Decodable {
    let type: String
    let id: Int?
    let action: String?
    let arguments: [String: String]?
    let baseURL: URL?
    let now: Double?
}

/// Seed 003: a token answer that names no expiry lasts an hour.
let moltinTokenLifetime: Double = 3600

/// What a flow runs: one per `start`. YOUR SDK goes here (1 of 5): build it in `init`.
@MainActor final class App {
    let baseURL: URL
    var now: Double // the flow's clock, Unix seconds: the fake issues tokens on it
    var token: [String: String] = [:] // the token store: accessToken, tokenType, expiresAt

    init(baseURL: URL, now: Double) {
        self.baseURL = baseURL
        self.now = now
    }

    func auth(_ arguments: [String: String]) async throws -> [String: String] {
        // YOUR SDK (2 of 5): its login with client credentials.
        // Moltin's `expires` is a time on the flow's clock; an RFC 6749 answer may give only
        // `expiresIn` (seconds from now, on the same clock), or neither (Moltin's hour holds).
        struct Answer: Decodable { let accessToken: String, tokenType: String?, expires: Double?, expiresIn: Double? }
        var request = URLRequest(url: baseURL.appendingPathComponent("oauth/access_token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = formBody(["grant_type": "client_credentials", "client_id": arguments["clientId"] ?? "", "client_secret": arguments["clientSecret"] ?? ""])
        let answer = try await fetch(request, as: Answer.self)
        let expires = answer.expires ?? now + (answer.expiresIn ?? moltinTokenLifetime)
        token = ["accessToken": answer.accessToken, "tokenType": answer.tokenType ?? "Bearer", "expiresAt": String(Int(expires))]
        return [:]
    }

    func products() async throws -> [String: String] {
        // YOUR SDK (3 of 5): an API call with the stored token.
        struct Answer: Decodable { let result: [Product] }
        struct Product: Decodable { let id: String, title: String }
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/products"))
        request.setValue("Bearer " + (token["accessToken"] ?? ""), forHTTPHeaderField: "Authorization")
        let products = try await fetch(request, as: Answer.self).result
        return ["productCount": String(products.count), "productIds": products.map(\.id).joined(separator: ","), "productTitles": products.map(\.title).joined(separator: ",")]
    }

    /// YOUR SDK (4 of 5): what your SDK's token store holds now, in Moltin's field names.
    func stored() -> [String: String] {
        token
    }
}

/// An application/x-www-form-urlencoded body: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded.
func formBody(_ fields: KeyValuePairs<String, String>) -> Data {
    let plain = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: plain) ?? "" }
    return Data(fields.map { encode($0) + "=" + encode($1) }.joined(separator: "&").utf8)
}

// The stand-in client's errors. Telling these failures apart is your SDK's job; the kinds and
// messages are the ones the protocol asks for (docs/protocol.md, "Error kinds").

struct SDKError: Error {
    let kind: String, message: String
}

/// The answer decoded, or an `SDKError` of the protocol's kind.
func fetch<Answer: Decodable>(_ request: URLRequest, as: Answer.Type) async throws(SDKError) -> Answer {
    var request = request
    request.timeoutInterval = 15 // real seconds, below the runner's 20 s deadline for an answer
    let data: Data, response: URLResponse
    do {
        (data, response) = try await URLSession.shared.data(for: request)
    } catch { // refused, reset, timed out
        throw SDKError(kind: "transport", message: "\(error)")
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
        let message = serverMessage(data) ?? "HTTP \(status)"
        if status >= 500 { throw SDKError(kind: "serverError", message: message) }
        if [400, 401, 403].contains(status), request.url?.path.hasPrefix("/oauth/") == true {
            throw SDKError(kind: "tokenEndpoint", message: message) // the token endpoint refused: its own words
        }
        throw SDKError(kind: "httpStatus", message: message)
    }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
        return try decoder.decode(Answer.self, from: data)
    } catch { // not JSON, or a required field missing
        throw SDKError(kind: "invalidResponse", message: "the answer is not what was expected: \(error)")
    }
}

/// The server's own text: Moltin answers `{"status": false, "error": "..."}`.
func serverMessage(_ body: Data) -> String? {
    let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    return ["error_description", "error", "errors", "message"].lazy.compactMap { document?[$0] as? String }.first { !$0.isEmpty }
}

/// YOUR SDK (5 of 5): your SDK's errors as the protocol's kinds, with the message it gives the app.
func errorAnswer(id: Int, _ error: any Error) -> [String: Any] {
    guard let error = error as? SDKError else { return ["type": "crashed", "id": id, "message": "\(error)"] }
    return ["type": "error", "id": id, "kind": error.kind, "message": error.message]
}

// The protocol loop: one message a line, answered in order (one call at a time).
send(["type": "hello", "protocol": 1, "driver": ["name": "my-sdk-swift", "version": "0.1.0"],
      "providers": ["moltin": ["auth", "products"]], "capabilities": [String]()]) // the actions the switch below performs
var app: App?
while let line = readLine() {
    let message = try JSONDecoder().decode(Message.self, from: Data(line.utf8))
    switch message.type {
    case "start":
        app = App(baseURL: message.baseURL!, now: message.now!)
        send(["type": "ready"])
    case "call":
        let id = message.id!
        do {
            let result: [String: String]
            switch (app, message.action) {
            case let (app?, "auth"): result = try await app.auth(message.arguments ?? [:])
            case let (app?, "products"): result = try await app.products()
            default:
                send(["type": "unsupported", "id": id, "message": "no action \(message.action ?? "")"])
                continue
            }
            send(["type": "ok", "id": id, "result": result])
        } catch { // the SDK's error, as the app would see it
            send(errorAnswer(id: id, error))
        }
    case "store":
        send(["type": "store", "id": message.id!, "fields": app?.stored() ?? [:]])
    case "clock":
        app?.now = message.now!
    case "stop":
        exit(0)
    default:
        break // the rest: this skeleton declares no capability that needs them
    }
}
