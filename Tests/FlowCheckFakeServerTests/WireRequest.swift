import Foundation

/// Raw HTTP/1.1 requests spelled the way real client libraries spell them, for loopback tests
/// that must see the fakes accept exactly those bytes.
enum WireRequest {
    /// The client libraries whose header sets are reproduced.
    enum Library: String, CaseIterable, Sendable {
        case requests
        case httpx
        case authlib

        /// Header fields each sends besides Host, Content-Type, Content-Length and Authorization.
        var extraHeaders: [(String, String)] {
            switch self {
            case .requests:
                [("User-Agent", "python-requests/2.32.3"), ("Accept-Encoding", "gzip, deflate"), ("Accept", "*/*"), ("Connection", "keep-alive")]
            case .httpx:
                [("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive"), ("User-Agent", "python-httpx/0.27.2")]
            case .authlib:
                [("User-Agent", "Authlib/1.3.2 (+https://authlib.org/)"), ("Accept-Encoding", "gzip, deflate"), ("Accept", "application/json"), ("Connection", "keep-alive")]
            }
        }
    }

    /// `method target` with `headers` in order and, for a POST, `body` framed by
    /// Content-Length: what a browser or a plain client puts on the wire.
    static func plain(_ method: String, _ target: String, host: String = "127.0.0.1", headers: [(String, String)] = [], body: String = "") -> String {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
        return head + "\r\n" + body
    }

    /// `POST path` with `body` framed by Content-Length, as `library` sends it.
    static func post(_ path: String, port: Int, library: Library, contentType: String, authorization: String?, body: String) -> String {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in library.extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nContent-Type: \(contentType)\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        return head + "\r\n" + body
    }

    /// `POST path` with `body` sent as chunks of at most `chunkSize` bytes, with a chunk
    /// extension on the first chunk and a trailer field, as a streaming client may send it.
    static func chunked(_ path: String, contentType: String, headers: [(String, String)] = [], body: String, chunkSize: Int = 7) -> String {
        var text = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: \(contentType)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var bytes = Array(body.utf8)[...]
        var first = true
        while !bytes.isEmpty {
            let piece = bytes.prefix(chunkSize)
            bytes = bytes.dropFirst(chunkSize)
            text += String(piece.count, radix: 16) + (first ? ";name=value" : "") + "\r\n"
            text += String(decoding: piece, as: UTF8.self) + "\r\n"
            first = false
        }
        return text + "0\r\nX-Trailer: ignored\r\n\r\n"
    }

    /// `Basic` + base64 of `userPass`, with the scheme spelled `scheme` and `spaces` spaces.
    static func basic(_ userPass: String, scheme: String = "Basic", spaces: Int = 1) -> String {
        scheme + String(repeating: " ", count: spaces) + Data(userPass.utf8).base64EncodedString()
    }
}
