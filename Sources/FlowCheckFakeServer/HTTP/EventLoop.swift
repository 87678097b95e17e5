#if os(Linux)
import Foundation
import Glibc
import CFlowCheckEpoll

/// What the loop calls for a registered descriptor. Every method runs on the loop's thread.
package protocol EventHandler: AnyObject {
    /// The descriptor became ready (`events` is epoll's mask). The handler acts by trying the
    /// call it wants (recv, send, accept) and looking at what that says, never on the mask alone.
    func handle(events: UInt32)
    /// When ``expire()`` is due; nil: no deadline.
    var deadline: ContinuousClock.Instant? { get }
    /// The deadline has passed.
    func expire()
}

extension EventLoop {
    /// The events to ask ``register(_:_:events:)`` and ``watch(_:events:)`` for, so that a
    /// handler outside this module needs no epoll header.
    package static let readable = EPOLLIN.rawValue
    package static let writable = EPOLLOUT.rawValue
}

/// One epoll loop on a thread of its own, serving the listeners and connections of one
/// ``EventServerCore`` (or, the ``shared`` loop, of every fake provider's). A loop of its own
/// keeps a server apart: a responder that takes long holds up its own server only. The fake
/// providers share one, for speed: their responders never wait, and what the runner is told
/// from there that could (a stall's clock move, which reaches a driver's pipe) is passed to a
/// thread of its own.
///
/// Everything registered with it is touched only on its thread; other threads hand it work
/// with ``execute(_:)`` (an eventfd wakes it). Deadlines are found by a sweep over the
/// registered handlers, run only when the earliest known deadline is due, so a busy loop pays
/// nothing per event for them. ``shutdown()`` ends the thread and closes the loop's own
/// descriptors; work handed over after that is dropped.
package final class EventLoop: @unchecked Sendable {
    /// The loop the fake providers of every flow share (``HTTPServer/Core/sharedEvents``),
    /// started on first use and never shut down; nil if it could not start.
    package static let shared: EventLoop? = try? EventLoop()

    private let epoll: Int32
    private let wakeFD: Int32
    private let pendingLock = NSLock()
    /// Guarded by `pendingLock`.
    private var pending: [@Sendable () -> Void] = []
    /// Guarded by `pendingLock`: a wake-up is already written and not yet read.
    private var wakePosted = false
    /// Guarded by `pendingLock`: shut down; the descriptors are (being) closed.
    private var closed = false
    /// Left when the thread has returned and closed the loop's descriptors.
    private let exited = DispatchGroup()

    // Loop thread only:
    private struct Entry {
        let handler: any EventHandler
        let generation: UInt32
    }
    private var entries: [Int32: Entry] = [:]
    private var generation: UInt32 = 0
    /// When the next sweep is due (nil: no handler has a deadline).
    private var nextSweep: ContinuousClock.Instant?
    private var running = true
    /// One receive buffer for every connection of the loop: only one reads at a time.
    package var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    private let threadID = Locked<pthread_t?>(nil)

    /// Opens the loop's descriptors and starts its thread.
    /// - Throws: ``HTTPServerError/socketCreationFailed(errno:)`` when a descriptor or the
    ///   thread cannot be had (out of descriptors or threads).
    init() throws(HTTPServerError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .socketCreationFailed(errno: errno) }
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(epoll)
            throw .socketCreationFailed(errno: code)
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(UInt32(bitPattern: wakeFD))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeFD, &event)
        exited.enter()
        // A waiting thread if there is one (a loop lives as long as its server, often a flow).
        guard ConnectionThread.start({ [self] in run() }) else {
            exited.leave()
            Glibc.close(wakeFD)
            Glibc.close(epoll)
            throw .socketCreationFailed(errno: EAGAIN)
        }
    }

    /// Whether the caller runs on the loop's thread.
    var inLoop: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Runs `work` on the loop's thread, soon; in order with other work handed over.
    /// False (and `work` dropped) once the loop has ended.
    @discardableResult
    package func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        pendingLock.lock()
        defer { pendingLock.unlock() }
        guard !closed else { return false }
        pending.append(work)
        // Written under the lock: the loop closes `wakeFD` only after it has set `closed`.
        if !wakePosted {
            wakePosted = true
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return true
    }

    /// Ends the loop once the work handed over so far has run; its thread closes the loop's
    /// descriptors and returns. Whatever is still registered is left to the caller (a server
    /// closes its listener and connections first).
    func shutdown() {
        execute { [self] in
            running = false
            // From here `execute` refuses work; what it took before runs as the loop ends.
            pendingLock.withLock { closed = true }
        }
    }

    /// Waits (at most `seconds`) until the loop has run everything handed to it so far, or has
    /// ended: a barrier for tests.
    func settle(within seconds: Int) -> Bool {
        if executeAndWait(within: seconds, {}) { return true }
        return exited.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    /// Runs `work` on the loop's thread and waits for it (at most `seconds`): at once when
    /// called there. False when the wait ran out (the loop is held up by a responder).
    @discardableResult
    func executeAndWait(within seconds: Int, _ work: @escaping @Sendable () -> Void) -> Bool {
        if inLoop {
            work()
            return true
        }
        let done = DispatchSemaphore(value: 0)
        let taken = execute {
            work()
            done.signal()
        }
        guard taken else { return false }
        return done.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    // MARK: - On the loop's thread

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT) on behalf of `handler`.
    package func register(_ fd: Int32, _ handler: any EventHandler, events: UInt32) {
        generation &+= 1
        entries[fd] = Entry(handler: handler, generation: generation)
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
        noteDeadline(handler.deadline)
    }

    /// Changes what `fd` is watched for (0: nothing, for now).
    package func watch(_ fd: Int32, events: UInt32) {
        guard let entry = entries[fd] else { return }
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(entry.generation) << 32 | UInt64(UInt32(bitPattern: fd))
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd`; the caller closes it next.
    package func deregister(_ fd: Int32) {
        guard entries.removeValue(forKey: fd) != nil else { return }
        var event = epoll_event()
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
    }

    /// A handler's deadline may now be earlier than any the loop knew of.
    func noteDeadline(_ deadline: ContinuousClock.Instant?) {
        guard let deadline else { return }
        if let next = nextSweep, next <= deadline { return }
        nextSweep = deadline
    }

    private func run() {
        threadID.withLock { $0 = pthread_self() }
        defer {
            // Work taken before the loop closed runs, as `execute` promised.
            let rest: [@Sendable () -> Void] = pendingLock.withLock {
                closed = true
                defer { pending.removeAll() }
                return pending
            }
            for item in rest { item() }
            Glibc.close(wakeFD)
            Glibc.close(epoll)
            threadID.withLock { $0 = nil }
            exited.leave()
        }
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while running {
            let timeout: Int32
            if let next = nextSweep {
                let left = ContinuousClock.now.duration(to: next)
                // Rounded up: a deadline is never seen as passed before it has.
                timeout = left <= .zero ? 0 : Int32(min(left.timeInterval * 1000 + 1, 86_400_000))
            } else {
                timeout = -1
            }
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count > 0 {
                for index in 0..<Int(count) {
                    let data = events[index].data.u64
                    let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data))
                    if fd == wakeFD {
                        runPending()
                        continue
                    }
                    // A stale event for a descriptor closed earlier in this batch (and perhaps
                    // reused since) carries the old generation: dropped.
                    guard let entry = entries[fd], entry.generation == UInt32(truncatingIfNeeded: data >> 32) else { continue }
                    entry.handler.handle(events: events[index].events)
                }
            }
            if let next = nextSweep, next <= .now {
                sweep()
            }
        }
    }

    private func runPending() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
        let work: [@Sendable () -> Void] = pendingLock.withLock {
            defer {
                pending.removeAll(keepingCapacity: true)
                wakePosted = false
            }
            return pending
        }
        for item in work { item() }
    }

    /// Expires every handler whose deadline has passed and finds the next one.
    private func sweep() {
        nextSweep = nil
        let now = ContinuousClock.now
        for (fd, entry) in entries {
            guard let deadline = entry.handler.deadline else { continue }
            if deadline <= now {
                entry.handler.expire()
                // Expiring may have closed it, or given it a later deadline.
                if let still = entries[fd], still.generation == entry.generation {
                    noteDeadline(still.handler.deadline)
                }
            } else {
                noteDeadline(deadline)
            }
        }
    }
}
#endif
