import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves one accepted socket until the peer leaves, asks to close, misbehaves or times out.
///
/// Runs on its own thread with a blocking socket. It never closes `fd` itself: the server
/// closes it after deregistering, so `stop()` can never shut down a reused descriptor.
struct HTTPConnection {
    let fd: Int32
    let responder: any HTTPResponder
    let limits: HTTPServerLimits

    /// Bytes read from a misbehaving peer after our final response, so closing does not
    /// turn unread input into a RST that destroys the response before the client reads it.
    private static let maxDrainBytes = 4 * 1024 * 1024
    /// Upper bound on how long that drain waits for the peer to close.
    private static let maxDrainSeconds: TimeInterval = 2

    func run() {
        let parser = HTTPRequestParser(limits: limits)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var continueSent = false
        while true {
            switch parser.parse(buffer) {
            case .request(let request, let consumed):
                buffer.removeFirst(consumed)
                continueSent = false
                let response = responder.respond(to: request)
                let keepAlive = Self.keepsAlive(request: request, response: response)
                let bytes = Self.serialize(response, keepAlive: keepAlive, omitBody: request.method == "HEAD")
                guard Socket.sendAll(fd, bytes) else { return }
                if !keepAlive {
                    closeGracefully()
                    return
                }
            case .failure(let status, let reason):
                fail(status: status, reason: reason)
                return
            case .needMoreData:
                if !continueSent, case .head(let head) = parser.parseHead(buffer), head.expectsContinue {
                    continueSent = true
                    guard Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
                }
                switch Socket.receive(fd, into: &chunk) {
                case .data(let count):
                    buffer.append(contentsOf: chunk[0..<count])
                case .endOfStream, .failed:
                    return
                case .timedOut:
                    // An idle keep-alive connection just closes; a half-sent request learns why.
                    if !buffer.isEmpty { fail(status: 408, reason: "Request timed out") }
                    return
                }
            }
        }
    }

    /// Answers an unrecoverable request error and closes.
    private func fail(status: Int, reason: String) {
        let response = HTTPResponse.text(status, reason + "\n")
        guard Socket.sendAll(fd, Self.serialize(response, keepAlive: false, omitBody: false)) else { return }
        closeGracefully()
    }

    /// Half-closes, then reads and discards what the peer still sends until it closes too.
    private func closeGracefully() {
        Socket.shutdownWrite(fd)
        Socket.setTimeouts(fd, seconds: min(limits.readTimeout > 0 ? limits.readTimeout : Self.maxDrainSeconds, Self.maxDrainSeconds))
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        while drained < Self.maxDrainBytes {
            guard case .data(let count) = Socket.receive(fd, into: &scratch) else { return }
            drained += count
        }
    }

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

    private static func connectionTokens(_ headers: HTTPHeaders) -> Set<String> {
        Set(headers.values(for: "Connection").flatMap { value in
            value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
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
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F ? " " : scalar
        }))
    }
}
