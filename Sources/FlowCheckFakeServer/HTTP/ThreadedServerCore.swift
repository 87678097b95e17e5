import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread-per-connection core: one accept thread plus one thread per connection, all with
/// blocking sockets. Every wait is bounded by ``HTTPServerLimits`` except a deliberate stall.
/// Descriptors are only ever closed by the thread that owns them; other threads merely
/// `shutdown()` them to wake blocked calls, so a closed descriptor number can never be reused
/// under a thread's feet. The core of platforms without ``EventServerCore``, and of tests that
/// make starting a connection's thread fail.
final class ThreadedServerCore: ServerCore {
    private enum Phase {
        case idle, listening, refusing, stopped
    }

    private struct State {
        var phase: Phase = .idle
        var port = 0
        /// Where the listener binds; kept so `acceptConnections()` reopens the same address.
        var address = BindAddress.loopback
        /// The listening descriptor while `phase == .listening`; owned by the accept thread.
        var listener: Int32 = -1
        /// While `phase == .refusing`: a bound, non-listening socket on the port, so connects
        /// are refused and no other server is given the port meanwhile (-1 if it could not bind).
        var placeholder: Int32 = -1
        /// Live connection descriptors; each is owned by its connection thread.
        var connections: Set<Int32> = []
        /// How long each connection has waited for a request, on a capped listener only (an
        /// uncapped one, every flow's, never looks).
        var idleness: [Int32: IdleMark] = [:]
        /// Left when the current accept thread has closed its listener and exited.
        var acceptThread: DispatchGroup?
    }

    private let responder: any HTTPResponder
    private let limits: HTTPServerLimits
    private let state = Locked(State())
    /// Tracks every connection thread so `stop()` can wait for all of them.
    private let connectionThreads = DispatchGroup()
    private let threadMarker: String
    /// Moves with every accepted connection, read and answer: see ``ActivityMeter``.
    let activity = ActivityMeter()

    /// Starts a connection's thread; false when it could not (see ``ConnectionThread``).
    private let startThread: @Sendable (@escaping @Sendable () -> Void) -> Bool

    /// - Parameter startThread: how connection threads are started (tests make it fail).
    init(responder: any HTTPResponder, limits: HTTPServerLimits, startThread: @escaping @Sendable (@escaping @Sendable () -> Void) -> Bool) {
        self.responder = responder
        self.limits = limits
        self.startThread = startThread
        self.threadMarker = "FlowCheckFakeServer.ThreadedServerCore.\(UUID().uuidString)"
    }

    /// How many connections are registered (being served) now.
    var openConnections: Int {
        state.withLock { $0.connections.count }
    }

    /// The bound port, or 0 before `start()`. Stays the same across refuse/accept cycles.
    var port: Int {
        state.withLock { $0.port }
    }

    /// Binds `address` (127.0.0.1 unless told) on `port` (0, the default: an ephemeral one),
    /// starts accepting and returns the bound port.
    func start(port: Int, address: BindAddress) throws(HTTPServerError) -> Int {
        Socket.ignoreSIGPIPE()
        return try state.withLock { (state: inout State) throws(HTTPServerError) -> Int in
            guard state.phase == .idle else { throw .alreadyStarted }
            let fd = try Socket.openListener(port: port, address: address)
            state.address = address
            state.port = Socket.localPort(fd)
            beginAccepting(on: fd, state: &state)
            return state.port
        }
    }

    /// Simulates an unreachable server: closes the listener and every open connection, so
    /// new connects fail with ECONNREFUSED and kept-alive sockets see their peer vanish.
    /// Returns once the listener is closed. No effect unless currently listening.
    func refuseConnections() {
        let acceptThread: DispatchGroup? = state.withLock { state in
            guard state.phase == .listening else { return nil }
            state.phase = .refusing
            return closeEverything(&state)
        }
        // Bounded as in stop(): the listener is shut down above, so the accept thread ends at
        // once; a machine too busy to run it for 10 s gets the placeholder a little late rather
        // than a caller (a flow's fault step) hung for good.
        _ = acceptThread?.wait(timeout: .now() + Self.stopDeadline)
        // The port stays ours while unreachable: without this, a busy machine's next server
        // (another flow's) could be given it, and this flow's SDK would reach that one.
        state.withLock { state in
            guard state.phase == .refusing, state.placeholder < 0 else { return }
            state.placeholder = (try? Socket.openPlaceholder(port: state.port, address: state.address)) ?? -1
        }
    }

    /// Listens again on the same port after `refuseConnections()`; no effect if listening.
    func acceptConnections() throws(HTTPServerError) {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            switch state.phase {
            case .listening: return
            case .idle, .stopped: throw .notRunning
            case .refusing:
                if state.placeholder >= 0 {
                    close(state.placeholder)
                    state.placeholder = -1
                }
                let fd = try Socket.openListener(port: state.port, address: state.address)
                beginAccepting(on: fd, state: &state)
            }
        }
    }

    /// Closes the listener and every connection and waits for their threads to finish.
    /// Idempotent. Called from one of this server's own connection threads (from inside a
    /// responder) it cannot wait for that thread, so it waits only for the listener then.
    func stop() {
        let acceptThread: DispatchGroup? = state.withLock { state in
            let wasStopped = state.phase == .stopped
            state.phase = .stopped
            // Reset, not a polite close: each politely closed connection leaves a TIME_WAIT
            // entry holding this ephemeral port for 60 s, and with a server per flow thousands
            // of them made every later bind(port 0) scan a crowded port range.
            if !wasStopped { state.connections.forEach(Socket.setAbortiveClose) }
            return wasStopped ? nil : closeEverything(&state)
        }
        // Bounded: every socket is shut down above, so threads end at once unless a responder
        // itself blocks; then stop() returns after the deadline rather than hang its caller (a
        // test's defer, the runner's teardown), and the late threads end on their own.
        _ = acceptThread?.wait(timeout: .now() + Self.stopDeadline)
        if Thread.current.threadDictionary[threadMarker] == nil {
            _ = connectionThreads.wait(timeout: .now() + Self.stopDeadline)
        }
    }

    /// How long `stop()` waits for the server's threads to end.
    static let stopDeadline: DispatchTimeInterval = .seconds(10)

    // MARK: - Threads

    /// Wakes the accept thread and every connection thread; caller holds the lock.
    private func closeEverything(_ state: inout State) -> DispatchGroup? {
        if state.placeholder >= 0 {
            close(state.placeholder)
            state.placeholder = -1
        }
        if state.listener >= 0 {
            Socket.shutdownBoth(state.listener)
            state.listener = -1
        }
        for fd in state.connections {
            Socket.shutdownBoth(fd)
        }
        let acceptThread = state.acceptThread
        state.acceptThread = nil
        return acceptThread
    }

    /// Records `fd` as the listener and spawns its accept thread; caller holds the lock.
    private func beginAccepting(on fd: Int32, state: inout State) {
        state.phase = .listening
        state.listener = fd
        let group = DispatchGroup()
        group.enter()
        state.acceptThread = group
        let accept: @Sendable () -> Void = { [self] in
            acceptLoop(fd)
            close(fd)
            group.leave()
        }
        // A waiting thread if there is one (ConnectionThread); Foundation's own otherwise.
        if !ConnectionThread.start(accept) {
            let thread = Thread(block: accept)
            thread.name = "FlowCheckFakeServer.accept"
            thread.start()
        }
    }

    /// What becomes of an accepted socket.
    private enum Admission {
        case served, shed, listenerClosed
        /// accept() failed with this errno.
        case acceptFailed(Int32)
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let fd = accept(listener, nil, nil)
            // Read at once: taking the lock may change errno.
            let acceptError = fd < 0 ? errno : 0
            let admission = state.withLock { state -> Admission in
                guard state.phase == .listening, state.listener == listener else { return .listenerClosed }
                guard fd >= 0 else { return .acceptFailed(acceptError) }
                return spawnConnection(fd, state: &state)
            }
            switch admission {
            case .listenerClosed:
                if fd >= 0 { close(fd) }
                return
            case .shed:
                // Outside the lock: the answer is a few bytes into an empty send buffer, but
                // `stop()` must never wait behind a write.
                ConnectionShedding.answer(fd)
                close(fd)
            case .acceptFailed(EMFILE), .acceptFailed(ENFILE), .acceptFailed(ENOBUFS), .acceptFailed(ENOMEM):
                // Out of descriptors or memory: back off briefly instead of spinning on the
                // error; a stop() meanwhile is seen at the next turn.
                usleep(10_000)
            case .acceptFailed, .served:
                break
            }
        }
    }

    /// At the cap: closes the connection that has waited longest for its next request (a
    /// shutdown wakes its thread, which deregisters and closes it), so a new client is served
    /// rather than turned away by idle ones; false when none is idle. Caller holds the lock;
    /// every registered descriptor is still open, so the shutdown cannot reach a reused one.
    private func evictLongestIdle(_ state: inout State) -> Bool {
        var idle: [(fd: Int32, mark: IdleMark, since: ContinuousClock.Instant)] = []
        for (fd, mark) in state.idleness {
            // Bytes waiting in the kernel are a request its thread has not read yet: not idle.
            guard let since = mark.idleSince, Socket.pendingBytes(fd) == 0 else { continue }
            idle.append((fd, mark, since))
        }
        // Longest idle first; one that has begun a request since it was looked at is passed
        // over (its thread marks it busy before it takes a byte).
        for candidate in idle.sorted(by: { $0.since < $1.since }) where candidate.mark.evict() {
            Socket.shutdownBoth(candidate.fd)
            return true
        }
        return false
    }

    /// Registers and serves an accepted socket on its own thread, or says to shed it when the
    /// server is at its connection cap or the thread cannot start (then nothing stays
    /// registered); caller holds the lock.
    private func spawnConnection(_ fd: Int32, state: inout State) -> Admission {
        if limits.maxConnections > 0, state.connections.count >= limits.maxConnections, !evictLongestIdle(&state) { return .shed }
        state.connections.insert(fd)
        let idleness = limits.maxConnections > 0 ? IdleMark() : nil
        idleness?.idle()
        state.idleness[fd] = idleness
        Socket.setTimeouts(fd, seconds: limits.readTimeout)
        Socket.setNoDelay(fd)
        connectionThreads.enter()
        activity.tick()
        let connection = HTTPConnection(fd: fd, responder: responder, limits: limits, activity: activity, idleness: idleness)
        let marker = threadMarker
        let started = startThread { [self] in
            // Taken off again: the thread may go on to serve another server's connection.
            Thread.current.threadDictionary[marker] = true
            defer { Thread.current.threadDictionary[marker] = nil }
            connection.run()
            self.state.withLock { state in
                state.connections.remove(fd)
                state.idleness.removeValue(forKey: fd)
            }
            close(fd)
            connectionThreads.leave()
        }
        guard started else {
            state.connections.remove(fd)
            state.idleness.removeValue(forKey: fd)
            connectionThreads.leave()
            return .shed
        }
        return .served
    }
}
