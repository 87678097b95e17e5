import Foundation
import FlowCheckFakeServer

/// The harness's own HTTP/1.1 client, for the scripted browser and a spec's `send` steps.
///
/// A deliberate twin of the SDK's transport, sharing no code with it (as the fake keeps its own
/// SHA-256 and form decoder): the harness must keep working when the SDK it judges is broken. A
/// transport that follows redirects, say, must fail FLT-REDIRECT-LOOP, not also make the scripted
/// browser follow the login redirect and turn every browser flow into a harness error.
///
/// One connection per request (`Connection: close`), plain `http` only, POSIX sockets: on
/// Linux driven by the event loop the fakes share (``HarnessHTTPLoopExchange``), elsewhere on a
/// thread of its own (``HarnessHTTPExchange``). It never
/// follows a redirect: a 3xx comes back as it is, with its `Location`. Every connect, write and
/// read waits at most until the request's deadline (real time, ``timeout`` from the start): a
/// server that never answers is a thrown ``HarnessHTTPError/timedOut(awaiting:seconds:)`` naming
/// what was awaited, never a hang. Cancelling the calling task closes the connection.
public struct HarnessHTTPClient: Sendable {
    /// Real time one request may take, connect to last byte: a safety net for a stuck server,
    /// far beyond what a healthy loopback exchange needs.
    public var timeout: Duration
    /// The largest response (head and body) accepted.
    public var maximumResponseBytes: Int
    /// What drives a request's socket (tests run both where both exist).
    package var engine = Engine.platformDefault

    /// What drives a request's socket.
    package enum Engine: Sendable, CustomStringConvertible {
        /// The event loop the fakes share (Linux): no thread of its own, no hand-off.
        case eventLoop
        /// A thread of its own, waiting in `poll`.
        case ownThread

        package static var platformDefault: Engine {
            #if os(Linux)
            .eventLoop
            #else
            .ownThread
            #endif
        }

        /// Those this platform has.
        package static var available: [Engine] {
            #if os(Linux)
            [.eventLoop, .ownThread]
            #else
            [.ownThread]
            #endif
        }

        package var description: String { self == .eventLoop ? "event loop" : "own thread" }
    }

    public init(timeout: Duration = .seconds(10), maximumResponseBytes: Int = 16 << 20) {
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Sends `request` on a fresh connection and returns the server's answer, whatever its
    /// status (a 3xx is returned, not followed).
    /// - Throws: ``HarnessHTTPError``, or `CancellationError` when the calling task is cancelled.
    public func send(_ request: HarnessHTTPRequest) async throws -> HarnessHTTPResponse {
        let target = try HarnessHTTPTarget(request.url)
        let head = try HarnessHTTPWire.head(of: request, target: target)
        let bytes = head + request.body
        #if os(Linux)
        if engine == .eventLoop, let loop = EventLoop.shared {
            let exchange = HarnessHTTPLoopExchange(
                loop: loop, target: target, bytes: bytes, method: request.method, timeout: timeout,
                limit: maximumResponseBytes, addresses: try HarnessHTTPAddress.resolve(target))
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { exchange.start($0) }
            } onCancel: {
                exchange.cancel()
            }
        }
        #endif
        let exchange = HarnessHTTPExchange()
        let timeout = timeout
        let limit = maximumResponseBytes
        let method = request.method
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HarnessHTTPResponse, any Error>) in
                // Blocking socket calls stay off the cooperative pool: a thread of their own,
                // bounded by the deadline, so a slow server cannot starve other flows' tasks.
                let started = ConnectionThread.start {
                    continuation.resume(with: Result {
                        try exchange.run(target: target, bytes: bytes, method: method, timeout: timeout, limit: limit)
                    })
                }
                if !started {
                    continuation.resume(throwing: HarnessHTTPError.connectionFailed(while: "starting the exchange's thread", reason: "the system could not create a thread"))
                }
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}

/// A request as the harness sends it.
public struct HarnessHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    /// Sent in this order; `Host`, `Content-Length` and `Connection` are written by the client.
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String = "GET", url: URL, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A response as it came off the wire.
public struct HarnessHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    /// In the order received, names as the server wrote them.
    public var headers: [HarnessHTTPHeader]
    public var body: [UInt8]

    /// The first value of a header, by case-insensitive name.
    public subscript(header name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One header field of a response, as received.
public struct HarnessHTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
}

/// Why a harness request got no answer. Each says what it was waiting for or doing.
public enum HarnessHTTPError: Error, Equatable, CustomStringConvertible {
    case invalidRequest(String)
    case unresolvable(host: String, reason: String)
    case connectFailed(String, reason: String)
    case timedOut(awaiting: String, seconds: Double)
    case connectionFailed(while: String, reason: String)
    case closedEarly(awaiting: String)
    case malformedResponse(String)
    case responseTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .invalidRequest(let why): return "invalid request: \(why)"
        case .unresolvable(let host, let reason): return "could not resolve \(host): \(reason)"
        case .connectFailed(let address, let reason): return "could not connect to \(address): \(reason)"
        case .timedOut(let awaiting, let seconds): return "no answer within \(Self.format(seconds)) s while awaiting \(awaiting)"
        case .connectionFailed(let doing, let reason): return "the connection failed while \(doing): \(reason)"
        case .closedEarly(let awaiting): return "the server closed the connection while the client awaited \(awaiting)"
        case .malformedResponse(let why): return "the response is not valid HTTP/1.1: \(why)"
        case .responseTooLarge(let limit): return "the response is larger than \(limit) bytes"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }
}

/// Where a request goes: host, port and the request target, from an absolute `http` URL.
struct HarnessHTTPTarget: Sendable, Equatable {
    var host: String
    var port: Int
    /// Origin form: path and query, as written on the request line.
    var requestTarget: String
    /// The `Host` header's value.
    var authority: String

    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw HarnessHTTPError.invalidRequest("\(url.absoluteString) is not a URL")
        }
        guard components.scheme?.lowercased() == "http" else {
            throw HarnessHTTPError.invalidRequest("only http:// URLs are supported, not \(components.scheme.map { "\($0):" } ?? "a relative URL")")
        }
        guard var host = components.host, !host.isEmpty else { throw HarnessHTTPError.invalidRequest("\(url.absoluteString) has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 80
        guard (1...65_535).contains(port) else { throw HarnessHTTPError.invalidRequest("port \(port) is out of range") }
        self.host = host
        self.port = port
        let path = components.percentEncodedPath
        requestTarget = (path.isEmpty ? "/" : path) + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        let bracketed = host.contains(":") ? "[\(host)]" : host
        authority = port == 80 ? bracketed : "\(bracketed):\(port)"
    }
}

/// `application/x-www-form-urlencoded` as the WHATWG URL standard serializes it (§5.2): ASCII
/// letters, digits and `*-._` stay, a space becomes `+`, every other UTF-8 byte becomes `%XX`
/// with upper-case hex. The harness's own, not the SDK's: a twin, so an SDK encoding bug cannot
/// also bend what the browser and `send` steps write.
public enum HarnessFormEncoding {
    /// `name=value` pairs joined with `&`, each side encoded.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// One name or value, encoded.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex = Array("0123456789ABCDEF".utf8)
}
