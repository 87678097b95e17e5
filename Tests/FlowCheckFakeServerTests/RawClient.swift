import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX client for loopback tests, so the server is checked against exact bytes rather
/// than through an HTTP client that would hide framing mistakes.
///
/// Every wait (connect, send, each read) is bounded by `patience`: the socket is non-blocking
/// and each wait is a `poll` against a deadline. When the deadline passes, the call records an
/// issue naming itself and what it waited for, at the test's line, and returns as if the
/// stream had failed, so a silent server fails a test by name instead of hanging the run.
/// The bound only guards a broken run: a passing run never comes near it.
final class RawClient {
    /// How long any one call waits for the server, generous for a loaded 2-core machine.
    static let defaultPatience: Double = 20

    private(set) var fd: Int32
    private var pending: [UInt8] = []
    let patience: Double

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

    /// Connects to 127.0.0.1:`port`, waiting at most `patience` seconds.
    init(port: Int, patience: Double = RawClient.defaultPatience, sourceLocation: SourceLocation = #_sourceLocation) throws(ConnectError) {
        self.patience = patience
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .failed(errno: errno) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var code = result == 0 ? 0 : errno
        if code == EINPROGRESS {
            if Self.poll(fd, for: POLLOUT, until: .now + .seconds(patience)) {
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            } else {
                Issue.record("RawClient.init: not connected to port \(port) within \(patience) s", sourceLocation: sourceLocation)
                code = ETIMEDOUT
            }
        }
        guard code == 0 else {
            closeDescriptor(fd)
            throw .failed(errno: code)
        }
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
    static func connectError(port: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Int32? {
        do throws(ConnectError) {
            _ = try RawClient(port: port, sourceLocation: sourceLocation)
            return nil
        } catch {
            switch error {
            case .failed(let code): return code
            }
        }
    }

    @discardableResult
    func send(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        send(Array(text.utf8), sourceLocation: sourceLocation)
    }

    /// Sends every byte; false if the connection failed, or (with a recorded issue) if the
    /// server took none of the rest within `patience`.
    @discardableResult
    func send(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = ContinuousClock.now + .seconds(patience)
        return bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                #if os(Linux)
                let sent = Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(fd, base + offset, raw.count - offset, 0)
                #endif
                if sent > 0 {
                    offset += sent
                } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    guard Self.poll(fd, for: POLLOUT, until: deadline) else {
                        Issue.record("RawClient.send: the server took \(offset) of \(raw.count) bytes within \(patience) s", sourceLocation: sourceLocation)
                        return false
                    }
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Reads at most `count` bytes (fewer at end of stream); nil on error or timeout.
    func read(upTo count: Int, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        if !pending.isEmpty {
            let taken = Array(pending.prefix(count))
            pending.removeFirst(taken.count)
            return taken
        }
        switch receive(upTo: count, until: .now + .seconds(patience)) {
        case .bytes(let bytes): return bytes
        case .failed: return nil
        case .timedOut:
            Issue.record("RawClient.read(upTo:): nothing arrived within \(patience) s", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Reads until the server closes; nil if the connection errored (e.g. reset) or the
    /// server neither closed nor sent within `patience` of the call.
    func readToEnd(sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        let (bytes, error) = readUntilClosed(caller: "readToEnd", sourceLocation: sourceLocation)
        return error == nil ? bytes : nil
    }

    /// Reads until the stream ends, keeping what arrived before an error: `error` is the
    /// errno that ended it (e.g. ECONNRESET), nil for an orderly end of stream, ETIMEDOUT
    /// (with a recorded issue) if it had not ended within `patience` of the call.
    func readUntilClosed(sourceLocation: SourceLocation = #_sourceLocation) -> (bytes: [UInt8], error: Int32?) {
        readUntilClosed(caller: "readUntilClosed", sourceLocation: sourceLocation)
    }

    private func readUntilClosed(caller: String, sourceLocation: SourceLocation) -> (bytes: [UInt8], error: Int32?) {
        var all = pending
        pending = []
        let deadline = ContinuousClock.now + .seconds(patience)
        while true {
            switch receive(upTo: 64 * 1024, until: deadline) {
            case .bytes(let chunk) where chunk.isEmpty: return (all, nil)
            case .bytes(let chunk): all += chunk
            case .failed(let code): return (all, code)
            case .timedOut:
                Issue.record("RawClient.\(caller): the server did not close within \(patience) s (\(all.count) bytes read)", sourceLocation: sourceLocation)
                return (all, ETIMEDOUT)
            }
        }
    }

    /// Whether the server has sent something (or closed) within `seconds`: how a test waits
    /// for the server to act without sleeping; a timeout is an answer, not a failure.
    func isReadable(within seconds: Double) -> Bool {
        pending.isEmpty ? Self.poll(fd, for: POLLIN, until: .now + .seconds(seconds)) : true
    }

    /// Closes our sending side: the server sees end of stream, we can still read.
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads one response framed by Content-Length (interim 1xx responses are returned too);
    /// nil if the stream ends or fails first, or (with a recorded issue) if no whole response
    /// arrived within `patience` of the call.
    /// `toHEAD`: the response answers a HEAD, so it has no body whatever its Content-Length.
    func readResponse(toHEAD: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> Response? {
        let deadline = ContinuousClock.now + .seconds(patience)
        func fill() -> Bool {
            switch receive(upTo: 64 * 1024, until: deadline) {
            case .bytes(let chunk):
                pending += chunk
                return !chunk.isEmpty
            case .failed:
                return false
            case .timedOut:
                Issue.record("RawClient.readResponse: no whole response within \(patience) s (\(pending.count) bytes read)", sourceLocation: sourceLocation)
                return false
            }
        }
        var headEnd = Self.find(Array("\r\n\r\n".utf8), in: pending)
        while headEnd == nil {
            guard fill() else { return nil }
            headEnd = Self.find(Array("\r\n\r\n".utf8), in: pending)
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
        let length = toHEAD ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        let bodyStart = end + 4
        while pending.count < bodyStart + length {
            guard fill() else { return nil }
        }
        response.body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return response
    }

    private enum Received {
        /// What arrived; empty at end of stream.
        case bytes([UInt8])
        case failed(errno: Int32)
        case timedOut
    }

    /// One `recv` once the socket is readable, waiting no later than `deadline`.
    private func receive(upTo count: Int, until deadline: ContinuousClock.Instant) -> Received {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            guard Self.poll(fd, for: POLLIN, until: deadline) else { return .timedOut }
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if received >= 0 { return .bytes(Array(buffer[0..<received])) }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { return .failed(errno: code) }
        }
    }

    /// Whether `fd` is ready for `events` (or has an error or hang-up) before `deadline`.
    private static func poll(_ fd: Int32, for events: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = max(0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = systemPoll(fd, events: events, milliseconds: milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno == EINTR { continue }
            return false
        }
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

/// The libc `poll` on one descriptor, reachable from inside `RawClient`'s own `poll`.
private func systemPoll(_ fd: Int32, events: Int32, milliseconds: Int32) -> Int32 {
    var descriptor = pollfd(fd: fd, events: Int16(events), revents: 0)
    return poll(&descriptor, 1, milliseconds)
}
