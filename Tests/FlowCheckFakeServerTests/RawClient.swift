import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking POSIX client for loopback tests, so the server is checked against exact bytes
/// rather than through an HTTP client that would hide framing mistakes.
final class RawClient {
    private(set) var fd: Int32
    private var pending: [UInt8] = []

    /// A parsed response read off the wire.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    enum ConnectError: Error, Equatable {
        case failed(errno: Int32)
    }

    /// Connects to 127.0.0.1:`port`; a 30 s receive timeout only guards against hanging a
    /// broken test run, it is never what a test asserts on.
    init(port: Int) throws(ConnectError) {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .failed(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw .failed(errno: code)
        }
        var timeout = timeval()
        timeout.tv_sec = 30
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit {
        close()
    }

    /// Closes now rather than at deinit; later calls are no-ops.
    func close() {
        guard fd >= 0 else { return }
        closeDescriptor(fd)
        fd = -1
    }

    /// The errno of a failed connect, or nil if it connected.
    static func connectError(port: Int) -> Int32? {
        do throws(ConnectError) {
            _ = try RawClient(port: port)
            return nil
        } catch {
            switch error {
            case .failed(let code): return code
            }
        }
    }

    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                #if os(Linux)
                let sent = Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(fd, base + offset, raw.count - offset, 0)
                #endif
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads at most `count` bytes (fewer at end of stream); nil on error.
    func read(upTo count: Int) -> [UInt8]? {
        if !pending.isEmpty {
            let taken = Array(pending.prefix(count))
            pending.removeFirst(taken.count)
            return taken
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        guard received >= 0 else { return nil }
        return Array(buffer[0..<received])
    }

    /// Reads until the server closes; nil if the connection errored (e.g. reset).
    func readToEnd() -> [UInt8]? {
        var all = pending
        pending = []
        while true {
            guard let chunk = read(upTo: 64 * 1024) else { return nil }
            if chunk.isEmpty { return all }
            all += chunk
        }
    }

    /// Reads until the stream ends, keeping what arrived before an error: `error` is the
    /// errno that ended it (e.g. ECONNRESET), nil for an orderly end of stream.
    func readUntilClosed() -> (bytes: [UInt8], error: Int32?) {
        var all = pending
        pending = []
        while true {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received < 0 { return (all, errno) }
            if received == 0 { return (all, nil) }
            all += buffer[0..<received]
        }
    }

    /// Whether the server has sent something (or closed) within `seconds`: how a test waits
    /// for the server to act without sleeping; a timeout is an answer, not a failure.
    func isReadable(within seconds: Double) -> Bool {
        if !pending.isEmpty { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) > 0
    }

    /// Closes our sending side: the server sees end of stream, we can still read.
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads one response framed by Content-Length (interim 1xx responses are returned too);
    /// nil if the stream ends or fails first.
    func readResponse() -> Response? {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find(Array("\r\n\r\n".utf8), in: pending)
            if headEnd == nil {
                guard let chunk = receiveChunk(), !chunk.isEmpty else { return nil }
                pending += chunk
            }
        }
        guard let end = headEnd else { return nil }
        let head = String(decoding: pending[0..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let headers: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        let length = Int(response.header("Content-Length") ?? "0") ?? 0
        let bodyStart = end + 4
        while pending.count < bodyStart + length {
            guard let chunk = receiveChunk(), !chunk.isEmpty else { return nil }
            pending += chunk
        }
        response.body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return response
    }

    private func receiveChunk() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard received >= 0 else { return nil }
        return Array(buffer[0..<received])
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle {
            return index
        }
        return nil
    }
}

/// The libc `close`, reachable from inside `RawClient`, whose own `close()` shadows it.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
