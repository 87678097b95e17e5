#if os(Linux)
import Foundation
import Glibc
import CFlowCheckEpoll

/// The event-driven core of an ``HTTPServer`` (Linux): its listener and connections are
/// handlers of an ``EventLoop`` of its own (or the fakes' shared one), so a connection costs a descriptor and its
/// buffers, never a thread, whatever it does (idle, slow head, slow body, slow reader,
/// stalled), and a responder that takes long holds up this server alone.
///
/// The public calls may come from any thread. `stop()` and `refuseConnections()` shut the
/// listener and every connection down at once from the caller's thread (as the threaded core
/// does), then hand the closing to the loop and wait for it (10 s at most, when a responder
/// holds the loop up). Called on the loop's thread, from inside a responder, they act at once.
/// A descriptor is closed only on the loop's thread, under the lock that other threads take to
/// shut it down, so no thread ever shuts down a reused descriptor number.
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
        /// The loop, from `start()` on.
        var loop: EventLoop?
        /// The listening descriptor, while the loop has it open.
        var listener: Int32 = -1
        /// Every open connection's descriptor.
        var connections: Set<Int32> = []
    }

    let responder: any HTTPResponder
    let limits: HTTPServerLimits
    let activity = ActivityMeter()
    private let shared = Locked(Shared())

    // Loop thread only:
    private var listenerHandler: EventListener?
    private var connections: [Int32: EventConnection] = [:]

    /// The loop to use instead of one of its own (never shut down by this server).
    private let sharedLoop: EventLoop?

    /// - Parameter sharedLoop: a loop other servers use too; nil: one of its own, from
    ///   `start()` to `stop()`.
    init(responder: any HTTPResponder, limits: HTTPServerLimits, sharedLoop: EventLoop? = nil) {
        self.responder = responder
        self.limits = limits
        self.sharedLoop = sharedLoop
    }

    var port: Int { shared.withLock { $0.port } }
    var openConnections: Int { shared.withLock { $0.connections.count } }

    func start(port: Int, address: BindAddress) throws(HTTPServerError) -> Int {
        try shared.withLock { (shared: inout Shared) throws(HTTPServerError) -> Int in
            guard shared.phase == .idle else { throw .alreadyStarted }
            let fd = try Socket.openListener(port: port, address: address)
            let loop: EventLoop
            if let sharedLoop {
                loop = sharedLoop
            } else {
                do throws(HTTPServerError) {
                    loop = try EventLoop()
                } catch {
                    close(fd)
                    throw error
                }
            }
            shared.loop = loop
            shared.address = address
            shared.port = Socket.localPort(fd)
            shared.phase = .listening
            listen(on: fd, loop: loop, shared: &shared)
            return shared.port
        }
    }

    func refuseConnections() {
        let loop: EventLoop? = shared.withLock { shared in
            guard shared.phase == .listening else { return nil }
            shared.phase = .refusing
            Self.shutDownEverything(&shared, abortive: false)
            return shared.loop
        }
        guard let loop else { return }
        let closed = loop.executeAndWait(within: Self.stopDeadlineSeconds) { [self] in
            closeEverything(on: loop, abortive: false)
        }
        // The port is held by a placeholder only once the listener is closed (a responder may
        // hold the loop up past the wait; the listener is shut down meanwhile, refusing too).
        guard closed else { return }
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
                guard let loop = shared.loop else { throw .notRunning }
                if shared.placeholder >= 0 {
                    close(shared.placeholder)
                    shared.placeholder = -1
                }
                let fd = try Socket.openListener(port: shared.port, address: shared.address)
                shared.phase = .listening
                listen(on: fd, loop: loop, shared: &shared)
            }
        }
    }

    func stop() {
        let loop: EventLoop? = shared.withLock { shared in
            guard shared.phase != .stopped else { return nil }
            shared.phase = .stopped
            if shared.placeholder >= 0 {
                close(shared.placeholder)
                shared.placeholder = -1
            }
            // Reset, not a polite close: see ThreadedServerCore.stop (TIME_WAIT per connection).
            Self.shutDownEverything(&shared, abortive: true)
            return shared.loop
        }
        guard let loop else { return }
        loop.executeAndWait(within: Self.stopDeadlineSeconds) { [self] in
            closeEverything(on: loop, abortive: true)
        }
        if sharedLoop == nil { loop.shutdown() }
    }

    /// Waits until the loop has run what was handed to it (tests: a barrier).
    func settle() {
        _ = shared.withLock { $0.loop }?.settle(within: Self.stopDeadlineSeconds)
    }

    static let stopDeadlineSeconds = 10

    /// From any thread, under the lock: the listener stops taking connections and every
    /// connection's peer sees its end now, even while a responder holds the loop up. The loop
    /// closes the descriptors.
    private static func shutDownEverything(_ shared: inout Shared, abortive: Bool) {
        if shared.listener >= 0 { Socket.shutdownBoth(shared.listener) }
        for fd in shared.connections {
            if abortive { Socket.setAbortiveClose(fd) }
            Socket.shutdownBoth(fd)
        }
    }

    /// Hands the listening `fd` to the loop (which closes it if the server is no longer
    /// listening by then); caller holds the lock.
    private func listen(on fd: Int32, loop: EventLoop, shared: inout Shared) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        shared.listener = fd
        loop.execute { [self] in
            let listening = self.shared.withLock { shared in
                guard shared.phase == .listening, shared.listener == fd else {
                    if shared.listener == fd { shared.listener = -1 }
                    close(fd)
                    return false
                }
                return true
            }
            guard listening else { return }
            let handler = EventListener(fd: fd, core: self, loop: loop)
            listenerHandler = handler
            loop.register(fd, handler, events: EPOLLIN.rawValue)
        }
    }

    // MARK: - On the loop's thread

    /// Closes the listener the loop holds (never a newer one that `acceptConnections()` has
    /// opened meanwhile: its own queued `listen(on:)` decides for it) and every connection.
    private func closeEverything(on loop: EventLoop, abortive: Bool) {
        if let handler = listenerHandler {
            loop.deregister(handler.fd)
            listenerHandler = nil
            shared.withLock { shared in
                if shared.listener == handler.fd { shared.listener = -1 }
                close(handler.fd)
            }
        }
        for connection in Array(connections.values) {
            if abortive { Socket.setAbortiveClose(connection.fd) }
            connection.close()
        }
    }

    /// A new connection from the listener: served, or at the cap served after the
    /// longest-idle connection is closed, or answered 503 and closed when none is idle.
    /// Closed at once if the server stopped or began refusing since it was accepted.
    func admit(_ fd: Int32, loop: EventLoop) {
        let listening = shared.withLock { shared in
            guard shared.phase == .listening else { return false }
            shared.connections.insert(fd)
            return true
        }
        guard listening else {
            Socket.setAbortiveClose(fd)
            close(fd)
            return
        }
        if limits.maxConnections > 0, connections.count >= limits.maxConnections, !evictLongestIdle() {
            ConnectionShedding.answer(fd)
            closeDescriptor(fd)
            return
        }
        Socket.setNoDelay(fd)
        activity.tick()
        let connection = EventConnection(fd: fd, core: self, loop: loop)
        connections[fd] = connection
        connection.begin()
    }

    /// Closes a connection's descriptor under the lock that other threads take to shut
    /// connections down, so none of them reaches the number once it is reused.
    func closeDescriptor(_ fd: Int32) {
        shared.withLock { shared in
            shared.connections.remove(fd)
            close(fd)
        }
    }

    func connectionClosed(_ connection: EventConnection) {
        guard connections[connection.fd] === connection else { return }
        connections.removeValue(forKey: connection.fd)
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
    let loop: EventLoop
    /// While out of descriptors: when to listen again.
    private(set) var deadline: ContinuousClock.Instant?

    init(fd: Int32, core: EventServerCore, loop: EventLoop) {
        self.fd = fd
        self.core = core
        self.loop = loop
    }

    func handle(events: UInt32) {
        for _ in 0..<64 {
            let client = accept4(fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if client >= 0 {
                core.admit(client, loop: loop)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: stop listening for a moment instead of
                // spinning on the error.
                loop.watch(fd, events: 0)
                deadline = .now + .milliseconds(10)
                loop.noteDeadline(deadline)
                return
            default:
                return
            }
        }
    }

    func expire() {
        deadline = nil
        loop.watch(fd, events: EPOLLIN.rawValue)
    }
}
#endif
