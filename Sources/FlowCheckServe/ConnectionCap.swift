import Foundation
import FlowCheckRunner

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
        DescriptorLimit.raised()
    }
}
