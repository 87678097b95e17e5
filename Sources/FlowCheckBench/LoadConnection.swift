import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One keep-alive HTTP/1.1 client connection on a blocking POSIX socket: send a request, read
/// exactly one response (framed by Content-Length), repeat. One request in flight at a time
/// (no pipelining), so each round trip is one request's latency.
///
/// Deliberately minimal, so the client costs little next to the server it measures: the
/// request bytes are prepared once, and the response is only framed and its status read.
/// Owned by one thread at a time.
// @unchecked: owned by one thread at a time, Sendable only to hand it to that thread; a lock per round trip would be measured.
final class LoadConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8]
    /// Bytes in `buffer` not yet consumed (a response split over reads).
    private var filled = 0

    /// Connects to 127.0.0.1:`port` with Nagle off, as the server has it.
    /// - Throws: ``BenchError`` when the socket cannot be made or the connect fails.
    init(port: Int) throws(BenchError) {
        let fd = try Self.connectedSocket(port: port)
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        // A server that stops answering must fail the run, not hang it.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
        self.buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    deinit {
        close(fd)
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`.
    /// - Throws: ``BenchError`` when the socket cannot be made or the connect fails.
    static func connectedSocket(port: Int) throws(BenchError) -> Int32 {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .harness("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw .harness("connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
        return fd
    }

    /// Sends `request` and reads one whole response.
    /// - Returns: the response's status code.
    /// - Throws: ``BenchError`` when the peer closes, times out or answers something unframed.
    func roundTrip(_ request: [UInt8]) throws(BenchError) -> Int {
        try send(request)
        return try readResponse().status
    }

    /// Sends `request` and reads one whole response, kept: its status, head and body.
    func exchange(_ request: [UInt8]) throws(BenchError) -> LoadResponse {
        try send(request)
        let (status, bytes) = try readResponse(keeping: true)
        return LoadResponse(status: status, bytes: bytes)
    }

    private func send(_ bytes: [UInt8]) throws(BenchError) {
        let failed = bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                #if os(Linux)
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                if sent > 0 {
                    offset += sent
                } else if sent < 0 && errno == EINTR {
                    continue
                } else {
                    return errno
                }
            }
            return nil
        }
        if let failed { throw .harness("send failed: errno \(failed)") }
    }

    /// The status of the next whole response, and its bytes when `keeping` (else none).
    private func readResponse(keeping: Bool = false) throws(BenchError) -> (status: Int, bytes: [UInt8]) {
        while true {
            if let (status, length) = Self.frame(buffer, filled) {
                let kept = keeping ? Array(buffer[0..<length]) : []
                // Keep whatever follows (nothing, without pipelining) for the next response.
                if length < filled { buffer.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: $0.baseAddress! + length, count: filled - length) } }
                filled -= length
                return (status, kept)
            }
            if filled == buffer.count {
                throw .harness("a response larger than \(buffer.count) bytes")
            }
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(fd, raw.baseAddress! + filled, raw.count - filled, 0)
            }
            if count > 0 {
                filled += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                throw .harness(count == 0 ? "the server closed a keep-alive connection" : "recv failed: errno \(errno)")
            }
        }
    }

    /// The status and total length of the response at the start of `bytes[0..<filled]`, or nil
    /// until it has fully arrived.
    private static func frame(_ bytes: [UInt8], _ filled: Int) -> (status: Int, length: Int)? {
        guard filled >= 16 else { return nil }
        var headEnd = -1
        var index = 3
        while index < filled {
            if bytes[index] == 0x0A, bytes[index - 1] == 0x0D, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D {
                headEnd = index + 1
                break
            }
            index += 1
        }
        guard headEnd > 0 else { return nil }
        // "HTTP/1.1 200 ": the status is bytes 9 to 11.
        let status = (9..<12).reduce(0) { $0 * 10 + Int(bytes[$1]) - 48 }
        let length = headEnd + contentLength(bytes, headEnd)
        return length <= filled ? (status, length) : nil
    }

    /// The Content-Length in the head `bytes[0..<headEnd]` (0 when absent).
    private static func contentLength(_ bytes: [UInt8], _ headEnd: Int) -> Int {
        let name = Array("\r\ncontent-length:".utf8)
        var index = 0
        outer: while index + name.count < headEnd {
            for offset in 0..<name.count {
                let byte = bytes[index + offset]
                let lowered = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                if lowered != name[offset] {
                    index += 1
                    continue outer
                }
            }
            var value = 0
            var cursor = index + name.count
            while cursor < headEnd, bytes[cursor] == 0x20 { cursor += 1 }
            while cursor < headEnd, bytes[cursor] >= 0x30, bytes[cursor] <= 0x39 {
                value = value * 10 + Int(bytes[cursor]) - 48
                cursor += 1
            }
            return value
        }
        return 0
    }
}

/// A whole response as ``LoadConnection/exchange(_:)`` read it.
struct LoadResponse {
    var status: Int
    var bytes: [UInt8]

    /// Where the head ends (after its blank line).
    private var headEnd: Int {
        bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound ?? bytes.count
    }

    /// The value of the header `name` (case-insensitive), if present.
    func header(_ name: String) -> String? {
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
        let wanted = name.lowercased() + ":"
        for line in head.split(separator: "\r\n", omittingEmptySubsequences: false).dropFirst() {
            if line.isEmpty { break }
            if line.lowercased().hasPrefix(wanted) { return line.dropFirst(wanted.count).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The body, as text.
    var body: String {
        String(decoding: bytes[headEnd...], as: UTF8.self)
    }
}
