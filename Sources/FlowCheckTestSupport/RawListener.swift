import FlowCheckFakeServer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on 127.0.0.1 with a kernel-chosen port, whose accepted connections
/// are ``RawConnection``s: a server that answers exactly the bytes a test writes, for testing
/// a client against answers no fake gives (a body cut short, a reset, no answer at all).
///
/// `accept` runs on a thread of its own and is bounded like every ``RawConnection`` call.
///
/// ```swift
/// let listener = try RawListener()
/// let served = Task {
///     let peer = try await listener.accept()
///     let request = try await peer.readRequest()
///     try await peer.send("HTTP/1.1 204 No Content\r\n\r\n")
///     return request
/// }
/// let response = try await client.send(URL(string: "http://127.0.0.1:\(listener.port)/")!)
/// let request = try await boundedValue(of: served, waitingFor: "the served request")
/// ```
public final class RawListener: Sendable {
    /// The port it listens on.
    public let port: Int

    private let owned: OwnedSocket

    /// Listens on 127.0.0.1 on a port the kernel chooses.
    /// - Parameter backlog: How many connections the kernel completes before one is accepted.
    /// - Throws: ``SocketError`` when the socket cannot be bound or listen.
    public init(backlog: Int32 = 16) throws {
        let (fd, port) = try Self.bound()
        guard Glue.listen(fd, backlog) == 0 else {
            let code = errno
            _ = Glue.close(fd)
            throw SocketError(call: "listen", code: code)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.port = port
        owned = OwnedSocket(fd)
    }

    deinit {
        close()
    }

    /// Accepts the next connection.
    /// - Parameters:
    ///   - limit: How long to wait for a client to connect.
    ///   - patience: How long each call on the accepted connection waits for the client.
    ///   - first: Bytes to write the moment the connection is accepted, on the accepting
    ///     thread, before the request is read: for a client with a short deadline of its own,
    ///     which a loaded machine could pass while the test's task waits for a pool thread.
    /// - Returns: The accepted connection.
    /// - Throws: ``WaitTimedOut`` when no client connected within `limit`; ``SocketError``
    ///   when `accept` failed or the listener is closed.
    public func accept(within limit: Duration = HangBound.standard, patience: Duration = HangBound.standard, sending first: String = "") async throws -> RawConnection {
        let fd = try owned.claim("RawListener.accept")
        let port = self.port
        let client = try await offThePool("RawListener.accept on port \(port)", within: limit + Self.margin) { [self] () throws -> Int32 in
            defer { owned.release() }
            return try Self.blockingAccept(fd, port: port, until: .now + limit, limit: limit, sending: first)
        }
        return RawConnection(adopting: client, port: port, patience: patience)
    }

    /// Accepts `count` connections in turn and hands each to `handle`, on a task of its own:
    /// a server for one test, written as the bytes it reads and writes.
    ///
    /// Accepting starts at once, on a thread of its own, so a client that connects before the
    /// task first runs (a busy pool can delay it for seconds) is accepted, and sent `first`,
    /// without waiting for it. Each connection is closed once `handle` returns. Cancelling the
    /// task closes the connection being handled, which ends its pending call at once. Closing
    /// the listener ends the task too, with the values of the connections handled so far: how
    /// a test learns that a client made fewer connections than `count`.
    ///
    /// ```swift
    /// let listener = try RawListener()
    /// let served = listener.serve { peer in
    ///     let request = try await peer.readRequest()
    ///     try await peer.send("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
    ///     return request
    /// }
    /// defer { served.cancel() }
    /// _ = try await client.send(URL(string: "http://127.0.0.1:\(listener.port)/start")!)
    /// listener.close()
    /// let requests = try await boundedValue(of: served, waitingFor: "the listener")   // one request
    /// ```
    /// - Parameters:
    ///   - count: How many connections to accept, one after another.
    ///   - first: Bytes written to each connection as it is accepted (see
    ///     ``accept(within:patience:sending:)``).
    ///   - handle: What to do with each; its value is kept.
    /// - Returns: The task; its value is `handle`'s values, in order.
    public func serve<Value: Sendable>(
        _ count: Int = 1,
        sending first: String = "",
        _ handle: @escaping @Sendable (RawConnection) async throws -> Value
    ) -> Task<[Value], any Error> {
        let port = self.port
        let slots = (0..<max(0, count)).map { _ in OneShot<Int32>() }
        // Accepted descriptors not yet taken by the task; `abandoned` once the task has ended.
        let handover = Locked<(abandoned: Bool, unclaimed: Set<Int32>)>((false, []))
        do {
            let fd = try owned.claim("RawListener.serve")
            OwnThreads.shared.run("RawListener.serve on port \(port)") { [self] in
                defer { owned.release() }
                for (index, slot) in slots.enumerated() {
                    let client: Int32
                    do {
                        client = try Self.blockingAccept(fd, port: port, until: .now + HangBound.standard, limit: HangBound.standard, sending: first)
                    } catch {
                        for rest in slots[index...] { rest.fulfil(.failure(error)) }
                        return
                    }
                    let kept = handover.withLock { state -> Bool in
                        guard !state.abandoned else { return false }
                        state.unclaimed.insert(client)
                        return true
                    }
                    guard kept else {
                        _ = Glue.close(client)
                        return
                    }
                    slot.fulfil(.success(client))
                }
            }
        } catch {
            for slot in slots { slot.fulfil(.failure(error)) }
        }
        return Task { [self] in
            defer {
                let left = handover.withLock { state -> Set<Int32> in
                    state.abandoned = true
                    defer { state.unclaimed = [] }
                    return state.unclaimed
                }
                for fd in left { _ = Glue.close(fd) }
            }
            var values: [Value] = []
            for slot in slots {
                let fd: Int32
                do {
                    fd = try await slot.value("RawListener.serve on port \(port): no client connected", within: HangBound.standard + Self.margin)
                } catch where isClosed {
                    break
                }
                handover.withLock { _ = $0.unclaimed.remove(fd) }
                let peer = RawConnection(adopting: fd, port: port)
                defer { peer.close() }
                let value = try await withTaskCancellationHandler {
                    try await handle(peer)
                } onCancel: {
                    peer.close()
                }
                values.append(value)
            }
            return values
        }
    }

    /// How much longer than its own deadline an accepting thread is waited for.
    private static let margin: Duration = .seconds(60)

    /// One accepted descriptor, `first` already written to it; on the calling thread.
    private static func blockingAccept(_ fd: Int32, port: Int, until deadline: ContinuousClock.Instant, limit: Duration, sending first: String) throws -> Int32 {
        while true {
            guard RawConnection.poll(fd, for: POLLIN, until: deadline) else {
                throw WaitTimedOut("RawListener.accept on port \(port): no client connected", limit: limit)
            }
            let client = Glue.accept(fd)
            if client >= 0 {
                let bytes = Array(first.utf8)
                // A fresh connection's send buffer takes a short answer whole.
                let sent = bytes.isEmpty || bytes.withUnsafeBytes { Glue.send(client, $0.baseAddress!, $0.count) } == bytes.count
                guard sent else {
                    let code = errno
                    _ = Glue.close(client)
                    throw SocketError(call: "send", code: code)
                }
                return client
            }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED else {
                throw SocketError(call: "accept", code: code)
            }
        }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        owned.isClosed
    }

    /// Stops listening: later connects are refused. Later calls do nothing.
    public func close() {
        owned.close()
    }

    /// A port on 127.0.0.1 that nobody listens on: bound, read, then closed. A connect to it is
    /// refused at once, unless the machine has since handed the port to another socket (a
    /// test's server, say): for more than one connect, hold a ``RefusingPort`` instead.
    /// - Throws: ``SocketError`` when no port could be bound.
    public static func closedPort() throws -> Int {
        let (fd, port) = try bound()
        _ = Glue.close(fd)
        return port
    }

    static func bound() throws -> (Int32, Int) {
        let fd = try Glue.tcpSocket()
        var address = Glue.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let code = errno
            _ = Glue.close(fd)
            throw SocketError(call: "bind", code: code)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

extension Glue {
    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.listen(fd, backlog)
        #else
        Darwin.listen(fd, backlog)
        #endif
    }

    static func accept(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.accept(fd, nil, nil)
        #else
        Darwin.accept(fd, nil, nil)
        #endif
    }
}

/// A port on 127.0.0.1 that refuses every connect for as long as this lives: bound and not
/// listening, so the machine gives the port to no other socket meanwhile. (A port merely closed
/// can be handed to another test's server, whose flow then sees this test's requests: a race
/// test sending 300 requests to a closed port once failed two flows of other suites so.)
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    /// - Throws: ``SocketError`` when no port could be bound.
    public init() throws {
        (fd, port) = try RawListener.bound()
    }

    deinit {
        _ = Glue.close(fd)
    }
}
