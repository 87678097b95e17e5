#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the loopback server could not open or reopen its listener.
///
/// A struct over a private enum (model: async-http-client's `HTTPClientError`), so a new
/// reason breaks no caller's `switch`.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case socketCreationFailed(errno: Int32)
        case bindFailed(address: String, port: Int, errno: Int32)
        case listenFailed(errno: Int32)
        case alreadyStarted
        case notRunning
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    /// `socket()` failed.
    public static func socketCreationFailed(errno: Int32) -> HTTPServerError { HTTPServerError(.socketCreationFailed(errno: errno)) }
    /// `bind()` on `address` (127.0.0.1 unless told) and `port` failed (most often: the port is
    /// taken, or the address is not this machine's).
    public static func bindFailed(address: String = "127.0.0.1", port: Int, errno: Int32) -> HTTPServerError { HTTPServerError(.bindFailed(address: address, port: port, errno: errno)) }
    /// `listen()` failed.
    public static func listenFailed(errno: Int32) -> HTTPServerError { HTTPServerError(.listenFailed(errno: errno)) }
    /// `start()` was called on a server that is already running or was stopped.
    public static let alreadyStarted = HTTPServerError(.alreadyStarted)
    /// `acceptConnections()` was called before `start()` or after `stop()`.
    public static let notRunning = HTTPServerError(.notRunning)

    public var description: String {
        switch reason {
        case .socketCreationFailed(let code): "socket() failed: \(Self.message(code))"
        case .bindFailed(let address, let port, let code): "bind(\(address):\(port)) failed: \(Self.message(code))"
        case .listenFailed(let code): "listen() failed: \(Self.message(code))"
        case .alreadyStarted: "the server was already started"
        case .notRunning: "the server is not running"
        }
    }

    private static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }
}
