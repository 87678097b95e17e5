import Foundation

/// The answer to a connection the server will not serve: over its connection cap
/// (``HTTPServerLimits/maxConnections``) or unable to start its thread.
enum ConnectionShedding {
    /// How long a shed client is asked to wait before trying again.
    static let retryAfterSeconds = 1

    static let response: [UInt8] = {
        var response = HTTPResponse.text(503, "The server is at its connection limit; retry shortly.\n")
        response.headers.set("Retry-After", String(retryAfterSeconds))
        return HTTPConnection.serialize(response, keepAlive: false, omitBody: false)
    }()

    /// Writes the 503 (bounded by a one-second send timeout, on a socket whose send buffer is
    /// empty) and half-closes; the caller closes the descriptor.
    static func answer(_ fd: Int32) {
        Socket.setTimeouts(fd, seconds: 1)
        _ = Socket.sendAll(fd, response)
        Socket.shutdownWrite(fd)
    }
}
