#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the loopback server could not open or reopen its listener.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case socketCreationFailed(errno: Int32)
    case bindFailed(port: Int, errno: Int32)
    case listenFailed(errno: Int32)
    /// `start()` was called on a server that is already running or was stopped.
    case alreadyStarted
    /// `acceptConnections()` was called before `start()` or after `stop()`.
    case notRunning

    public var description: String {
        switch self {
        case .socketCreationFailed(let code): "socket() failed: \(Self.message(code))"
        case .bindFailed(let port, let code): "bind(127.0.0.1:\(port)) failed: \(Self.message(code))"
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
