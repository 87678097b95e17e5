import FlowCheckFakeServer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection on 127.0.0.1 that sends and reads exact bytes, for checking a server (or a
/// client, from the server side) byte by byte, where an HTTP client would hide a framing
/// mistake, follow a redirect or refuse a request no URL can carry.
///
/// Every blocking call runs on a thread of its own (``offThePool(_:within:_:)``), never on
/// Swift's cooperative pool, and is bounded by `patience`: the socket is non-blocking and each
/// wait is a `poll` against a deadline. A server that neither answers nor closes makes the
/// call throw ``WaitTimedOut`` naming the call and what had arrived, instead of hanging the
/// test. `patience` only guards a broken run: a passing run never comes near it.
///
/// What it can do, for the cases a server must survive: send raw bytes (a head a byte at a
/// time, a request no URL type can carry), read a framed response, read until the peer
/// closes (keeping what came before a reset), wait a short while to see whether anything
/// arrives, half-close (`shutdownWrite()`), and close with unread data (the kernel then sends
/// a reset) or with a reset outright (``resetOnClose()``).
///
/// ```swift
/// let client = try await RawConnection.connect(port: server.port)
/// try await client.send("GET /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
/// let response = try #require(try await client.readResponse())
/// #expect(response.status == 400)
/// #expect(try await client.isReadable(within: .zero) == false)   // nothing more was sent
/// ```
public final class RawConnection: Sendable {
    /// A response read off the wire, framed by its `Content-Length`.
    public struct Response: Sendable {
        /// The status code of the status line.
        public var status: Int
        /// The header fields in order, names as sent.
        public var headers: [(name: String, value: String)]
        /// The body: `Content-Length` bytes (none for an answer to HEAD).
        public var body: [UInt8]

        /// The first field called `name`, compared without case.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// How long any one call waits for the peer.
    public let patience: Duration
    /// The port of the peer (the server's port, or the client's for an accepted connection).
    public let port: Int

    private let owned: OwnedSocket
    /// Bytes read past the last framed message.
    private let unread = Locked<[UInt8]>([])

    private init(fd: Int32, port: Int, patience: Duration) {
        owned = OwnedSocket(fd)
        self.port = port
        self.patience = patience
    }

    /// Takes over `fd`, a connected socket (one a ``RawListener`` accepted), making it
    /// non-blocking.
    /// - Parameters:
    ///   - fd: The descriptor; closed by this connection.
    ///   - port: The peer's port, for messages.
    ///   - patience: How long any one call waits for the peer.
    public convenience init(adopting fd: Int32, port: Int, patience: Duration = HangBound.standard) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.init(fd: fd, port: port, patience: patience)
    }

    deinit {
        close()
    }

    /// Connects to 127.0.0.1:`port`.
    /// - Parameters:
    ///   - port: The server's port.
    ///   - patience: How long the connect, and later every other call, waits for the server.
    ///   - first: Bytes to send the moment the connect completes, on the same thread: for a
    ///     server whose timer starts when it accepts (a fresh connection's idle timeout of a
    ///     fraction of a second, shorter than a loaded machine takes to start the next call).
    /// - Returns: The connection.
    /// - Throws: ``SocketError`` (`connect`) when the kernel refuses or fails the connect;
    ///   ``WaitTimedOut`` when it has not completed, or the server has not taken `first`,
    ///   within `patience`.
    public static func connect(port: Int, patience: Duration = HangBound.standard, sending first: String = "") async throws -> RawConnection {
        let fd = try await offThePool("RawConnection.connect(port: \(port))", within: patience + Self.margin) {
            let fd = try Self.blockingConnect(port: port, patience: patience)
            do {
                guard try sendAll(Array(first.utf8), fd: fd, until: .now + patience, port: port, patience: patience) else {
                    throw SocketError(call: "send", code: errno)
                }
            } catch {
                closeDescriptor(fd)
                throw error
            }
            return fd
        }
        return RawConnection(fd: fd, port: port, patience: patience)
    }

    /// The `errno` of a failed connect to 127.0.0.1:`port`, or nil when it connected (the
    /// connection is closed again at once).
    /// - Throws: ``WaitTimedOut`` when the connect has not completed within `patience`.
    public static func connectError(port: Int, patience: Duration = HangBound.standard) async throws -> Int32? {
        do {
            _ = try await connect(port: port, patience: patience)
            return nil
        } catch let failed as SocketError where failed.call == "connect" {
            return failed.code
        }
    }

    /// Closes now rather than at release; later calls do nothing. Unread data makes the
    /// kernel reset the connection rather than close it politely.
    public func close() {
        owned.close()
    }

    /// Closes our sending side: the peer reads end of stream, and we can still read.
    public func shutdownWrite() {
        owned.withOpen { _ = shutdown($0, Int32(SHUT_WR)) }
    }

    /// Makes `close()` reset the connection (`SO_LINGER` 0: the kernel sends RST, not FIN), as
    /// a crashing server or proxy would.
    public func resetOnClose() {
        owned.withOpen { fd in
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
    }

    /// Sends `text` as UTF-8; see ``send(_:)-([UInt8])``.
    @discardableResult
    public func send(_ text: String) async throws -> Bool {
        try await send(Array(text.utf8))
    }

    /// Sends every byte.
    /// - Returns: False when the connection failed (the peer reset or closed it).
    /// - Throws: ``WaitTimedOut`` when the peer took none of the rest within `patience`.
    @discardableResult
    public func send(_ bytes: [UInt8]) async throws -> Bool {
        try await perform("send") { fd, _, deadline in
            try Self.sendAll(bytes, fd: fd, until: deadline, port: self.port, patience: self.patience)
        }
    }

    /// What ``sendUnlessReadable(_:)`` did.
    public enum SendOutcome: Sendable, Equatable {
        case sent
        /// Something from the peer waits to be read: nothing was sent.
        case readable
        /// The connection failed (the peer reset or closed it).
        case failed
    }

    /// Sends every byte unless something from the peer already waits to be read, looked at on
    /// the same thread just before the send. Two calls (``isReadable(within:)``, then
    /// ``send(_:)``) each wait for a thread of their own: under load seconds can pass between
    /// them, long enough for a server to answer, close, and meet the byte with a reset that
    /// throws its answer away.
    /// - Throws: ``WaitTimedOut`` when the peer took none of the rest within `patience`.
    public func sendUnlessReadable(_ bytes: [UInt8]) async throws -> SendOutcome {
        if !unread.withLock({ $0.isEmpty }) { return .readable }
        return try await perform("sendUnlessReadable") { fd, _, deadline in
            if Self.poll(fd, for: POLLIN, until: .now) { return .readable }
            return try Self.sendAll(bytes, fd: fd, until: deadline, port: self.port, patience: self.patience) ? .sent : .failed
        }
    }

    /// Reads at most `count` bytes.
    /// - Returns: What arrived (empty at end of stream); nil when the connection failed.
    /// - Throws: ``WaitTimedOut`` when nothing arrived within `patience`.
    public func read(upTo count: Int) async throws -> [UInt8]? {
        try await perform("read(upTo: \(count))") { fd, pending, deadline in
            if !pending.isEmpty {
                let taken = Array(pending.prefix(count))
                pending.removeFirst(taken.count)
                return taken
            }
            switch Self.receive(fd, upTo: count, until: deadline) {
            case .bytes(let bytes): return bytes
            case .failed: return nil
            case .timedOut: throw self.timedOut("read(upTo: \(count))", "nothing arrived")
            }
        }
    }

    /// Reads until the peer closes.
    /// - Returns: Everything read; nil when the connection failed (a reset, say) on the way.
    /// - Throws: ``WaitTimedOut`` when the peer had not closed within `patience` of the call.
    public func readToEnd() async throws -> [UInt8]? {
        let (bytes, error) = try await readUntilClosed(caller: "readToEnd")
        return error == nil ? bytes : nil
    }

    /// Reads until the stream ends, keeping what arrived before an error.
    /// - Returns: The bytes, and the `errno` that ended the stream (`ECONNRESET`, say), nil
    ///   for an orderly end.
    /// - Throws: ``WaitTimedOut`` when the stream had not ended within `patience` of the call.
    public func readUntilClosed() async throws -> (bytes: [UInt8], error: Int32?) {
        try await readUntilClosed(caller: "readUntilClosed")
    }

    private func readUntilClosed(caller: String) async throws -> (bytes: [UInt8], error: Int32?) {
        try await perform(caller) { fd, pending, deadline in
            var all = pending
            pending = []
            while true {
                switch Self.receive(fd, upTo: 64 * 1024, until: deadline) {
                case .bytes(let chunk) where chunk.isEmpty: return (all, nil)
                case .bytes(let chunk): all += chunk
                case .failed(let code): return (all, code)
                case .timedOut: throw self.timedOut(caller, "the peer did not close (\(all.count) bytes read)")
                }
            }
        }
    }

    /// Whether the peer has sent something (or closed) within `limit`: how a test waits a
    /// little for something that should not happen. A timeout is an answer here, not a failure.
    /// - Parameter limit: How long to look; `.zero` looks once without waiting.
    public func isReadable(within limit: Duration) async throws -> Bool {
        if !unread.withLock({ $0.isEmpty }) { return true }
        guard limit > .zero else {
            return owned.withOpen { Self.poll($0, for: POLLIN, until: .now) } ?? true
        }
        return try await perform("isReadable(within:)", limit: limit) { fd, _, deadline in
            Self.poll(fd, for: POLLIN, until: deadline)
        }
    }

    /// Reads one response framed by `Content-Length` (an interim 1xx response is returned too).
    /// - Parameter toHEAD: The response answers a HEAD: it has no body, whatever its
    ///   `Content-Length` says.
    /// - Returns: The response; nil when the stream ended or failed first, or the status line
    ///   is not HTTP.
    /// - Throws: ``WaitTimedOut`` when no whole response arrived within `patience` of the call.
    public func readResponse(toHEAD: Bool = false) async throws -> Response? {
        try await perform("readResponse") { fd, pending, deadline in
            guard let (head, bodyStart) = try self.readHead(fd, &pending, until: deadline, caller: "readResponse") else { return nil }
            let lines = head.components(separatedBy: "\r\n")
            let statusParts = lines[0].split(separator: " ")
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
            let headers = Self.fields(lines.dropFirst())
            var response = Response(status: status, headers: headers, body: [])
            let length = toHEAD ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
            guard let body = try self.readBody(fd, &pending, from: bodyStart, length: length, until: deadline, caller: "readResponse") else { return nil }
            response.body = body
            return response
        }
    }

    /// Reads one request as a server would: its head and a `Content-Length` body.
    /// - Returns: The request's bytes, head and body; nil when the stream ended or failed first.
    /// - Throws: ``WaitTimedOut`` when no whole request arrived within `patience` of the call.
    public func readRequest() async throws -> [UInt8]? {
        try await perform("readRequest") { fd, pending, deadline in
            guard let (head, bodyStart) = try self.readHead(fd, &pending, until: deadline, caller: "readRequest") else { return nil }
            let length = Self.fields(head.components(separatedBy: "\r\n").dropFirst())
                .first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
            let headBytes = Array(pending[0..<bodyStart])
            guard let body = try self.readBody(fd, &pending, from: bodyStart, length: length, until: deadline, caller: "readRequest") else { return nil }
            return headBytes + body
        }
    }

    // MARK: - Running a call

    /// How much longer than its own deadline a call's thread is waited for.
    private static let margin: Duration = .seconds(60)

    /// Runs `body` on a thread of its own with the descriptor, the unread bytes and the
    /// deadline `limit` (`patience` unless told) from now.
    private func perform<T: Sendable>(
        _ call: String,
        limit: Duration? = nil,
        _ body: @escaping @Sendable (Int32, inout [UInt8], ContinuousClock.Instant) throws -> T
    ) async throws -> T {
        let limit = limit ?? patience
        let fd = try owned.claim("RawConnection.\(call)")
        let pending = unread.withLock { $0 }
        let deadline = ContinuousClock.now + limit
        let (owned, unread) = (self.owned, self.unread)
        return try await offThePool("RawConnection.\(call) on port \(port)", within: limit + Self.margin) {
            var left = pending
            defer {
                unread.withLock { $0 = left }
                owned.release()
            }
            return try body(fd, &left, deadline)
        }
    }

    private func timedOut(_ call: String, _ what: String) -> WaitTimedOut {
        WaitTimedOut("RawConnection.\(call) on port \(port): \(what)", limit: patience)
    }

    // MARK: - Blocking parts (on a call's own thread)

    private static func blockingConnect(port: Int, patience: Duration) throws -> Int32 {
        let fd = try Glue.tcpSocket()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var address = Glue.loopback(port: port)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glue.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var code = result == 0 ? 0 : errno
        if code == EINPROGRESS {
            guard poll(fd, for: POLLOUT, until: .now + patience) else {
                closeDescriptor(fd)
                throw WaitTimedOut("RawConnection.connect(port: \(port)): not connected", limit: patience)
            }
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
        }
        guard code == 0 else {
            closeDescriptor(fd)
            throw SocketError(call: "connect", code: code)
        }
        return fd
    }

    private static func sendAll(_ bytes: [UInt8], fd: Int32, until deadline: ContinuousClock.Instant, port: Int, patience: Duration) throws -> Bool {
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let sent = Glue.send(fd, base + offset, raw.count - offset)
                if sent > 0 {
                    offset += sent
                } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    guard poll(fd, for: POLLOUT, until: deadline) else {
                        throw WaitTimedOut("RawConnection.send on port \(port): the peer took \(offset) of \(raw.count) bytes", limit: patience)
                    }
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Reads until `pending` holds a head; its text and where its body starts, or nil when the
    /// stream ended or failed first.
    private func readHead(_ fd: Int32, _ pending: inout [UInt8], until deadline: ContinuousClock.Instant, caller: String) throws -> (String, Int)? {
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = pending.firstRange(of: separator) {
                return (String(decoding: pending[..<end.lowerBound], as: UTF8.self), end.upperBound)
            }
            guard try fill(fd, &pending, until: deadline, caller: caller) else { return nil }
        }
    }

    /// Reads until `pending` holds `length` bytes from `start`; takes head and body off it.
    private func readBody(_ fd: Int32, _ pending: inout [UInt8], from start: Int, length: Int, until deadline: ContinuousClock.Instant, caller: String) throws -> [UInt8]? {
        while pending.count < start + length {
            guard try fill(fd, &pending, until: deadline, caller: caller) else { return nil }
        }
        let body = Array(pending[start..<(start + length)])
        pending.removeFirst(start + length)
        return body
    }

    /// Appends what arrives to `pending`; false at end of stream or on an error.
    private func fill(_ fd: Int32, _ pending: inout [UInt8], until deadline: ContinuousClock.Instant, caller: String) throws -> Bool {
        switch Self.receive(fd, upTo: 64 * 1024, until: deadline) {
        case .bytes(let chunk):
            pending += chunk
            return !chunk.isEmpty
        case .failed:
            return false
        case .timedOut:
            throw timedOut(caller, "no whole message (\(pending.count) bytes read)")
        }
    }

    private static func fields(_ lines: ArraySlice<String>) -> [(name: String, value: String)] {
        lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    private enum Received {
        /// What arrived; empty at end of stream.
        case bytes([UInt8])
        case failed(errno: Int32)
        case timedOut
    }

    /// One `recv` once the socket is readable, waiting no later than `deadline`.
    private static func receive(_ fd: Int32, upTo count: Int, until deadline: ContinuousClock.Instant) -> Received {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            guard poll(fd, for: POLLIN, until: deadline) else { return .timedOut }
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if received >= 0 { return .bytes(Array(buffer[0..<received])) }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { return .failed(errno: code) }
        }
    }

    /// Whether `fd` is ready for `events` (or has an error or hang-up) before `deadline`.
    static func poll(_ fd: Int32, for events: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = max(0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var descriptor = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = Glue.poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno == EINTR { continue }
            return false
        }
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = Glue.close(fd)
    }
}

/// A socket call that failed, with its `errno`: a refused connect is `connect` and
/// `ECONNREFUSED`.
public struct SocketError: Error, Equatable, CustomStringConvertible {
    /// The call that failed: `connect`, `bind`, `accept`, ...
    public let call: String
    /// Its `errno`.
    public let code: Int32

    /// Creates the error for `call`, which failed with `code`.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// `"<call> failed: errno <code>"`.
    public var description: String { "\(call) failed: errno \(code)" }
}

/// The libc calls whose names the raw socket types' own methods shadow, and the few steps both
/// sides of a loopback connection take.
enum Glue {
    /// A new IPv4 TCP socket.
    static func tcpSocket() throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        return fd
    }

    /// 127.0.0.1:`port` (0: any port, for `bind`).
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #else
        Darwin.connect(fd, address, length)
        #endif
    }

    /// `send` without SIGPIPE: a peer that went away is an error return, not a signal.
    static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, bytes, count, 0)
        #endif
    }

    static func poll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ milliseconds: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.poll(descriptors, count, milliseconds)
        #else
        Darwin.poll(descriptors, count, milliseconds)
        #endif
    }

    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }
}
