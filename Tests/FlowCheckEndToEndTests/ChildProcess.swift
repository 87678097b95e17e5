import Dispatch
import Foundation
import FlowCheckTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process with a deadline, waited for without holding a cooperative thread.
///
/// - Every child is killed (SIGKILL) once `deadline` has passed since launch, by its own
///   thread (no timer that a busy pool could delay), and waiting for it then throws
///   ``WaitTimedOut`` naming it. The deadline is a hang bound: ``HangBound/standard`` unless a
///   run is known to take longer (a `swift build`).
/// - Launching, reading its output and waiting for its exit happen on a thread of its own,
///   which lives exactly as long as the child. On Linux the child is started through
///   `setpriv --pdeathsig KILL`, so the kernel kills it when that thread ends, which includes
///   the test process dying: no child outlives the tests or keeps a port.
/// - Callers also `kill()` it in a `defer`, so a test that fails early leaves nothing running.
final class ChildProcess: @unchecked Sendable {
    /// What failures call it, e.g. "flowcheck serve".
    let name: String
    let deadline: Duration
    let stdout = OutputLog()
    let stderr = OutputLog()
    /// The launch description until the child's thread starts it; then the child.
    private let launchPlan: (executable: String, arguments: [String], directory: String?, environment: [String: String]?)
    /// The child once started, and whether it is still unreaped (its pid its own): guarded by
    /// `lock`, under which the reaper reaps, so no signal reaches a reused pid.
    private let lock = NSLock()
    private var spawned: Spawned?
    private var running = false
    private let exit = OneShot<Int32>()

    /// How long after the deadline the child's thread waits for the killed child and its pipes.
    private static let afterKill: Duration = .seconds(30)

    private init(name: String, deadline: Duration, plan: (executable: String, arguments: [String], directory: String?, environment: [String: String]?)) {
        self.name = name
        self.deadline = deadline
        self.launchPlan = plan
    }

    /// Which of the child's output streams a trigger watches.
    enum Stream: Sendable {
        case stdout, stderr
    }

    /// Starts `executable` and returns once it runs.
    /// - Parameter on: run on the reading thread, the moment the stream first contains the
    ///   text: for a reaction (a signal) that must not wait for a busy cooperative pool. It is
    ///   set here, before the child starts, never on the log after `launch` returns: that
    ///   return resumes on the test process's cooperative pool, which a busy run can hold for
    ///   longer than the child lives (a SIGINT meant for the middle of a run once arrived 30 s
    ///   late, after the run had ended on its own).
    static func launch(_ name: String, executable: URL, arguments: [String], directory: URL? = nil, environment: [String: String]? = nil, deadline: Duration = HangBound.standard, on trigger: (stream: Stream, text: String, action: @Sendable (ChildProcess) -> Void)? = nil) async throws -> ChildProcess {
        let plan: (executable: String, arguments: [String], directory: String?, environment: [String: String]?)
        if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            plan = (setpriv, ["--pdeathsig", "KILL", "--", executable.path] + arguments, directory?.path, environment)
        } else {
            plan = (executable.path, arguments, directory?.path, environment)
        }
        let child = ChildProcess(name: name, deadline: deadline, plan: plan)
        if let trigger {
            let log = trigger.stream == .stdout ? child.stdout : child.stderr
            log.when(trigger.text) { [weak child] in if let child { trigger.action(child) } }
        }
        let launched = OneShot<Void>()
        let thread = Thread { child.supervise(launched) }
        thread.name = "ChildProcess \(name)"
        thread.start()
        try await launched.value("\(name): not launched")
        return child
    }

    /// The exit status, once the child has exited and its output is read to the end.
    /// - Throws: ``WaitTimedOut`` when the child was still running at its deadline (it is
    ///   killed then).
    func exitStatus() async throws -> Int32 {
        try await exit.value("\(name): no exit", within: deadline + Self.afterKill + .seconds(30))
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() {
        signal(SIGINT)
    }

    /// Sends `number` (SIGTERM, SIGINT...) if the child still runs (not yet reaped, so its pid
    /// is still its own).
    func signal(_ number: Int32) {
        lock.withLock {
            guard running else { return }
            spawned?.signal(number)
        }
    }

    /// Kills the child if it still runs; safe to call at any time, any number of times.
    func kill() {
        signal(SIGKILL)
    }

    /// The child's own thread: launches, reads both pipes to their end, waits for the exit.
    /// At the deadline it kills the child; its waits after that are bounded too, and if they
    /// still time out the thread ends, and with it, through the parent-death signal, the child.
    private func supervise(_ launched: OneShot<Void>) {
        let child: Spawned
        do {
            child = try Spawned(executable: launchPlan.executable, arguments: launchPlan.arguments, environment: launchPlan.environment, directory: launchPlan.directory)
        } catch {
            launched.fulfil(.failure(error))
            return
        }
        lock.withLock {
            spawned = child
            running = true
        }
        launched.fulfil(.success(()))
        let readers = DispatchGroup()
        for (fd, log) in [(child.stdout, stdout), (child.stderr, stderr)] {
            readers.enter()
            Thread {
                log.read(FileHandle(fileDescriptor: fd, closeOnDealloc: true))
                readers.leave()
            }.start()
        }
        // The reaper: the exit status the moment the child ends. The pid is reaped under
        // `running`'s lock, so no signal can reach a pid reused after it.
        let exited = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status: Int32 = -1
        Thread {
            var raw: Int32 = 0
            while true {
                let reaped = self.lock.withLock { () -> Bool in
                    let result = waitpid(child.pid, &raw, WNOHANG)
                    if result == child.pid || (result < 0 && errno != EINTR) {
                        self.running = false
                        return true
                    }
                    return false
                }
                if reaped { break }
                // Blocks until the child changes state, without reaping it (WNOWAIT).
                var info = siginfo_t()
                _ = waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOWAIT)
            }
            let low = raw & 0x7f
            status = low == 0 ? (raw >> 8) & 0xff : low
            exited.signal()
        }.start()
        let killAt = DispatchTime.now() + Self.interval(deadline)
        let bound = killAt + Self.interval(Self.afterKill)
        var hasExited = exited.wait(timeout: killAt) == .success
        if !hasExited {
            exit.fulfil(.failure(WaitTimedOut("\(name): still running, killed", limit: deadline)))
            kill()
            hasExited = exited.wait(timeout: bound) == .success
        }
        guard hasExited, readers.wait(timeout: bound) == .success else {
            exit.fulfil(.failure(WaitTimedOut("\(name): not finished even after it was killed", limit: deadline + Self.afterKill)))
            return
        }
        // Written before `exited` was signalled, which this thread waited for.
        exit.fulfil(.success(status))
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// What a child wrote to one stream, and a way to wait for a piece of it.
final class OutputLog: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false
    private var waiters: [(text: String, what: String, found: OneShot<Void>)] = []
    private var triggers: [(text: String, action: @Sendable () -> Void)] = []

    /// Runs `action` on the reading thread as soon as the output contains `text` (once); at
    /// once, on the calling thread, when it already does. Only ``ChildProcess/launch`` sets
    /// one, before the child starts (see its `on` parameter).
    fileprivate func when(_ text: String, _ action: @escaping @Sendable () -> Void) {
        lock.lock()
        let already = String(decoding: data, as: UTF8.self).contains(text)
        if !already { triggers.append((text, action)) }
        lock.unlock()
        if already { action() }
    }

    /// Everything read so far, as text.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads `handle` to its end, waking waiters as text arrives. Blocks: call off the pool.
    fileprivate func read(_ handle: FileHandle) {
        while true {
            let chunk = handle.availableData
            lock.lock()
            data += chunk
            ended = chunk.isEmpty
            let text = String(decoding: data, as: UTF8.self)
            let ready = waiters.filter { ended || text.contains($0.text) }
            waiters.removeAll { ended || text.contains($0.text) }
            let fired = triggers.filter { text.contains($0.text) }
            triggers.removeAll { text.contains($0.text) }
            lock.unlock()
            for trigger in fired { trigger.action() }
            for waiter in ready {
                waiter.found.fulfil(text.contains(waiter.text) ? .success(()) : .failure(OutputEnded(what: waiter.what, text: waiter.text)))
            }
            if chunk.isEmpty { return }
        }
    }

    /// Returns once the output contains `text`.
    /// - Throws: ``OutputEnded`` naming `what` if the output ends without it;
    ///   ``WaitTimedOut`` if `limit` passes first.
    func waitFor(_ text: String, within limit: Duration = HangBound.standard, _ what: String) async throws {
        let found = OneShot<Void>()
        register(text, what, found)
        try await found.value("\(what): no \"\(text)\"", within: limit)
    }

    /// Settles `found` now if the output already tells, else leaves it for `read`.
    private func register(_ text: String, _ what: String, _ found: OneShot<Void>) {
        lock.lock()
        defer { lock.unlock() }
        if String(decoding: data, as: UTF8.self).contains(text) {
            found.fulfil(.success(()))
        } else if ended {
            found.fulfil(.failure(OutputEnded(what: what, text: text)))
        } else {
            waiters.append((text, what, found))
        }
    }
}

/// A child's output ended without the text a test waited for.
struct OutputEnded: Error, CustomStringConvertible {
    let what: String
    let text: String

    var description: String { "\(what): the output ended without \"\(text)\"" }
}
