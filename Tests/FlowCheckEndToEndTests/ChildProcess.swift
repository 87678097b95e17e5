import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process with a deadline, waited for without holding a cooperative thread.
///
/// - Every child is killed (SIGKILL) once `deadline` seconds have passed since launch, and
///   waiting for it then throws ``DeadlinePassed`` naming it.
/// - Launching, reading its output and waiting for its exit happen on a thread of its own,
///   which lives exactly as long as the child. On Linux the child is started through
///   `setpriv --pdeathsig KILL`, so the kernel kills it when that thread ends, which includes
///   the test process dying: no child outlives the tests or keeps a port.
/// - Callers also `kill()` it in a `defer`, so a test that fails early leaves nothing running.
final class ChildProcess: @unchecked Sendable {
    /// What failures call it, e.g. "flowcheck serve".
    let name: String
    let deadline: Double
    let stdout = OutputLog()
    let stderr = OutputLog()
    private let process = Process()
    private let exit = OneShot<Int32>()

    private init(name: String, deadline: Double) {
        self.name = name
        self.deadline = deadline
    }

    /// Starts `executable` and returns once it runs.
    /// - Parameter onStdout: run on the reading thread, the moment stdout first contains the
    ///   text: for a reaction (a signal) that must not wait for a busy cooperative pool.
    static func launch(_ name: String, executable: URL, arguments: [String], directory: URL? = nil, environment: [String: String]? = nil, deadline: Double, onStdout: (text: String, action: @Sendable (ChildProcess) -> Void)? = nil) async throws -> ChildProcess {
        let child = ChildProcess(name: name, deadline: deadline)
        if let onStdout { child.stdout.when(onStdout.text) { [weak child] in if let child { onStdout.action(child) } } }
        let process = child.process
        if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--pdeathsig", "KILL", "--", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        process.environment = environment
        let launched = OneShot<Void>()
        let thread = Thread { child.supervise(launched) }
        thread.name = "ChildProcess \(name)"
        thread.start()
        try await launched.value()
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [weak child] in
            guard let child else { return }
            if child.exit.fulfil(.failure(DeadlinePassed(description: "\(name): still running \(deadline) s after launch, killed"))) {
                child.kill()
            }
        }
        return child
    }

    /// The exit status, once the child has exited and its output is read to the end.
    func exitStatus() async throws -> Int32 {
        try await exit.value()
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() {
        if process.isRunning { process.interrupt() }
    }

    /// Sends `number` (SIGTERM, SIGINT...) if the child still runs.
    func signal(_ number: Int32) {
        guard process.isRunning else { return }
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, number)
        #else
        _ = Darwin.kill(process.processIdentifier, number)
        #endif
    }

    /// Kills the child if it still runs; safe to call at any time, any number of times.
    func kill() {
        signal(SIGKILL)
    }

    /// The child's own thread: launches, reads both pipes to their end, waits for the exit.
    /// Its waits are bounded a little past the deadline (by then the child has been killed);
    /// if they still time out the thread ends, and with it, through the parent-death signal,
    /// the child.
    private func supervise(_ launched: OneShot<Void>) {
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            launched.fulfil(.failure(error))
            return
        }
        launched.fulfil(.success(()))
        let readers = DispatchGroup()
        for (pipe, log) in [(out, stdout), (err, stderr)] {
            readers.enter()
            Thread {
                log.read(pipe.fileHandleForReading)
                readers.leave()
            }.start()
        }
        let bound = DispatchTime.now() + deadline + 30
        guard exited.wait(timeout: bound) == .success, readers.wait(timeout: bound) == .success else {
            exit.fulfil(.failure(DeadlinePassed(description: "\(name): did not finish even after it was killed")))
            return
        }
        exit.fulfil(.success(process.terminationStatus))
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
    /// once, on the calling thread, when it already does (the child may have written it before
    /// the trigger was set).
    func when(_ text: String, _ action: @escaping @Sendable () -> Void) {
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
                waiter.found.fulfil(text.contains(waiter.text) ? .success(()) : .failure(DeadlinePassed(description: "\(waiter.what): the output ended without \"\(waiter.text)\"")))
            }
            if chunk.isEmpty { return }
        }
    }

    /// Returns once the output contains `text`; throws naming `what` if it ends without it
    /// or if `seconds` pass first.
    func waitFor(_ text: String, within seconds: Double, _ what: String) async throws {
        let found = OneShot<Void>()
        register(text, what, found)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            found.fulfil(.failure(DeadlinePassed(description: "\(what): no \"\(text)\" within \(seconds) s")))
        }
        try await found.value()
    }

    /// Settles `found` now if the output already tells, else leaves it for `read`.
    private func register(_ text: String, _ what: String, _ found: OneShot<Void>) {
        lock.lock()
        defer { lock.unlock() }
        if String(decoding: data, as: UTF8.self).contains(text) {
            found.fulfil(.success(()))
        } else if ended {
            found.fulfil(.failure(DeadlinePassed(description: "\(what): the output ended without \"\(text)\"")))
        } else {
            waiters.append((text, what, found))
        }
    }
}
