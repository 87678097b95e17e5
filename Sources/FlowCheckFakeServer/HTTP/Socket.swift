import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin POSIX socket helpers, kept in one place so platform differences stay out of the
/// server logic.
package enum Socket {
    /// Writing to a peer that vanished raises SIGPIPE, whose default action kills the whole
    /// test process; ignore it once per process (sends also pass MSG_NOSIGNAL).
    static func ignoreSIGPIPE() {
        _ = sigpipeIgnored
    }

    private static let sigpipeIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// Opens a listening TCP socket on `address`:`port` (0 = ephemeral; loopback unless told).
    ///
    /// The backlog is generous (the kernel caps it at `somaxconn`) so a burst of a few
    /// hundred connects is queued rather than dropped and retried a second later.
    /// A socket bound to `port` that does not listen: connects to it are refused (RST), and
    /// while it is open no other socket is given that port, so a server that plays unreachable
    /// keeps its port from the next ephemeral bind (another flow's server) meanwhile.
    static func openPlaceholder(port: Int, address bindAddress: BindAddress) throws(HTTPServerError) -> Int32 {
        try openListener(port: port, address: bindAddress, listening: false)
    }

    static func openListener(port: Int, address bindAddress: BindAddress = .loopback, backlog: Int32 = 1024, listening: Bool = true) throws(HTTPServerError) -> Int32 {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .socketCreationFailed(errno: errno) }
        // A port past 65535 is refused, never wrapped round to another (65536 would be port 0:
        // an ephemeral one nobody asked for).
        guard (0...65_535).contains(port) else {
            close(fd)
            throw .bindFailed(address: bindAddress.description, port: port, errno: EINVAL)
        }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr = in_addr(s_addr: bindAddress.networkOrder)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .bindFailed(address: bindAddress.description, port: port, errno: code)
        }
        guard !listening || listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw .listenFailed(errno: code)
        }
        return fd
    }

    /// The local port a socket is bound to, or 0.
    static func localPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(fd, $0, &length)
            }
        }
        guard result == 0 else { return 0 }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sets receive and send timeouts so a silent peer cannot pin a thread forever.
    static func setTimeouts(_ fd: Int32, seconds: TimeInterval) {
        guard seconds > 0, seconds.isFinite else { return }
        let clamped = min(seconds, 86_400)
        var value = timeval()
        value.tv_sec = numericCast(Int(clamped))
        value.tv_usec = numericCast(Int((clamped - clamped.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Disables Nagle so small keep-alive responses are not held back.
    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sends every byte; false if the peer went away or the send timed out.
    /// - Parameter deadline: when to give up between sends (each send is bounded by the
    ///   socket's SO_SNDTIMEO); nil: none.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                if let deadline, ContinuousClock.now >= deadline { return false }
                #if os(Linux)
                let sent = send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = send(fd, base + offset, raw.count - offset, 0)
                #endif
                if sent > 0 {
                    offset += sent
                } else if sent < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// What a blocking receive produced.
    enum ReceiveResult {
        case data(Int)
        case endOfStream
        case timedOut
        case failed
    }

    /// Receives into `buffer`, retrying on EINTR.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> ReceiveResult {
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(fd, raw.baseAddress, raw.count, 0)
            }
            if count > 0 { return .data(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .failed
            }
        }
    }

    /// How many received bytes wait unread on `fd` (0 when it cannot tell).
    static func pendingBytes(_ fd: Int32) -> Int {
        var count: Int32 = 0
        #if canImport(Glibc)
        let request = UInt(FIONREAD)
        #else
        let request = FIONREAD
        #endif
        return ioctl(fd, request, &count) == 0 ? Int(count) : 0
    }

    /// Whether nothing is left either way on `fd`: no received byte unread, and every byte
    /// sent acknowledged by the peer. False when the system cannot tell. Closing such a socket
    /// cannot cost the peer any of the answer: even a reset that a later byte of its own
    /// provokes finds the whole answer already in its receive buffer.
    static func isDrainedBothWays(_ fd: Int32) -> Bool {
        var unread: Int32 = 0
        #if canImport(Glibc)
        guard ioctl(fd, UInt(FIONREAD), &unread) == 0, unread == 0 else { return false }
        var unsent: Int32 = 0
        // TIOCOUTQ is SIOCOUTQ for a TCP socket: bytes sent and not yet acknowledged.
        guard ioctl(fd, UInt(TIOCOUTQ), &unsent) == 0 else { return false }
        return unsent == 0
        #elseif canImport(Darwin)
        guard ioctl(fd, FIONREAD, &unread) == 0, unread == 0 else { return false }
        var unsent: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_NWRITE, &unsent, &size) == 0 else { return false }
        return unsent == 0
        #else
        return false
        #endif
    }

    /// Wakes any thread blocked on `fd` (accept, recv, send) without closing it, so the
    /// owning thread can close it later and no other thread ever sees a reused descriptor.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Makes the coming `close()` abortive (SO_LINGER {1, 0}): the kernel discards unsent data
    /// and sends RST, so the peer sees ECONNRESET instead of an orderly end of stream.
    package static func setAbortiveClose(_ fd: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// Stops receiving: a thread blocked in `recv` on `fd` sees end of stream, and the write
    /// side stays open for an answer.
    static func shutdownRead(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RD))
    }

    /// Half-closes our side so the peer sees EOF after the last response.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }
}
