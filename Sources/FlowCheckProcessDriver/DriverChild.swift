import Foundation
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A driver process: `/bin/sh -c COMMAND` in a process group of its own, with its stdin,
/// stdout and stderr on pipes. Lines from stdout and stderr arrive on two threads of its own
/// (blocking reads, so no cooperative-pool thread ever waits on the driver); writes go out
/// whole under a lock. Every descriptor is close-on-exec, so flows running at once never leak
/// one driver's pipes into another driver.
final class DriverChild: Sendable {
    /// How the process ended, once it has.
    enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "was killed by signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGSEGV ? " (SIGSEGV)" : signal == SIGABRT ? " (SIGABRT)" : "")"
            }
        }
    }

    /// What the stdout reader hands on.
    enum Output: Sendable, Equatable {
        case line(String)
        /// A line past ``maximumLine`` bytes with no end yet: not a message, whatever follows.
        case tooLong
        /// End of file: every writer of the driver's stdout is gone.
        case end
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    private let input: Int32
    /// Whether the driver's stdin is still open; writes go out whole under its lock.
    private let inputOpen = Locked(true)
    /// How it ended, set by the reaper thread (which outlives this object if it must).
    private let endingBox = Locked<Ending?>(nil)
    /// Signalled once the process has been reaped (by the reaper thread, the only one that waits).
    private let exited = DispatchSemaphore(value: 0)
    /// Signalled once the stderr reader has read to the end (every writer gone), or given up.
    private let logEnded = DispatchSemaphore(value: 0)
    /// Set once nothing more is wanted from the pipes: readers stop within 100 ms even when a
    /// descendant that left the process group still holds them open.
    private let abandoned = Locked(false)

    /// Starts `command`. `onOutput` gets each stdout line, then `.end`; `onLog` each stderr
    /// line; `onExit` how the process ended, the moment it is reaped. All run on threads of the
    /// child's own.
    init(command: String, environment: [String: String], onOutput: @escaping @Sendable (Output) -> Void, onLog: @escaping @Sendable (String) -> Void, onExit: @escaping @Sendable (Ending) -> Void) throws {
        _ = DriverChild.ignoreBrokenPipesOnce
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard Self.makePipe(&stdinPipe), Self.makePipe(&stdoutPipe), Self.makePipe(&stderrPipe) else {
            let error = errno
            for fd in stdinPipe + stdoutPipe + stderrPipe where fd >= 0 { close(fd) }
            throw SpawnError(description: "cannot make pipes for the driver: \(String(cString: strerror(error)))")
        }
        // The command starts only once it is announced to the watchdog (``DriverWatchdog``):
        // the shell first reads `go` from its stdin, which this process writes after the
        // announcement, then becomes the command's shell (same process, same group). Should
        // this process die in between, the read meets end of file and nothing starts.
        let (pid, status) = Self.spawnShell(["-c", Self.gate, "flowcheck-driver", command], environment: environment.map { "\($0.key)=\($0.value)" }, stdin: stdinPipe[0], stdout: stdoutPipe[1], stderr: stderrPipe[1])
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard status == 0 else {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            close(stderrPipe[0])
            throw SpawnError(description: "cannot start /bin/sh for the driver: \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.input = stdinPipe[1]
        // Non-blocking: a driver that stops reading fills the pipe, and a write must then wait
        // a bounded time (``writeLimit``), not for ever.
        _ = fcntl(stdinPipe[1], F_SETFL, fcntl(stdinPipe[1], F_GETFL) | O_NONBLOCK)
        let abandoned = self.abandoned
        Self.read(stdoutPipe[0], name: "flowcheck driver stdout", abandoned: abandoned) { line in
            switch line {
            case .line(let text): onOutput(.line(text))
            case .tooLong: onOutput(.tooLong)
            case nil: onOutput(.end)
            }
        }
        let logEnded = self.logEnded
        Self.read(stderrPipe[0], name: "flowcheck driver stderr", abandoned: abandoned) { line in
            switch line {
            case .line(let text): onLog(text)
            case .tooLong: onLog("… (a line longer than 1 MiB, not kept)")
            case nil: logEnded.signal()
            }
        }
        let child = pid, box = endingBox, exited = self.exited
        Self.live.withLock { _ = $0.insert(child) }
        // Should this process die without stopping it (SIGKILL), the watchdog kills its group;
        // only then may the command start.
        DriverWatchdog.watch(child)
        write("go")
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            Self.live.withLock { _ = $0.remove(child) }
            // Withdrawn only once nothing of the group is left (a process the driver started
            // may outlive its shell); else when this process kills the group (`kill()`).
            if systemKill(-child, 0) != 0 && errno == ESRCH { DriverWatchdog.release(child) }
            let ending = Self.ending(status)
            box.withLock { $0 = ending }
            exited.signal()
            onExit(ending)
        }
        reaper.name = "flowcheck driver reaper"
        reaper.start()
    }

    deinit {
        abandoned.withLock { $0 = true }
        let input = self.input
        inputOpen.withLock { open in
            if open { close(input) }
        }
    }

    /// Starts `/bin/sh ARGUMENTS` with the given descriptors as its 0, 1 and 2 and nothing else
    /// of this process (not a socket some other code opened without close-on-exec, which the
    /// child would otherwise hold open for as long as it lives), in a process group of its own
    /// (so stop and kill reach whatever the shell started), with default signal handling and an
    /// empty mask, whatever this process ignores or blocks.
    /// - Returns: the pid, and `posix_spawn`'s status (0 when it started).
    static func spawnShell(_ arguments: [String], environment: [String], stdin: Int32, stdout: Int32, stderr: Int32) -> (pid_t, Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        closeTheRest(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let status = withCStrings(["/bin/sh"] + arguments) { argv in
            withCStrings(environment) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            }
        }
        return (pid, status)
    }

    /// The driver's first shell: waits for `go` on stdin (read byte by byte, as `read` does on a
    /// pipe, so nothing of the protocol is consumed), then execs `/bin/sh -c COMMAND`.
    static let gate = #"IFS= read -r go && [ "$go" = go ] && exec /bin/sh -c "$1""#

    /// Writes `line` and a newline. False when the driver no longer reads (its stdin closed).
    @discardableResult
    func write(_ line: String) -> Bool {
        write { line }
    }

    /// Writes the line `make` builds, built under the write lock: what it reads (the clock's
    /// time) is in the order the lines go out. False when the driver no longer reads.
    @discardableResult
    func write(_ make: () -> String) -> Bool {
        let input = self.input
        return inputOpen.withLock { open in
            guard open else { return false }
            var bytes = Array((make() + "\n").utf8)[...]
            let deadline = ContinuousClock.now + Self.writeLimit
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { systemWrite(input, $0.baseAddress, $0.count) }
                if written > 0 {
                    bytes = bytes.dropFirst(written)
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), ContinuousClock.now < deadline {
                    // The pipe is full: wait until the driver reads, 100 ms at a time.
                    var watch = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
                    _ = systemPoll(&watch, 1, 100)
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Closes the driver's stdin (it reads end of file).
    func closeInput() {
        let input = self.input
        inputOpen.withLock { open in
            if open { close(input); open = false }
        }
    }

    /// How the process ended, if it has.
    func poll() -> Ending? {
        endingBox.withLock { $0 }
    }

    /// Waits up to `limit` of real time for the process to end.
    func wait(upTo limit: Duration) -> Ending? {
        if let ending = poll() { return ending }
        if exited.wait(timeout: .now() + Self.interval(limit)) == .success { exited.signal() }
        return poll()
    }

    /// Waits up to `limit` for every stderr line to be read (after the process group is gone).
    func waitForLogEnd(upTo limit: Duration) {
        if logEnded.wait(timeout: .now() + Self.interval(limit)) == .success { logEnded.signal() }
    }

    /// Kills the whole process group, waits for the process to be reaped, and lets the readers
    /// go once what the group wrote has been read (a descendant that left the group cannot hold
    /// them).
    func kill() {
        if poll() == nil {
            _ = systemKill(-pid, SIGKILL)
            _ = systemKill(pid, SIGKILL)
            _ = wait(upTo: .seconds(5))
        } else {
            // Whatever is left of its group (a child of the driver's) goes too.
            _ = systemKill(-pid, SIGKILL)
        }
        DriverWatchdog.release(pid)
        waitForLogEnd(upTo: .seconds(1))
        abandoned.withLock { $0 = true }
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        .nanoseconds(Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000))
    }

    private static func ending(_ status: Int32) -> Ending {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// A pipe whose ends are both close-on-exec. Made under ``spawnLock`` (pipe2 is not in
    /// every libc module), so no driver starting at the same time can inherit it in between.
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard fds.withUnsafeMutableBufferPointer({ pipe($0.baseAddress!) }) == 0 else { return false }
        return fds.allSatisfy { fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time so the
    /// package still builds where it is missing; there, close-on-exec on our own pipes is all.
    static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        #if os(Linux)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        _ = closeFrom(&actions, 3)
        #endif
    }

    /// Every driver process not yet reaped, by pid (each leads its own process group).
    private static let live = Locked<Set<pid_t>>([])

    /// Kills the process group of every driver still running: for a process about to exit at
    /// once (a second Ctrl-C, a signal while the first `hello` is awaited), which would otherwise
    /// leave them running in groups of their own.
    static func killEveryLiveGroup() {
        for pid in live.withLock({ $0 }) {
            _ = systemKill(-pid, SIGKILL)
        }
    }

    /// Held from making a driver's pipes until it has started.
    private static let spawnLock = NSLock()

    /// What a reader hands on: a line, or a line that outgrew ``maximumLine``.
    private enum Read {
        case line(String)
        case tooLong
    }

    /// A thread that reads `fd` until its end (or until `abandoned` is set), hands on every line
    /// and then nil, and closes it. Waits in poll(2) 100 ms at a time, so it notices `abandoned`.
    private static func read(_ fd: Int32, name: String, abandoned: Locked<Bool>, _ onLine: @escaping @Sendable (Read?) -> Void) {
        let thread = Thread {
            var pending: [UInt8] = []
            var skipping = false
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = systemPoll(&watch, 1, 100)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 {
                    if abandoned.withLock({ $0 }) { break }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                // A descendant that left the group and keeps writing must not hold the reader.
                if abandoned.withLock({ $0 }) { break }
                // Only the bytes just read can hold a new line's end: a long line costs its
                // length once, not once per read.
                var scanned = pending.count
                pending += buffer[0..<count]
                while let newline = pending[scanned...].firstIndex(of: 10) {
                    if skipping {
                        skipping = false
                    } else if newline > maximumLine {
                        onLine(.tooLong)
                    } else {
                        onLine(.line(String(decoding: pending[..<newline], as: UTF8.self)))
                    }
                    pending.removeSubrange(...newline)
                    scanned = 0
                }
                // A line with no end in sight is not a message: said once, the rest of it dropped,
                // so a driver cannot make the runner hold unbounded memory.
                if pending.count > maximumLine {
                    if !skipping { onLine(.tooLong) }
                    skipping = true
                    pending = []
                }
            }
            if !pending.isEmpty && !skipping { onLine(.line(String(decoding: pending, as: UTF8.self))) }
            close(fd)
            onLine(nil)
        }
        thread.name = name
        thread.start()
    }

    /// How long a write waits for a driver that does not read its stdin (a full pipe).
    static let writeLimit: Duration = .seconds(20)

    /// The longest line kept whole: 1 MiB.
    static let maximumLine = 1 << 20

    static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static let ignoreBrokenPipesOnce: Void = {
        // A driver that died while we write to it must cost an error, not this process.
        signal(SIGPIPE, SIG_IGN)
    }()
}

func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

private func systemKill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}

private func systemPoll(_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: Int32) -> Int32 {
    poll(fds, count, timeout)
}

private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, bytes, count)
}
