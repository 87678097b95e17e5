import Foundation
import FlowCheckFakeServer
import FlowCheckSDK

/// How an SDK under test reaches a fake: the same test body can run either way (as
/// Hummingbird's `app.test(.router)` and `app.test(.live)` do).
///
/// ```swift
/// @Test(arguments: [FakeTransportMode.socketFree, .loopback])
/// func products(_ mode: FakeTransportMode) async throws {
///     let connection = try server.connect(mode)
///     defer { connection.close() }
///     let client = MoltinClient(configuration: try MoltinConfiguration(baseURL: connection.baseURL),
///                               transport: connection.transport, store: store, clock: clock)
/// }
/// ```
public enum FakeTransportMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// In process, through ``ResponderTransport``: no socket, no thread, nothing to time out.
    case socketFree
    /// Over real HTTP on 127.0.0.1, through the SDK's own `URLSessionTransport`.
    case loopback

    /// The mode's name, as test reports show it.
    public var description: String { rawValue }
}

/// A transport and base URL that reach one fake, socket-free or over loopback; what an SDK
/// under test is configured with.
///
/// Made by ``FlowCheckFakeServer/FakeProviderServer/connect(_:timeout:stallLimit:onStall:)`` for a
/// fake, or by ``serving(_:mode:timeout:)`` for any responder. `close()` (or releasing the
/// connection) invalidates the URL session and stops a server the connection started.
public final class FakeConnection: Sendable {
    /// How this connection reaches the fake.
    public let mode: FakeTransportMode
    /// What the SDK sends through.
    public let transport: any HTTPTransport
    /// The fake's base URL: `http://127.0.0.1:PORT` over loopback, `http://localhost` (never
    /// dialled) socket-free.
    public let baseURL: URL
    private let onClose: @Sendable () -> Void
    private let closed = Locked(false)

    /// The base URL of every socket-free connection: loopback, so the SDK allows plain http,
    /// and never dialled, since no socket is opened.
    public static let socketFreeBaseURL = URL(string: "http://localhost")!

    /// Creates a connection from its parts; `onClose` runs once, at `close()` or release.
    public init(mode: FakeTransportMode, transport: any HTTPTransport, baseURL: URL, onClose: @escaping @Sendable () -> Void = {}) {
        self.mode = mode
        self.transport = transport
        self.baseURL = baseURL
        self.onClose = onClose
    }

    deinit {
        close()
    }

    /// Invalidates the URL session and stops a server this connection started; idempotent.
    public func close() {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { onClose() }
    }

    /// Serves `responder` (a tiny closure for a raw wire answer, say) the way `mode` says:
    /// through ``ResponderTransport``, or behind its own `HTTPServer` on an ephemeral loopback
    /// port reached through `URLSessionTransport`.
    /// - Parameters:
    ///   - responder: What answers every request.
    ///   - mode: Socket-free or loopback.
    ///   - timeout: `URLSessionTransport`'s timeout over loopback, in seconds.
    /// - Throws: `HTTPServerError` when the loopback server cannot listen.
    ///
    /// ```swift
    /// let raw = ClosureResponder { _ in HTTPResponse(status: 200) }    // 200 with no body
    /// let connection = try FakeConnection.serving(raw, mode: .loopback)
    /// ```
    public static func serving(_ responder: any HTTPResponder, mode: FakeTransportMode, timeout: TimeInterval = HangBound.seconds) throws -> FakeConnection {
        switch mode {
        case .socketFree:
            return FakeConnection(mode: mode, transport: ResponderTransport(responder: responder), baseURL: socketFreeBaseURL)
        case .loopback:
            let server = HTTPServer(responder: responder)
            let port = try server.start()
            let transport = URLSessionTransport(timeout: timeout)
            return FakeConnection(mode: mode, transport: transport, baseURL: loopbackURL(port: port)) {
                transport.invalidate()
                server.stop()
            }
        }
    }

    static func loopbackURL(port: Int) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        return components.url ?? socketFreeBaseURL
    }
}

extension FakeProviderServer {
    /// A connection to this fake: its socket-free responder chain through
    /// ``ResponderTransport``, or its real loopback listener (started here when it is not yet
    /// listening, and stopped again by `close()`) through `URLSessionTransport`. Faults injected
    /// on the server reach the SDK either way, as it would see them over a socket.
    /// - Parameters:
    ///   - mode: Socket-free or loopback.
    ///   - timeout: `URLSessionTransport`'s timeout over loopback, in seconds.
    ///   - stallLimit: Socket-free, the longest real time a stalled request waits.
    ///   - onStall: Socket-free, told when a request starts stalling (over loopback the
    ///     server's own `stallObserver` is told).
    /// - Throws: `HTTPServerError` when the server cannot listen.
    ///
    /// ```swift
    /// let connection = try server.connect(.loopback)
    /// defer { connection.close() }
    /// server.inject(Fault(kind: .connectionReset, path: FakeMoltin.productsPath, times: 1))
    /// ```
    public func connect(
        _ mode: FakeTransportMode,
        timeout: TimeInterval = HangBound.seconds,
        stallLimit: Duration = HangBound.standard,
        onStall: (@Sendable (TransportRequest) -> Void)? = nil
    ) throws -> FakeConnection {
        switch mode {
        case .socketFree:
            return FakeConnection(
                mode: mode,
                transport: ResponderTransport(server: self, stallLimit: stallLimit, onStall: onStall),
                baseURL: FakeConnection.socketFreeBaseURL
            )
        case .loopback:
            let startedHere = port == 0
            if startedHere {
                try start()
            }
            let transport = URLSessionTransport(timeout: timeout)
            return FakeConnection(mode: mode, transport: transport, baseURL: baseURL) { [self] in
                transport.invalidate()
                if startedHere { stop() }
            }
        }
    }
}
