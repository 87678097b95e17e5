import Foundation

/// A real HTTP/1.1 listener on 127.0.0.1, so SDKs are exercised through their genuine
/// networking stack rather than a mocked URL loader.
///
/// On Linux it is served by ``EventServerCore``: an epoll loop thread of the server's own
/// accepts, reads, parses, answers and writes for all its connections, so idle or slow
/// connections cost a descriptor and some bytes, never a thread. Elsewhere (no kqueue core
/// yet) by ``ThreadedServerCore``, a thread per connection. Both keep the same bounds
/// (``HTTPServerLimits``), the same parser and the same deliberate misbehaviour.
///
/// A responder runs on the loop thread: while it runs, this server answers nobody else (other
/// servers are not held up, except those sharing the fakes' loop, ``Core/sharedEvents``). It
/// must not wait for another request to the same server.
///
/// Call `stop()` when done; dropping the last reference stops it too.
public final class HTTPServer: Sendable {
    private let core: any ServerCore

    /// Which core serves the connections (tests run both where both exist).
    package enum Core: Sendable, CaseIterable {
        /// An epoll loop of the server's own (Linux).
        case events
        /// The epoll loop every fake provider of the process shares (Linux): no loop to start
        /// and end per flow. Its responders must never wait.
        case sharedEvents
        /// A thread per connection.
        case threads

        /// The platform's default: an event loop of the server's own where there is one.
        package static var platformDefault: Core {
            #if os(Linux)
            .events
            #else
            .threads
            #endif
        }

        /// The cores this platform has.
        package static var available: [Core] {
            #if os(Linux)
            [.events, .sharedEvents, .threads]
            #else
            [.threads]
            #endif
        }
    }

    public convenience init(responder: any HTTPResponder, limits: HTTPServerLimits = .init()) {
        self.init(responder: responder, limits: limits, core: .platformDefault)
    }

    /// - Parameter core: `.events` falls back to threads where the platform has no loop.
    package init(responder: any HTTPResponder, limits: HTTPServerLimits = .init(), core: Core) {
        switch core {
        case .events, .sharedEvents:
            #if os(Linux)
            self.core = EventServerCore(responder: responder, limits: limits, sharedLoop: core == .sharedEvents ? EventLoop.shared : nil)
            #else
            self.core = ThreadedServerCore(responder: responder, limits: limits, startThread: ConnectionThread.start)
            #endif
        case .threads:
            self.core = ThreadedServerCore(responder: responder, limits: limits, startThread: ConnectionThread.start)
        }
    }

    /// A thread-per-connection server whose connection threads are started by `startThread`
    /// (tests make it fail).
    init(responder: any HTTPResponder, limits: HTTPServerLimits, startThread: @escaping @Sendable (@escaping @Sendable () -> Void) -> Bool) {
        core = ThreadedServerCore(responder: responder, limits: limits, startThread: startThread)
    }

    deinit {
        core.stop()
    }

    /// Moves with every accepted connection, read and answer: see ``ActivityMeter``.
    public var activity: ActivityMeter { core.activity }

    /// How many connections are registered (being served) now.
    var openConnections: Int { core.openConnections }

    /// The bound port, or 0 before `start()`. Stays the same across refuse/accept cycles.
    public var port: Int { core.port }

    /// Binds `address` (127.0.0.1 unless told) on `port` (0, the default: an ephemeral one),
    /// starts accepting and returns the bound port.
    @discardableResult
    public func start(port: Int = 0, address: BindAddress = .loopback) throws(HTTPServerError) -> Int {
        Socket.ignoreSIGPIPE()
        return try core.start(port: port, address: address)
    }

    /// Simulates an unreachable server: closes the listener and every open connection, so
    /// new connects fail with ECONNREFUSED and kept-alive sockets see their peer vanish.
    /// Returns once the listener is closed. No effect unless currently listening.
    public func refuseConnections() { core.refuseConnections() }

    /// Listens again on the same port after `refuseConnections()`; no effect if listening.
    public func acceptConnections() throws(HTTPServerError) { try core.acceptConnections() }

    /// Closes the listener and every connection and waits (10 s at most) until they are closed.
    /// Idempotent; may be called from inside a responder.
    public func stop() { core.stop() }

    /// Returns once the server has done everything it was handed so far (the event core's loop
    /// has run it, or has ended); at once on the threaded core. A barrier for tests.
    package func settle() {
        #if os(Linux)
        (core as? EventServerCore)?.settle()
        #endif
    }
}

/// What serves an ``HTTPServer``'s connections.
protocol ServerCore: Sendable {
    var activity: ActivityMeter { get }
    var openConnections: Int { get }
    var port: Int { get }
    func start(port: Int, address: BindAddress) throws(HTTPServerError) -> Int
    func refuseConnections()
    func acceptConnections() throws(HTTPServerError)
    func stop()
}
