import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many connections each of serve's listeners takes at once, from the descriptors the
/// process may open: every port shares them (the control port included), and some are kept for
/// everything else (the log, the store, a driver's pipes). On Linux a connection costs a
/// descriptor and its buffers (the event loop serves them all); where a thread serves each
/// connection, the bound on the cap also bounds the threads.
public enum ConnectionCap {
    /// Descriptors kept for what is not a connection.
    static let reserve = 64
    /// The most connections one listener takes, whatever the descriptor limit.
    static let most = 1024
    /// The least, on a machine whose limit leaves less (a client at the cap still gets in by
    /// closing an idle connection: ``HTTPServerLimits/maxConnections``).
    static let least = 8

    /// Raises the soft descriptor limit toward the hard one first (at most 65,536; macOS
    /// refuses more than its per-process maximum, and then the limit stays as it was).
    /// - Parameter ports: every listener the process opens.
    public static func perPort(ports: Int) -> Int {
        let limit = raisedDescriptorLimit()
        return perPort(ports: ports, descriptors: limit)
    }

    /// The share of `descriptors` one of `ports` listeners gets.
    static func perPort(ports: Int, descriptors: Int) -> Int {
        min(most, max(least, (descriptors - reserve) / max(1, ports)))
    }

    /// The soft `RLIMIT_NOFILE` after trying to raise it.
    public static func raisedDescriptorLimit() -> Int {
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return 256 }
        let wanted = min(limits.rlim_max, 65_536)
        if limits.rlim_cur < wanted {
            var raised = limits
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return Int(min(limits.rlim_cur, rlim_t(Int32.max)))
    }
}
