import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// Waits until `fd` is readable (data, end of stream, an error, or a `shutdown()` from
    /// another thread), then receives; `.timedOut` if `seconds` pass first.
    ///
    /// Timeouts are per call, through `poll`, rather than SO_RCVTIMEO, so the connection can
    /// shrink each wait to what is left of a deadline. `seconds` nil waits without bound.
    ///
    /// `claim` runs before any byte is taken and `unclaim` when there was none to take and the
    /// wait begins (a capped server's idle mark: a connection is never idle while its thread
    /// holds bytes of a request it has not yet marked busy).
    static func receive(_ fd: Int32, into buffer: inout [UInt8], waitingAtMost seconds: TimeInterval?, claim: (() -> Void)? = nil, unclaim: (() -> Void)? = nil) -> ReceiveResult {
        // What is already there is taken without a wait: a busy keep-alive client's next
        // request has usually arrived, and the poll before it was a fifth of serve's CPU.
        claim?()
        let ready = buffer.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
        if ready > 0 { return .data(ready) }
        if ready == 0 { return .endOfStream }
        guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return .failed }
        unclaim?()
        guard waitUntilReadable(fd, seconds: seconds) else { return .timedOut }
        claim?()
        return receive(fd, into: &buffer)
    }

    /// Whether `fd` became readable (or hung up, or failed) within `seconds`; nil = no bound.
    private static func waitUntilReadable(_ fd: Int32, seconds: TimeInterval?) -> Bool {
        let milliseconds: Int32
        if let seconds {
            let clamped = min(max(seconds, 0), 86_400)
            milliseconds = Int32((clamped * 1000).rounded(.up))
        } else {
            milliseconds = -1
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            // EINTR restarts the full wait: a signal landing mid-wait only lengthens it a little.
            // Any other error is left for the following recv to report.
            if errno != EINTR { return true }
        }
    }
}
