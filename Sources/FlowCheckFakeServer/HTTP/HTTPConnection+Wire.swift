import Foundation

/// Response framing: keep-alive rules and serialisation.
extension HTTPConnection {
    /// HTTP/1.1 keeps the connection unless either side says `close`; HTTP/1.0 only with
    /// an explicit `keep-alive`.
    static func keepsAlive(request: HTTPRequest, response: HTTPResponse) -> Bool {
        let requestTokens = connectionTokens(request.headers)
        if requestTokens.contains("close") || connectionTokens(response.headers).contains("close") {
            return false
        }
        if request.version == "HTTP/1.0" {
            return requestTokens.contains("keep-alive")
        }
        return true
    }

    /// Whether the client said it closes after this request (`Connection: close`).
    static func promisedClose(_ request: HTTPRequest) -> Bool {
        connectionTokens(request.headers).contains("close")
    }

    private static func connectionTokens(_ headers: HTTPHeaders) -> Set<String> {
        Set(headers.values(for: "Connection").flatMap { value in
            value.split(separator: ",").map { $0.trimmingOWS().lowercased() }
        })
    }

    private static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]

    /// Wire bytes for `response`, with framing headers owned by the server: Content-Length
    /// always (except where HTTP forbids a body), Connection always.
    static func serialize(_ response: HTTPResponse, keepAlive: Bool, omitBody: Bool) -> [UInt8] {
        let status = (100...999).contains(response.status) ? response.status : 500
        var head = "HTTP/1.1 \(status) \(sanitize(response.reason))\r\n"
        for (name, value) in response.headers where !framingHeaders.contains(name.lowercased()) {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else { continue }
            head += "\(name): \(sanitize(value))\r\n"
        }
        let mayHaveBody = !(100..<200).contains(status) && status != 204 && status != 304
        if mayHaveBody {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        head += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        head += "\r\n"
        var bytes = Array(head.utf8)
        if mayHaveBody && !omitBody {
            bytes.append(contentsOf: response.body)
        }
        return bytes
    }

    /// Replaces CR, LF and other controls so a responder cannot split the response.
    private static func sanitize(_ text: String) -> String {
        // Nearly every value is already clean: skip rebuilding it scalar by scalar.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F ? " " : scalar
        }))
    }
}
