#if os(Linux)
import Foundation
import Glibc
import CFlowCheckEpoll

/// The event-driven core of an ``HTTPServer`` (Linux): its listener and connections are
/// handlers of the shared ``EventLoop``, so a connection costs a descriptor and its buffers,
/// never a thread, whatever it does (idle, slow head, slow body, slow reader, stalled).
///
/// The public calls may come from any thread: they hand their work to the loop and, where the
/// caller must see it done (refuse, stop), wait for it (10 s at most, as the threaded core).
/// Called on the loop's thread, from inside a responder, they act at once.
final class EventServerCore: ServerCore, @unchecked Sendable {
    private enum Phase {
        case idle, listening, refusing, stopped
    }

    private struct Shared {
        var phase: Phase = .idle
        var port = 0
        var address = BindAddress.loopback
        /// While refusing: a bound, non-listening socket on the port (see ``ThreadedServerCore``).
        var placeholder: Int32 = -1
        var connectionCount = 0
    }

    let responder: any HTTPResponder
    let limits: HTTPServerLimits
    let loop: EventLoop
    let activity = ActivityMeter()
    private let shared = Locked(Shared())

    // Loop thread only:
    private var listener: EventListener?
    private var connections: [Int32: EventConnection] = [:]

    init(responder: any HTTPResponder, limits: HTTPServerLimits, loop: EventLoop) {
        self.responder = responder
        self.limits = limits
        self.loop = loop
    }

    var port: Int { shared.withLock { $0.port } }
    var openConnections: Int { shared.withLock { $0.connectionCount } }

    func start(port: Int, address: BindAddress) throws(HTTPServerError) -> Int {
        try shared.withLock { (shared: inout Shared) throws(HTTPServerError) -> Int in
            guard shared.phase == .idle else { throw .alreadyStarted }
            let fd = try Socket.openListener(port: port, address: address)
            shared.address = address
            shared.port = Socket.localPort(fd)
            shared.phase = .listening
            listen(on: fd)
            return shared.port
        }
    }

    func refuseConnections() {
        let wasListening = shared.withLock { shared in
            guard shared.phase == .listening else { return false }
            shared.phase = .refusing
            return true
        }
        guard wasListening else { return }
        loop.executeAndWait(within: Self.stopDeadlineSeconds) { [self] in
            closeEverything(abortive: false)
        }
        shared.withLock { shared in
            guard shared.phase == .refusing, shared.placeholder < 0 else { return }
            shared.placeholder = (try? Socket.openPlaceholder(port: shared.port, address: shared.address)) ?? -1
        }
    }

    func acceptConnections() throws(HTTPServerError) {
        try shared.withLock { (shared: inout Shared) throws(HTTPServerError) in
            switch shared.phase {
            case .listening: return
            case .idle, .stopped: throw .notRunning
            case .refusing:
                if shared.placeholder >= 0 {
                    close(shared.placeholder)
                    shared.placeholder = -1
                }
                let fd = try Socket.openListener(port: shared.port, address: shared.address)
                shared.phase = .listening
                listen(on: fd)
            }
        }
    }

    func stop() {
        let wasStopped = shared.withLock { shared in
            defer { shared.phase = .stopped }
            if shared.placeholder >= 0 {
                close(shared.placeholder)
                shared.placeholder = -1
            }
            return shared.phase == .stopped
        }
        guard !wasStopped else { return }
        // Reset, not a polite close: see ThreadedServerCore.stop (TIME_WAIT per connection).
        loop.executeAndWait(within: Self.stopDeadlineSeconds) { [self] in
            closeEverything(abortive: true)
        }
    }

    static let stopDeadlineSeconds = 10

    /// Hands the listening `fd` to the loop (which closes it if the server stopped meanwhile).
    private func listen(on fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        loop.execute { [self] in
            let phase = shared.withLock { $0.phase }
            guard phase == .listening, listener == nil else {
                close(fd)
                return
            }
            let handler = EventListener(fd: fd, core: self)
            listener = handler
            loop.register(fd, handler, events: EPOLLIN.rawValue)
        }
    }

    // MARK: - On the loop's thread

    private func closeEverything(abortive: Bool) {
        if let listener {
            loop.deregister(listener.fd)
            close(listener.fd)
            self.listener = nil
        }
        for connection in Array(connections.values) {
            if abortive { Socket.setAbortiveClose(connection.fd) }
            connection.close()
        }
    }

    /// A new connection from the listener: served, or at the cap served after the
    /// longest-idle connection is closed, or answered 503 and closed when none is idle.
    func admit(_ fd: Int32) {
        if limits.maxConnections > 0, connections.count >= limits.maxConnections, !evictLongestIdle() {
            ConnectionShedding.answer(fd)
            close(fd)
            return
        }
        Socket.setNoDelay(fd)
        activity.tick()
        let connection = EventConnection(fd: fd, core: self)
        connections[fd] = connection
        shared.withLock { $0.connectionCount = connections.count }
        connection.begin()
    }

    func connectionClosed(_ connection: EventConnection) {
        guard connections[connection.fd] === connection else { return }
        connections.removeValue(forKey: connection.fd)
        shared.withLock { $0.connectionCount = connections.count }
    }

    private func evictLongestIdle() -> Bool {
        var best: EventConnection?
        for connection in connections.values {
            guard let since = connection.idleSince, Socket.pendingBytes(connection.fd) == 0 else { continue }
            if let current = best?.idleSince, current <= since { continue }
            best = connection
        }
        guard let best else { return false }
        best.close()
        return true
    }
}

/// The listening socket's handler: accepts everything waiting, in one go.
final class EventListener: EventHandler {
    let fd: Int32
    let core: EventServerCore
    /// While out of descriptors: when to listen again.
    private(set) var deadline: ContinuousClock.Instant?

    init(fd: Int32, core: EventServerCore) {
        self.fd = fd
        self.core = core
    }

    func handle(events: UInt32) {
        for _ in 0..<64 {
            let client = accept4(fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if client >= 0 {
                core.admit(client)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: stop listening for a moment instead of
                // spinning on the error.
                core.loop.watch(fd, events: 0)
                deadline = .now + .milliseconds(10)
                core.loop.noteDeadline(deadline)
                return
            default:
                return
            }
        }
    }

    func expire() {
        deadline = nil
        core.loop.watch(fd, events: EPOLLIN.rawValue)
    }
}
#endif
