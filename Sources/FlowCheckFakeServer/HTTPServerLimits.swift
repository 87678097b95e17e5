import Foundation

/// Bounds on what one connection may send, so hostile or broken clients get an answer
/// (400/408/413/431) instead of exhausting memory or pinning a thread forever.
public struct HTTPServerLimits: Sendable, Equatable {
    /// Largest request head (request line, header fields and the blank line), in bytes.
    public var maxHeaderBytes: Int
    /// Largest accepted `Content-Length`.
    public var maxBodyBytes: Int
    /// Seconds a connection may stay silent (SO_RCVTIMEO / SO_SNDTIMEO) before it is closed.
    public var readTimeout: TimeInterval

    public init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1024 * 1024, readTimeout: TimeInterval = 10) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.readTimeout = readTimeout
    }
}
