import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (a connection served, an exchange sent) on a thread of its own, and says
/// whether it could: `Foundation.Thread.start()` cannot report a failed `pthread_create` (the
/// thread limit reached), and a connection registered for a thread that never ran would never
/// be served, closed or deregistered.
///
/// A thread whose work ends waits ``idleSeconds`` for the next before it exits, and new work
/// goes to such a waiting thread first: a flow opens a handful of connections in a few
/// milliseconds, and creating a thread for each was a measurable share of a short flow.
package enum ConnectionThread {
    /// How long a thread with nothing to do waits for work before it exits.
    static let idleSeconds = 5

    /// Runs `body` on a waiting thread, or on a new detached one; false (and `body` released
    /// unrun) when there is no waiting thread and the system cannot create one.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        start(body, reusing: waiting)
    }

    /// As ``start(_:)``, with the threads of `pool` (tests pass one of their own).
    static func start(_ body: @escaping @Sendable () -> Void, reusing pool: WaitingThreads) -> Bool {
        if pool.handOff(body) { return true }
        // The body goes through the pool's loop like every later one, so the thread lets go of
        // it (and of the server or flow it captured) once it has run, not when the thread ends:
        // the thread's own closure holds only the emptied box.
        let first = FirstBody(body)
        return spawn { pool.serve(first: first) }
    }

    private static let waiting = WaitingThreads()

    private static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        let result = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        #else
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        #endif
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// The first body of a new thread, handed over once.
    final class FirstBody: @unchecked Sendable {
        /// Read and cleared once, by the new thread.
        private var body: (@Sendable () -> Void)?
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        func take() -> (@Sendable () -> Void)? {
            defer { body = nil }
            return body
        }
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

/// The threads that finished their work and wait for more, each on a semaphore of its own
/// (the wait is on the monotonic clock: no fake reads the wall clock). Work is handed to one
/// of them only while it is still waiting, so every body handed off is run.
final class WaitingThreads: @unchecked Sendable {
    private final class Waiter: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        /// Set under the lock by the one ``handOff(_:)`` that takes the waiter.
        var body: (@Sendable () -> Void)?
    }

    /// Told each time a thread starts to wait for work (tests).
    private let onIdle: @Sendable () -> Void

    init(onIdle: @escaping @Sendable () -> Void = {}) {
        self.onIdle = onIdle
    }

    private let lock = NSLock()
    /// Guarded by `lock`; the most recent last (a warm thread is taken first).
    private var idle: [Waiter] = []

    func handOff(_ body: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        guard let waiter = idle.popLast() else {
            lock.unlock()
            return false
        }
        waiter.body = body
        lock.unlock()
        waiter.wake.signal()
        return true
    }

    /// Runs `first`, then handed-off work on the calling thread until none comes for
    /// ``ConnectionThread/idleSeconds``.
    func serve(first: ConnectionThread.FirstBody) {
        var next = first.take()
        while true {
            next?()
            next = nil
            let waiter = Waiter()
            lock.lock()
            idle.append(waiter)
            lock.unlock()
            onIdle()
            let woken = waiter.wake.wait(timeout: .now() + .seconds(ConnectionThread.idleSeconds)) == .success
            lock.lock()
            if !woken, let index = idle.firstIndex(where: { $0 === waiter }) {
                idle.remove(at: index)
                lock.unlock()
                return
            }
            // Woken, or taken just as the wait ran out: `handOff` sets the body under the lock
            // before it signals, so it is here either way; the late signal needs no wait
            // (the semaphore goes with the waiter).
            next = waiter.body
            waiter.body = nil
            lock.unlock()
        }
    }
}
