import Foundation

/// Runs `body` on a thread of its own and suspends, holding no thread, until it returns: how a
/// test makes a blocking call (a socket read, a process wait, a semaphore) without blocking
/// Swift's cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core (two on a
/// two-core machine), and on Linux `DispatchQueue.global()` runs on those same threads. A
/// blocking call made there starves every other test and every flow in the process until it
/// returns; here it holds a thread nobody else needs. Each call gets a thread at once, never
/// queued behind another call: an idle thread a finished call left behind, or a new one.
///
/// The wait is bounded: when `limit` passes first this throws ``WaitTimedOut`` naming `what`,
/// and when the calling task is cancelled first (a Swift Testing time limit), it throws
/// `CancellationError`. Either way `body` cannot be stopped: it runs on to its end on its
/// thread and its result is dropped, so give `body` bounds of its own (socket timeouts, a
/// timed semaphore wait).
///
/// ```swift
/// let status = try await offThePool("flowcheck serve: its exit") {
///     exited.wait(timeout: .now() + 30) == .success ? process.terminationStatus : nil
/// }
/// ```
/// - Parameters:
///   - what: What runs, as a failure should name it: `RawLoopbackClient.readResponse`.
///   - limit: The longest real time to wait for `body`.
///   - body: The blocking work; it runs on another thread, so it sees no task-local values
///     (call `#expect` after this returns, not inside).
/// - Returns: What `body` returned.
/// - Throws: What `body` threw; ``WaitTimedOut`` ("`what`: not finished within L s");
///   `CancellationError`.
public func offThePool<Value: Sendable>(
    _ what: String,
    within limit: Duration = HangBound.standard,
    _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
    try await boundedWait("\(what): not finished", within: limit) { resume in
        OwnThreads.shared.run(what) {
            resume(Result { try body() })
        }
    }
}

/// Threads for blocking work, one per job at once: a job never waits for another to finish
/// (blocking jobs waiting on each other would deadlock a test). A thread whose job is done
/// waits a few seconds for the next one before it ends, so a test that makes thousands of
/// blocking calls in turn does not start thousands of threads.
// @unchecked: its jobs and idle count are guarded by `condition`, an NSCondition its threads wait on (Locked cannot wait).
final class OwnThreads: @unchecked Sendable {
    static let shared = OwnThreads()

    /// How long a thread without a job is kept for the next one.
    private static let keepIdle: TimeInterval = 5

    private let condition = NSCondition()
    /// Jobs handed to an idle thread and not yet taken; each was counted off `idle` already.
    private var jobs: [@Sendable () -> Void] = []
    /// Threads waiting for a job that no job has claimed. Waiting threads = idle + jobs.count.
    private var idle = 0

    /// Starts `job` on an idle thread, or on a new one when none is idle.
    func run(_ name: String, _ job: @escaping @Sendable () -> Void) {
        let named: @Sendable () -> Void = {
            Self.nameCurrentThread(name)
            job()
        }
        condition.lock()
        if idle > 0 {
            idle -= 1
            jobs.append(named)
            condition.signal()
            condition.unlock()
            return
        }
        condition.unlock()
        let thread = Thread { [self] in
            named()
            serveJobs()
        }
        thread.start()
    }

    /// Names the calling thread for `ps` and a debugger, as well as Foundation can: on Linux the
    /// name is the kernel's, at most 15 bytes (a longer one is refused, leaving the name a new
    /// thread inherits from the one that started it, a pool thread's `…oot.default-qos`), so it
    /// is cut to 15 bytes and set from inside the thread. Cosmetic: a thread that starts
    /// before its starter has finished starting it may keep the inherited name.
    static func nameCurrentThread(_ name: String) {
        var bytes = 0
        Thread.current.name = String(name.prefix { character in
            bytes += character.utf8.count
            return bytes <= 15
        })
    }

    /// Takes jobs until none comes for ``keepIdle``, then lets the thread end.
    private func serveJobs() {
        condition.lock()
        idle += 1
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job()
                condition.lock()
                idle += 1
                continue
            }
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.keepIdle))
            if !signalled, jobs.isEmpty {
                // Unclaimed: counted in `idle`, and no job waits for this thread.
                idle -= 1
                condition.unlock()
                return
            }
        }
    }
}
