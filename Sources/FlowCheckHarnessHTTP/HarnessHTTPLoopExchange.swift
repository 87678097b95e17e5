#if os(Linux)
import Foundation
import Glibc
import FlowCheckFakeServer

/// One request's connection driven by an event loop (Linux): connect, write and read without
/// blocking, on the loop the fakes share, so a browser step's request costs no thread hand-off
/// and no thread waits in `poll` for it (``HarnessHTTPExchange`` does the same on a thread of
/// its own, on other platforms and when no loop could start).
///
/// The same contract: every wait ends at the deadline (real time from the start) with
/// ``HarnessHTTPError/timedOut(awaiting:seconds:)`` naming what was awaited; each address of
/// the host is tried in turn within it; ``cancel()`` ends the exchange at once with
/// `CancellationError`. The continuation is resumed exactly once, from the loop's thread (or,
/// before the loop has it, from the caller's).
// @unchecked: the properties under "Loop thread only" are touched on the loop's thread (or, once
// the loop has ended, by the one caller left); `handoff` is a lock.
final class HarnessHTTPLoopExchange: EventHandler, @unchecked Sendable {
    private let loop: EventLoop
    private let target: HarnessHTTPTarget
    private let bytes: [UInt8]
    private let seconds: Double
    let deadline: ContinuousClock.Instant?

    /// Who resumes the caller: whoever takes the continuation out first.
    private let handoff = Locked<(continuation: CheckedContinuation<HarnessHTTPResponse, any Error>?, cancelled: Bool)>((nil, false))

    private enum Phase {
        case idle
        case connecting
        case writing(sent: Int)
        case reading
        case finished
    }

    // Loop thread only:
    private var phase = Phase.idle
    private var fd: Int32 = -1
    private var addresses: [HarnessHTTPAddress]
    private var failure: HarnessHTTPError
    private var parser: HarnessHTTPResponseParser

    init(loop: EventLoop, target: HarnessHTTPTarget, bytes: [UInt8], method: String, timeout: Duration, limit: Int, addresses: [HarnessHTTPAddress]) {
        self.loop = loop
        self.target = target
        self.bytes = bytes
        seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        deadline = ContinuousClock.now + timeout
        self.addresses = addresses
        failure = .connectFailed(target.authority, reason: "no address")
        parser = HarnessHTTPResponseParser(method: method, limit: limit)
    }

    /// Hands the exchange to the loop; `continuation` is resumed when it ends.
    func start(_ continuation: CheckedContinuation<HarnessHTTPResponse, any Error>) {
        let cancelled = handoff.withLock { state -> Bool in
            if state.cancelled { return true }
            state.continuation = continuation
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        let taken = loop.execute { [self] in connectNext() }
        if !taken { finish(.failure(HarnessHTTPError.connectionFailed(while: "starting the exchange", reason: "the event loop has ended"))) }
    }

    /// Ends the exchange with `CancellationError`, from any thread.
    func cancel() {
        let running = handoff.withLock { state -> Bool in
            state.cancelled = true
            return state.continuation != nil
        }
        guard running else { return }
        if !loop.execute({ [self] in finish(.failure(CancellationError())) }) {
            resume(.failure(CancellationError()))
        }
    }

    // MARK: - On the loop's thread

    private func connectNext() {
        if case .finished = phase { return }
        guard !addresses.isEmpty else {
            finish(.failure(failure))
            return
        }
        let address = addresses.removeFirst()
        let socketFD = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else {
            failure = .connectFailed(target.authority, reason: Self.reason(errno))
            connectNext()
            return
        }
        fd = socketFD
        if address.connect(socketFD) == 0 {
            phase = .writing(sent: 0)
            loop.register(socketFD, self, events: EventLoop.writable)
            write()
            return
        }
        guard errno == EINPROGRESS || errno == EINTR else {
            failure = .connectFailed(target.authority, reason: Self.reason(errno))
            closeSocket()
            connectNext()
            return
        }
        phase = .connecting
        loop.register(socketFD, self, events: EventLoop.writable)
    }

    func handle(events: UInt32) {
        switch phase {
        case .connecting:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                // Refused: the next address, within the same deadline.
                failure = .connectFailed(target.authority, reason: Self.reason(error))
                closeSocket()
                phase = .idle
                connectNext()
                return
            }
            phase = .writing(sent: 0)
            write()
        case .writing:
            write()
        case .reading:
            read()
        case .idle, .finished:
            return
        }
    }

    private func write() {
        guard case .writing(var sent) = phase else { return }
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count >= 0 {
                sent += count
                phase = .writing(sent: sent)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else if errno != EINTR {
                finish(.failure(HarnessHTTPError.connectionFailed(while: "sending the request (\(sent) of \(bytes.count) bytes sent)", reason: Self.reason(errno))))
                return
            }
        }
        phase = .reading
        loop.watch(fd, events: EventLoop.readable)
    }

    private func read() {
        while true {
            let count = loop.scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                do {
                    if let response = try parser.feed(loop.scratch[0..<count]) {
                        finish(.success(response))
                        return
                    }
                } catch {
                    finish(.failure(error))
                    return
                }
            } else if count == 0 {
                do {
                    finish(.success(try parser.finish()))
                } catch {
                    finish(.failure(error))
                }
                return
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else if errno != EINTR {
                finish(.failure(HarnessHTTPError.connectionFailed(while: "awaiting \(parser.awaiting)", reason: Self.reason(errno))))
                return
            }
        }
    }

    func expire() {
        let awaiting: String
        switch phase {
        case .idle, .connecting: awaiting = "the connection to \(target.authority)"
        case .writing(let sent): awaiting = "room to send the request (\(sent) of \(bytes.count) bytes sent)"
        case .reading: awaiting = parser.awaiting
        case .finished: return
        }
        finish(.failure(HarnessHTTPError.timedOut(awaiting: awaiting, seconds: seconds)))
    }

    /// Closes the connection and resumes the caller, once. A complete response resets the
    /// connection rather than closing it politely (no TIME_WAIT entry; see
    /// ``HarnessHTTPExchange``).
    private func finish(_ result: Result<HarnessHTTPResponse, any Error>) {
        if case .finished = phase { return }
        phase = .finished
        if fd >= 0, case .success = result { Socket.setAbortiveClose(fd) }
        closeSocket()
        resume(result)
    }

    private func closeSocket() {
        guard fd >= 0 else { return }
        loop.deregister(fd)
        close(fd)
        fd = -1
    }

    private func resume(_ result: Result<HarnessHTTPResponse, any Error>) {
        let continuation = handoff.withLock { state -> CheckedContinuation<HarnessHTTPResponse, any Error>? in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    private static func reason(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
#endif
