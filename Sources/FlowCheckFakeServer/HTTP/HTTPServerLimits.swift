import Foundation

/// Bounds on what one connection may send, so hostile or broken clients get an answer
/// (400/408/413/431) instead of exhausting memory or pinning a thread forever.
///
/// The timeouts are real time, not a flow's virtual clock: they guard the server's threads,
/// not provider behaviour. A timeout of 0 or less disables that bound.
public struct HTTPServerLimits: Sendable, Equatable {
    /// Largest request head (request line, header fields and the blank line), in bytes.
    public var maxHeaderBytes: Int
    /// Largest accepted `Content-Length`.
    public var maxBodyBytes: Int
    /// Seconds a connection may stay silent in the middle of a request (408 and close), and
    /// the bound on each send (SO_SNDTIMEO).
    public var readTimeout: TimeInterval
    /// Seconds from the first byte of a request until its head must be complete, else 408
    /// and close. `readTimeout` bounds each silence, so a client sending one byte a second
    /// never trips it; this deadline bounds the whole head.
    ///
    /// Decision: the clock starts at the request's first byte, not at accept or at the
    /// previous response; waiting for that byte is `idleTimeout`'s job. The body is bounded
    /// per read by `readTimeout` only, as a client may legitimately pace an upload.
    public var requestHeaderTimeout: TimeInterval
    /// Seconds a connection, fresh or kept alive, may wait for the first byte of its next
    /// request before it is closed without a response.
    public var idleTimeout: TimeInterval
    /// Seconds from a request's complete head until its whole body has arrived, else 408 and
    /// close: `readTimeout` bounds each silence, so a body trickled a byte at a time would
    /// otherwise hold the connection for as long as it lasts.
    public var requestBodyTimeout: TimeInterval
    /// Seconds a whole response may take to be written; past it the connection is dropped (a
    /// client that reads a byte at a time, or not at all).
    public var responseTimeout: TimeInterval
    /// Most connections served at once on one listener. A connection beyond it closes the
    /// connection that has waited longest for its next request, if one is idle, and is served;
    /// with none idle it is answered 503 with `Retry-After` and closed. 0 or less: no cap.
    public var maxConnections: Int
    /// Seconds, at most, that closing after an answer waits for the client's own close while
    /// it reads and discards what the client still sends (so unread input does not turn the
    /// close into a reset that destroys the answer); also bounded by `readTimeout`.
    public var drainTimeout: TimeInterval

    public init(
        maxHeaderBytes: Int = 16 * 1024,
        maxBodyBytes: Int = 1024 * 1024,
        readTimeout: TimeInterval = 10,
        requestHeaderTimeout: TimeInterval = 10,
        idleTimeout: TimeInterval = 30,
        requestBodyTimeout: TimeInterval = 30,
        responseTimeout: TimeInterval = 30,
        maxConnections: Int = 0,
        drainTimeout: TimeInterval = 2
    ) {
        self.drainTimeout = drainTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.responseTimeout = responseTimeout
        self.maxConnections = maxConnections
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.readTimeout = readTimeout
        self.requestHeaderTimeout = requestHeaderTimeout
        self.idleTimeout = idleTimeout
    }
}
