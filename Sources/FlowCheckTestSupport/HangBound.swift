/// The real-time bound every test helper waits at most by default: long enough that only a
/// hang reaches it, so it detects hangs and never measures speed.
///
/// A passing run never comes near it. The slowest honest wait a helper makes is a loopback
/// answer, a `flowcheck serve` ready line or a URLSession round trip through
/// FoundationNetworking's one internal queue while hundreds of flows run beside it, on a
/// two-core machine that also runs sixteen busy loops: about 30 s at the very worst. This
/// bound is ten times that.
///
/// A test that checks that a bound fires (or that something does *not* happen for a while)
/// passes a short bound of its own, explicitly, as an argument.
///
/// ```swift
/// try await clock.waitForSleepers(count: 1)                      // bounded by HangBound.standard
/// try await boundedWait("the answer", within: HangBound.standard) { resume in ... }
/// let transport = URLSessionTransport(timeout: HangBound.seconds)
/// ```
///
/// A suite's own `.timeLimit` may be shorter: then a hang ends the test there, by its time
/// limit, and the bound here only keeps a helper's thread or socket from outliving it.
public enum HangBound {
    /// 300 s: ten times the slowest honest wait a test helper makes on a loaded machine.
    public static let standard: Duration = .seconds(300)

    /// ``standard`` in seconds, for APIs that take a `TimeInterval` (URLSession timeouts).
    public static var seconds: Double {
        Double(standard.components.seconds)
    }
}
