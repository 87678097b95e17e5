import Foundation
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
final class DriverChild: @unchecked Sendable {
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

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    private let input: Int32
    private let writeLock = NSLock()
    private let state = NSLock()
    private var inputOpen = true
    private var ending: Ending?
    private var reaped = false
    /// Signalled once the stderr reader has read to the end (every writer gone).
    private let logEnded = DispatchSemaphore(value: 0)

    /// Starts `command`. `onLine` gets each stdout line (without its newline), then nil at end
    /// of file; `onLog` each stderr line. Both run on the child's reader threads.
    init(command: String, environment: [String: String], onLine: @escaping @Sendable (String?) -> Void, onLog: @escaping @Sendable (String) -> Void) throws {
        _ = DriverChild.ignoreBrokenPipesOnce
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard Self.makePipe(&stdinPipe), Self.makePipe(&stdoutPipe), Self.makePipe(&stderrPipe) else {
            let error = errno
            for fd in stdinPipe + stdoutPipe + stderrPipe where fd >= 0 { close(fd) }
            throw SpawnError(description: "cannot make pipes for the driver: \(String(cString: strerror(error)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so stop and kill reach whatever the shell started; default
        // signal handling and an empty mask, whatever this process ignores or blocks.
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = ["/bin/sh", "-c", command]
        let environmentLines = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = Self.withCStrings(arguments) { argv in
            Self.withCStrings(environmentLines) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            }
        }
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
        Self.readLines(stdoutPipe[0], name: "flowcheck driver stdout") { onLine($0) }
        let logEnded = self.logEnded
        Self.readLines(stderrPipe[0], name: "flowcheck driver stderr") { line in
            if let line { onLog(line) } else { logEnded.signal() }
        }
    }

    deinit {
        writeLock.lock()
        if inputOpen { close(input) }
        writeLock.unlock()
    }

    /// Writes `line` and a newline. False when the driver no longer reads (its stdin closed).
    @discardableResult
    func write(_ line: String) -> Bool {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard inputOpen else { return false }
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { systemWrite(input, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Closes the driver's stdin (it reads end of file).
    func closeInput() {
        writeLock.lock()
        if inputOpen { close(input); inputOpen = false }
        writeLock.unlock()
    }

    /// How the process ended, if it has; reaps it without waiting.
    func poll() -> Ending? {
        state.lock()
        defer { state.unlock() }
        if let ending { return ending }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        reaped = true
        ending = Self.ending(status)
        return ending
    }

    /// Waits up to `limit` of real time for the process to end, looking every 5 ms.
    func wait(upTo limit: Duration) -> Ending? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let ending = poll() { return ending }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Waits up to `limit` for every stderr line to be read (after the process group is gone).
    func waitForLogEnd(upTo limit: Duration) {
        let nanoseconds = UInt64(limit.components.seconds) * 1_000_000_000 + UInt64(limit.components.attoseconds / 1_000_000_000)
        if logEnded.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success { logEnded.signal() }
    }

    /// Kills the whole process group and reaps the process.
    func kill() {
        if poll() != nil { return }
        _ = systemKill(-pid, SIGKILL)
        _ = systemKill(pid, SIGKILL)
        _ = wait(upTo: .seconds(5))
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

    /// Held from making a driver's pipes until it has started.
    private static let spawnLock = NSLock()

    /// A thread that reads `fd` to its end, hands on every line and then nil, and closes it.
    private static func readLines(_ fd: Int32, name: String, _ onLine: @escaping @Sendable (String?) -> Void) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 10) {
                    onLine(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
                // A line with no end in sight goes on as it is (it is not a message), so a
                // driver cannot make the runner hold unbounded memory.
                if pending.count > maximumLine {
                    onLine(String(decoding: pending, as: UTF8.self))
                    pending = []
                }
            }
            if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            close(fd)
            onLine(nil)
        }
        thread.name = name
        thread.start()
    }

    /// The longest line kept whole: 1 MiB.
    static let maximumLine = 1 << 20

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static let ignoreBrokenPipesOnce: Void = {
        // A driver that died while we write to it must cost an error, not this process.
        signal(SIGPIPE, SIG_IGN)
    }()
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

private func systemKill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
