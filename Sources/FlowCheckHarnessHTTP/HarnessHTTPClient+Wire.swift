import Foundation
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the harness client writes: the request head.
enum HarnessHTTPWire {
    /// Header fields the client writes itself; the caller's are dropped.
    static let managedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// The request line and header section, ending in the blank line.
    ///
    /// `Host` first, then the caller's fields in order, then `Content-Length` (whenever there is
    /// a body, or the method is one that carries one) and `Connection: close`.
    /// - Throws: ``HarnessHTTPError/invalidRequest(_:)`` for a method or header that cannot be
    ///   written as it is (no CR, LF or NUL is ever smuggled onto the wire).
    static func head(of request: HarnessHTTPRequest, target: HarnessHTTPTarget) throws -> [UInt8] {
        guard !request.method.isEmpty, request.method.allSatisfy(HarnessHTTPResponseParser.isTokenCharacter) else {
            throw HarnessHTTPError.invalidRequest("\"\(request.method)\" is not a method")
        }
        var head = "\(request.method) \(target.requestTarget) HTTP/1.1\r\nHost: \(target.authority)\r\n"
        for (name, value) in request.headers where !managedHeaders.contains(name.lowercased()) {
            guard !name.isEmpty, name.allSatisfy(HarnessHTTPResponseParser.isTokenCharacter) else {
                throw HarnessHTTPError.invalidRequest("\"\(name)\" is not a header field name")
            }
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw HarnessHTTPError.invalidRequest("the \(name) header's value holds a line break or NUL")
            }
            head += "\(name): \(value)\r\n"
        }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method.uppercased()) {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }
}

/// One request's connection: connect, write, read, each wait bounded by the deadline. Runs on a
/// thread of its own; ``cancel()`` (from any thread) shuts the socket so a wait ends at once.
final class HarnessHTTPExchange: Sendable {
    private struct State {
        /// The socket while one is open, else -1.
        var descriptor: Int32 = -1
        var cancelled = false
    }

    private let state = Locked(State())

    /// Ends the exchange: a running wait returns and the request throws `CancellationError`.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if state.descriptor >= 0 { _ = shutdown(state.descriptor, Self.shutBoth) }
        }
    }

    /// Sends `bytes` to `target` and reads the response to `method`.
    /// - Parameter timeout: real time from now until every wait, connect to last byte, gives up.
    func run(target: HarnessHTTPTarget, bytes: [UInt8], method: String, timeout: Duration, limit: Int) throws -> HarnessHTTPResponse {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let waiter = Waiter(deadline: ContinuousClock.now + timeout, seconds: seconds, exchange: self)
        let fd = try connect(target, waiter: waiter)
        defer { release(fd) }
        try write(bytes, to: fd, waiter: waiter)
        var parser = HarnessHTTPResponseParser(method: method, limit: limit)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            try waiter.wait(fd, for: Int16(POLLIN), awaiting: parser.awaiting)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if let response = try parser.feed(chunk[0..<count]) { return Self.ended(fd, with: response) }
            } else if count == 0 {
                try checkCancelled()
                return Self.ended(fd, with: try parser.finish())
            } else if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                let reason = Self.reason(errno)
                try checkCancelled()
                throw HarnessHTTPError.connectionFailed(while: "awaiting \(parser.awaiting)", reason: reason)
            }
        }
    }

    /// The response is read in full: the coming close resets the connection (SO_LINGER
    /// {1, 0}) instead of ending it politely. Nothing is left to say on it, and the polite end
    /// leaves a TIME_WAIT entry on one side or the other for 60 s; a run of a thousand flows
    /// left thousands, and every later bind(port 0) on the machine (the next flow's fake
    /// server) scanned past them.
    private static func ended(_ fd: Int32, with response: HarnessHTTPResponse) -> HarnessHTTPResponse {
        Socket.setAbortiveClose(fd)
        return response
    }

    // MARK: - Connecting

    private func connect(_ target: HarnessHTTPTarget, waiter: Waiter) throws -> Int32 {
        let addresses = try HarnessHTTPAddress.resolve(target)
        var failure = HarnessHTTPError.connectFailed(target.authority, reason: "no address")
        // Each address in turn (localhost may be ::1 first), all within the one deadline.
        for address in addresses {
            let fd = socket(address.family, Self.streamType, 0)
            guard fd >= 0 else {
                failure = .connectFailed(target.authority, reason: Self.reason(errno))
                continue
            }
            try adopt(fd)
            do {
                try configure(fd)
                if address.connect(fd) != 0 {
                    guard errno == EINPROGRESS || errno == EINTR else { throw HarnessHTTPError.connectFailed(target.authority, reason: Self.reason(errno)) }
                    try waiter.wait(fd, for: Int16(POLLOUT), awaiting: "the connection to \(target.authority)")
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error != 0 { throw HarnessHTTPError.connectFailed(target.authority, reason: Self.reason(error)) }
                }
                return fd
            } catch let error as HarnessHTTPError {
                release(fd)
                // A missed deadline ends the attempt outright; a refusal tries the next address.
                if case .timedOut = error { throw error }
                failure = error
            } catch {
                release(fd)
                throw error
            }
        }
        try checkCancelled()
        throw failure
    }

    /// Non-blocking, so every wait is a `poll` with what is left of the deadline; no SIGPIPE
    /// when the server has gone.
    private func configure(_ fd: Int32) throws {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw HarnessHTTPError.connectFailed("a socket", reason: Self.reason(errno))
        }
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    // MARK: - Writing

    private func write(_ bytes: [UInt8], to fd: Int32, waiter: Waiter) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Self.sendFlags) }
            if count >= 0 {
                sent += count
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try waiter.wait(fd, for: Int16(POLLOUT), awaiting: "room to send the request (\(sent) of \(bytes.count) bytes sent)")
            } else if errno != EINTR {
                let reason = Self.reason(errno)
                try checkCancelled()
                throw HarnessHTTPError.connectionFailed(while: "sending the request (\(sent) of \(bytes.count) bytes sent)", reason: reason)
            }
        }
    }

    // MARK: - Waiting

    /// Bounds every wait of one exchange by its deadline.
    struct Waiter {
        let deadline: ContinuousClock.Instant
        /// The whole budget, for the error's wording.
        let seconds: Double
        let exchange: HarnessHTTPExchange

        /// Returns when `fd` is ready for `events` (or hung up, or failed: the following call
        /// reports that); throws `timedOut` naming `awaiting` once the deadline has passed.
        func wait(_ fd: Int32, for events: Int16, awaiting: String) throws {
            while true {
                try exchange.checkCancelled()
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw HarnessHTTPError.timedOut(awaiting: awaiting, seconds: seconds) }
                let milliseconds = min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000)
                var descriptor = pollfd(fd: fd, events: events, revents: 0)
                let ready = poll(&descriptor, 1, Int32(milliseconds))
                if ready > 0 {
                    try exchange.checkCancelled()
                    return
                }
                if ready < 0, errno != EINTR { return }
            }
        }
    }

    fileprivate func checkCancelled() throws {
        if state.withLock({ $0.cancelled }) { throw CancellationError() }
    }

    // MARK: - The socket's life

    /// Records the socket so ``cancel()`` can reach it; a cancelled exchange makes no more.
    private func adopt(_ fd: Int32) throws {
        let adopted = state.withLock { state -> Bool in
            guard !state.cancelled else {
                _ = close(fd)
                return false
            }
            state.descriptor = fd
            return true
        }
        if !adopted { throw CancellationError() }
    }

    /// Forgets the socket under the lock before closing it, so a late ``cancel()`` cannot shut
    /// down a descriptor number the process has meanwhile reused.
    private func release(_ fd: Int32) {
        state.withLock { state in
            if state.descriptor == fd { state.descriptor = -1 }
        }
        _ = close(fd)
    }

    private static func reason(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    private static let shutBoth = Int32(SHUT_RDWR)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    private static let shutBoth = SHUT_RDWR
    #endif
}

/// One address a request's host resolves to: what `connect` needs, copied out of `getaddrinfo`'s
/// list so that it outlives it (the loop's exchange tries the next one later, on its thread).
struct HarnessHTTPAddress {
    var family: Int32
    var storage: sockaddr_storage
    var length: socklen_t

    /// Every address `target`'s host resolves to, in the resolver's order (a numeric host, the
    /// harness's own, resolves without a lookup).
    /// - Throws: ``HarnessHTTPError/unresolvable(host:reason:)``.
    static func resolve(_ target: HarnessHTTPTarget) throws -> [HarnessHTTPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw HarnessHTTPError.unresolvable(host: target.host, reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [HarnessHTTPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            var storage = sockaddr_storage()
            let length = min(Int(info.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
            withUnsafeMutableBytes(of: &storage) { destination in
                destination.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: length))
            }
            addresses.append(HarnessHTTPAddress(family: info.pointee.ai_family, storage: storage, length: socklen_t(length)))
        }
        return addresses
    }

    /// The C `connect` of `fd` to this address.
    func connect(_ fd: Int32) -> Int32 {
        var storage = storage
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { posixConnect(fd, $0, length) }
        }
    }
}

/// The C `connect`, named apart from the Swift methods of that name.
private func posixConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}
