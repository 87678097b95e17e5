import Dispatch
import Foundation
import FlowCheckTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 responder on 127.0.0.1 for one connection: accepts, reads the request
/// (headers plus `Content-Length` body), writes a fixed response, closes.
///
/// Only for `URLSessionTransport` tests of raw wire answers; the fakes serve everything else.
///
/// Every wait is bounded: `accept`, `recv` and `send` give up after ``socketTimeout`` seconds
/// (`SO_RCVTIMEO`/`SO_SNDTIMEO`, which `accept` honours on Linux), generous because a loaded
/// 2-core machine can take seconds to connect; a test awaiting the outcome waits at most
/// ``Served/value(within:)``; and the holding path opens the gate it was given on every exit,
/// its give-up paths included, so a test awaiting that gate is never left without an answer.
///
/// ```swift
/// let responder = try LoopbackResponder(response: "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
/// let served = responder.serveOnce()
/// let response = try await transport.send(TransportRequest(url: responder.url(path: "/x")))
/// let request = try await served.value()
/// ```
final class LoopbackResponder: @unchecked Sendable {
    /// Seconds a socket call waits before giving up.
    static let socketTimeout = 60

    let port: UInt16
    private let listener: Int32
    private let response: Data

    init(response: String) throws {
        self.response = Data(response.utf8)
        (listener, port) = try Self.listen()
    }

    deinit {
        close(listener)
    }

    func url(path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Serves one connection on a background thread; returns the raw request text, or nil when
    /// no complete request arrived.
    func serveOnce() -> Served<String?> {
        Served { self.serveBlocking() }
    }

    /// How a held connection ended.
    enum HoldOutcome: Equatable, Sendable, CustomStringConvertible {
        /// The client closed the connection: what a cancelled data task does.
        case clientHungUp
        /// No client connected within the socket timeout.
        case noConnection
        /// A client connected but sent no complete request within the socket timeout.
        case noRequest
        /// The client kept the connection open past the socket timeout.
        case clientStayed

        var description: String {
            switch self {
            case .clientHungUp: "LoopbackResponder: the client hung up"
            case .noConnection: "LoopbackResponder: no connection accepted within \(LoopbackResponder.socketTimeout) s"
            case .noRequest: "LoopbackResponder: no complete request within \(LoopbackResponder.socketTimeout) s"
            case .clientStayed: "LoopbackResponder: the client kept the connection for \(LoopbackResponder.socketTimeout) s"
            }
        }
    }

    /// Accepts one connection, reads the request, opens `received`, then writes nothing and
    /// waits for the client to hang up. `received` is opened on every path, giving up
    /// included, so a test waiting for it always gets an answer; the outcome says which.
    func serveHolding(received: Gate) -> Served<HoldOutcome> {
        Served { self.holdBlocking(received: received) }
    }

    /// Serves one connection like `serveOnce`, but after writing the response resets the
    /// connection (`SO_LINGER` 0: the kernel sends RST instead of FIN), as a crashing server or
    /// proxy would; give it a response cut short of its `Content-Length`.
    func serveOnceThenReset() -> Served<String?> {
        Served { self.serveBlocking(reset: true) }
    }

    private func holdBlocking(received: Gate) -> HoldOutcome {
        // Whatever happens, the test waiting for the request hears of it.
        defer { received.open() }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return .noConnection }
        defer { close(connection) }
        Self.setTimeout(connection)
        guard Self.readRequest(connection) != nil else { return .noRequest }
        received.open()
        var byte: UInt8 = 0
        return recv(connection, &byte, 1, 0) == 0 ? .clientHungUp : .clientStayed
    }

    private func serveBlocking(reset: Bool = false) -> String? {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return nil }
        defer { close(connection) }
        Self.setTimeout(connection)
        if reset {
            var linger = Glue.lingerReset
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }
        guard let request = Self.readRequest(connection) else { return nil }
        response.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(connection, bytes.baseAddress! + offset, bytes.count - offset, 0)
                if sent <= 0 { break }
                offset += sent
            }
        }
        return request
    }

    private static func readRequest(_ connection: Int32) -> String? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            if let end = received.firstRange(of: terminator)?.upperBound {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end + length {
                    return String(decoding: received, as: UTF8.self)
                }
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    private static func setTimeout(_ socket: Int32) {
        var timeout = timeval(tv_sec: socketTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A listening socket on 127.0.0.1 with a kernel-chosen port.
    static func listen() throws -> (Int32, UInt16) {
        let (socket, port) = try bound()
        guard Glue.listen(socket, 4) == 0 else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        setTimeout(socket)  // accept() honours SO_RCVTIMEO on Linux
        return (socket, port)
    }

    /// A port on 127.0.0.1 that nobody listens on: bound, read, then closed.
    static func closedPort() throws -> UInt16 {
        let (socket, port) = try bound()
        close(socket)
        return port
    }

    private static func bound() throws -> (Int32, UInt16) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let boundOK = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let namedOK = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard boundOK, namedOK else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

private enum Glue {
    /// Linger on, zero seconds: `close` discards unsent data and resets the connection.
    static var lingerReset: linger { linger(l_onoff: 1, l_linger: 0) }

    static func listen(_ socket: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.listen(socket, backlog)
        #else
        Darwin.listen(socket, backlog)
        #endif
    }
}

/// The outcome of serving on a thread of its own, started at once (not when an awaiting task
/// gets to run: blocking tests elsewhere in the suite can hold every cooperative thread for
/// seconds, and a responder that has not started yet makes the client time out).
///
/// The work is bounded by the responder's socket timeouts; `value(within:)` bounds the wait
/// for it once more, so a wedged thread fails the test by name.
final class Served<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Value?
    private var waiters: [@Sendable (Result<Value, any Error>) -> Void] = []

    init(_ work: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { [self] in
            let value = work()
            lock.lock()
            result = value
            let waiting = waiters
            waiters.removeAll()
            lock.unlock()
            for resume in waiting {
                resume(.success(value))
            }
        }
    }

    /// The work's result, once it has finished.
    /// - Parameter limit: The longest real time to wait; past the socket timeouts that bound
    ///   the work itself.
    /// - Throws: ``WaitTimedOut`` ("LoopbackResponder: serving did not finish") when `limit`
    ///   passes first.
    func value(within limit: Duration = .seconds(LoopbackResponder.socketTimeout * 3)) async throws -> Value {
        try await boundedWait("LoopbackResponder: serving did not finish", within: limit) { resume in
            lock.lock()
            if let result {
                lock.unlock()
                resume(.success(result))
            } else {
                waiters.append(resume)
                lock.unlock()
            }
        }
    }
}
