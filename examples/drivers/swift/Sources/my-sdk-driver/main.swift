// A FlowCheck driver skeleton in Swift: Foundation only, no packages.
//
// It speaks the driver protocol (docs: Tests/Drivers/PROTOCOL.md) for Moltin's `auth` and
// `products`, with a client of its own standing in for your SDK: replace the three marked places
// with calls into your SDK, and it passes MLT-AUTH as it stands. From the repository's root:
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

/// The fields of the runner's messages that this skeleton reads (PROTOCOL.md, "Messages").
struct Message: Decodable {
    let type: String
    let id: Int?
    let action: String?
    let arguments: [String: String]?
    let baseURL: URL?
}

/// What a flow runs: one per `start`. YOUR SDK goes here (1 of 3): build it in `init`.
@MainActor final class App {
    let baseURL: URL
    var token: [String: String] = [:] // the token store: accessToken, tokenType, expiresAt

    init(baseURL: URL) {
        self.baseURL = baseURL
    }

    func auth(_ arguments: [String: String]) async throws -> [String: String] {
        // YOUR SDK (2 of 3): its login with client credentials.
        struct Answer: Decodable { let accessToken: String, tokenType: String, expires: Int }
        var request = URLRequest(url: baseURL.appendingPathComponent("oauth/access_token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = formBody(["grant_type": "client_credentials", "client_id": arguments["clientId"] ?? "", "client_secret": arguments["clientSecret"] ?? ""])
        let answer = try await fetch(request, as: Answer.self)
        token = ["accessToken": answer.accessToken, "tokenType": answer.tokenType, "expiresAt": String(answer.expires)]
        return [:]
    }

    func products() async throws -> [String: String] {
        // YOUR SDK (3 of 3): an API call with the stored token.
        struct Answer: Decodable { let result: [Product] }
        struct Product: Decodable { let id: String, title: String }
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/products"))
        request.setValue("Bearer " + (token["accessToken"] ?? ""), forHTTPHeaderField: "Authorization")
        let products = try await fetch(request, as: Answer.self).result
        return ["productCount": String(products.count), "productIds": products.map(\.id).joined(separator: ","), "productTitles": products.map(\.title).joined(separator: ",")]
    }
}

/// An application/x-www-form-urlencoded body: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded.
func formBody(_ fields: KeyValuePairs<String, String>) -> Data {
    let plain = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: plain) ?? "" }
    return Data(fields.map { encode($0) + "=" + encode($1) }.joined(separator: "&").utf8)
}

/// What the stand-in client throws for an answer that is not 2xx.
struct HTTPStatusError: Error, CustomStringConvertible {
    let status: Int, url: URL, body: String
    var description: String { "HTTP \(status): \(body)" }
}

/// The stand-in client's HTTP: a JSON answer decoded, any other status thrown.
func fetch<Answer: Decodable>(_ request: URLRequest, as: Answer.Type) async throws -> Answer {
    var request = request
    request.timeoutInterval = 15 // real seconds, below the runner's 20 s deadline for an answer
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
        throw HTTPStatusError(status: status, url: request.url!, body: String(decoding: data, as: UTF8.self))
    }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(Answer.self, from: data)
}

/// The protocol's error kinds for what the SDK threw (PROTOCOL.md, "call").
func errorKind(_ error: any Error) -> String {
    switch error {
    case let error as HTTPStatusError: error.url.path.hasPrefix("/oauth/") ? "tokenEndpoint" : "httpStatus"
    case is URLError: "transport"
    default: "invalidResponse"
    }
}

// The protocol loop: one message a line, answered in order (one call at a time).
send(["type": "hello", "protocol": 1, "driver": ["name": "my-sdk-swift", "version": "0.1.0"],
      "providers": ["moltin": ["auth", "products"]], "capabilities": [String]()]) // the actions the switch below performs
var app: App?
while let line = readLine() {
    let message = try JSONDecoder().decode(Message.self, from: Data(line.utf8))
    switch message.type {
    case "start":
        app = App(baseURL: message.baseURL!)
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
            send(["type": "error", "id": id, "kind": errorKind(error), "message": "\(error)"])
        }
    case "store":
        send(["type": "store", "id": message.id!, "fields": app?.token ?? [:]])
    case "stop":
        exit(0)
    default:
        break // clock and the rest: this skeleton declares no capability that needs them
    }
}
