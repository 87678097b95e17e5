import Foundation

/// One fake world for one flow: a provider behind a real loopback server, a recorder and
/// injectable faults. Create a fresh one per flow so no state leaks between flows.
///
/// Control methods (`start`, `inject`, `clearFaults`, `stop`) are serialised with each other;
/// they are meant to be called by the harness, not from inside a request.
public final class FakeProviderServer: Sendable {
    /// The persona answering requests.
    public let provider: any FakeProvider
    private let chain: ProviderResponder
    /// The primary origin's listener.
    private let server: HTTPServer
    /// Every origin's listener, primary first (one for most providers).
    private let servers: [(origin: String, server: HTTPServer)]
    private struct Control {
        var unreachable = false
        var listenerError: HTTPServerError?
    }
    private let control = Locked(Control())

    /// On Linux every fake provider of the process is served by one shared event loop thread
    /// (``HTTPServer/Core/sharedEvents``), which also calls the observers below: they must
    /// return promptly (hand slow work, or anything that may wait, to a thread of your own), or
    /// every fake waits with them.
    ///
    /// - Parameters:
    ///   - limits: the listeners' bounds (``HTTPServerLimits``).
    ///   - recording: how much traffic is kept in ``exchanges`` (all of it by default).
    ///   - observer: told of every exchange after it is recorded, on the thread serving the connection (the event loop's on Linux)
    ///     (e.g. to log it). Requests the parser refuses (400, 408, 413, 431, 501, 505) are
    ///     recorded too, with what could be read of them ("?" where nothing could).
    ///   - stallObserver: told, on the thread serving the connection (the event loop's on Linux), once a request starts stalling
    ///     under ``FaultKind/stall`` (after it is recorded), so a harness can move its virtual
    ///     clock past the client's timeout. Not called for socket-free `responder` calls,
    ///     which never stall.
    ///   - stallStarted: told with the same timing, with a ``StallHandle`` that says whether
    ///     the client is still waiting and can end the stall.
    ///   - holdObserver: told, on the thread serving the connection (the event loop's on Linux), once a ``FaultKind/hold`` starts
    ///     holding a request (before anything is recorded for it), with the request's hold
    ///     number (0 for the first, then 1, ...: ``releaseHold(number:)``).
    ///   - holdEndObserver: told, with its number, once the connection is done with a held
    ///     request (answered and recorded after a release, or ended by the peer or `stop()`).
    public init(
        provider: any FakeProvider,
        now: @escaping @Sendable () -> Date,
        limits: HTTPServerLimits = .init(),
        recording: RecordingBounds = .unbounded,
        observer: (@Sendable (RecordedExchange) -> Void)? = nil,
        stallObserver: (@Sendable (HTTPRequest) -> Void)? = nil,
        stallStarted: (@Sendable (StallHandle) -> Void)? = nil,
        holdObserver: (@Sendable (HTTPRequest, Int) -> Void)? = nil,
        holdEndObserver: (@Sendable (Int) -> Void)? = nil
    ) {
        self.provider = provider
        let chain = ProviderResponder(provider: provider, now: now, recording: recording, observer: observer, stallObserver: stallObserver, stallStarted: stallStarted, holdObserver: holdObserver, holdEndObserver: holdEndObserver)
        self.chain = chain
        self.servers = type(of: provider).origins.map { origin in
            (origin, HTTPServer(responder: OriginResponder(origin: origin, chain: chain), limits: limits, core: .sharedEvents))
        }
        self.server = servers[0].server
    }

    /// Safety net for a harness that forgets `stop()`: the server's threads keep the
    /// `HTTPServer` alive, but nothing keeps this wrapper alive.
    deinit {
        for origin in servers { origin.server.stop() }
    }

    /// Starts listening on an ephemeral loopback port per origin (refusing at once if
    /// `.unreachable` was injected before starting).
    /// - Parameter port: a fixed port for a standalone server's primary origin (any other
    ///   origin then takes the ports after it); 0 (the default) for ephemeral ones.
    /// - Parameter address: where every origin binds (loopback unless `flowcheck serve --host`).
    public func start(port: Int = 0, address: BindAddress = .loopback) throws(HTTPServerError) {
        try control.withLock { (control: inout Control) throws(HTTPServerError) in
            for (offset, origin) in servers.enumerated() {
                try origin.server.start(port: port == 0 ? 0 : port + offset, address: address)
                if control.unreachable { origin.server.refuseConnections() }
            }
        }
    }

    /// The primary origin's `http://127.0.0.1:PORT` (port 0 before `start()`).
    public var baseURL: URL {
        Self.loopbackURL(port: server.port)
    }

    /// Every origin's base URL by name (``FakeProvider/origins``); one entry, the primary
    /// origin's, for most providers.
    public var baseURLs: [String: URL] {
        Dictionary(uniqueKeysWithValues: servers.map { ($0.origin, Self.loopbackURL(port: $0.server.port)) })
    }

    /// The origin names, primary first.
    public var origins: [String] { servers.map(\.origin) }

    private static func loopbackURL(port: Int) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        // Scheme, IPv4 host and numeric port always form a valid URL.
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// The bound port, or 0 before `start()`.
    public var port: Int { server.port }

    /// Every exchange received so far, in order, including requests the server refused as
    /// malformed, too large or too slow (see ``RecordedExchange/request``).
    public var exchanges: [RecordedExchange] { chain.exchanges }

    /// HTTP-level faults still armed (not including `.unreachable`; see `isUnreachable`).
    public var activeFaults: [Fault] { chain.faults }

    /// Whether `.unreachable` is in force.
    public var isUnreachable: Bool { control.withLock { $0.unreachable } }

    /// Set when `clearFaults()` could not reopen the listener (the port was taken meanwhile);
    /// the server then stays unreachable. Cleared by the next successful reopen.
    public var listenerError: HTTPServerError? { control.withLock { $0.listenerError } }

    /// Arms `fault`. `.unreachable` takes effect immediately and lasts until `clearFaults()`.
    public func inject(_ fault: Fault) {
        guard fault.kind == .unreachable else {
            chain.inject(fault)
            return
        }
        control.withLock { control in
            control.unreachable = true
            for origin in servers { origin.server.refuseConnections() }
        }
    }

    /// Answers the held request with hold number `number` now (as `clearFaults()` answers them
    /// all) and leaves the others held; false when no request has that number. Faults stay
    /// armed.
    @discardableResult
    public func releaseHold(number: Int) -> Bool {
        chain.releaseHold(number)
    }

    /// Whether a ``FaultKind/hold`` fault is armed with requests left to hold.
    public var holdArmed: Bool { chain.holdArmed }

    /// Disarms every fault, closes connections held by a stall and, if unreachable, listens
    /// again on the same port.
    public func clearFaults() {
        chain.clearFaults()
        control.withLock { control in
            guard control.unreachable else { return }
            control.unreachable = false
            do throws(HTTPServerError) {
                for origin in servers { try origin.server.acceptConnections() }
                control.listenerError = nil
            } catch {
                control.listenerError = error
            }
        }
    }

    /// Closes the listener and every connection; idempotent.
    public func stop() {
        control.withLock { _ in
            for origin in servers { origin.server.stop() }
        }
    }

    /// Moves with every connection accepted, read and answer on any of its origins: a flow's
    /// watchdog reads it as progress (see ``ActivityMeter``).
    public var activity: Int { servers.reduce(0) { $0 &+ $1.server.activity.value } }

    /// Every credential the provider has issued so far (for redaction in reports).
    public var issuedSecrets: [String] { provider.issuedSecrets }

    /// The recording + fault + provider chain, callable without sockets. Transport faults
    /// (`connectionReset`, `stall`) give their planned response here and hold nothing. It
    /// serves every origin's paths, each recorded under the origin that serves it.
    public var responder: any HTTPResponder { chain }
}
