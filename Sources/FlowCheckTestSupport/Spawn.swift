import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for tests that run a binary: its pid, and the
/// read ends of its stdout and stderr.
///
/// Not Foundation's `Process`: on Linux (swift-corelibs-foundation up to 6.3) `Process.run()`
/// reads `/proc/self/fd` with a `struct dirent` copy that can over-read its buffer and crash
/// the whole test process now and then (swift-corelibs-foundation PR #5472); a suite that
/// starts hundreds of children under load hits it. This starts the child with default signal
/// handling and an empty signal mask (whatever the tests ignore, SIGPIPE included), stdin on
/// /dev/null, and no other descriptor of the test process.
///
/// ```swift
/// let child = try Spawned(executable: "/bin/echo", arguments: ["hi"])
/// let status = child.waitForExit()   // blocking: call it on a thread of its own
/// ```
public final class Spawned: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The read end of its stdout; the caller reads and closes it.
    public let stdout: Int32
    /// The read end of its stderr; the caller reads and closes it.
    public let stderr: Int32

    /// Starts `executable` with `arguments` (not including argv[0]).
    /// - Parameters:
    ///   - environment: the child's whole environment; nil inherits this process's.
    ///   - directory: its working directory; nil inherits this process's.
    /// - Throws: ``SpawnFailed`` naming the executable and the cause.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil, directory: String? = nil) throws {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard Self.pipe(&out), Self.pipe(&err) else {
            let code = errno
            for fd in out + err where fd >= 0 { close(fd) }
            throw SpawnFailed(description: "\(executable): cannot make pipes: \(String(cString: strerror(code)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        // Nothing else of the test process (a fake's socket without close-on-exec) reaches it.
        Self.fileAction("posix_spawn_file_actions_addclosefrom_np", &actions) { function, actions in
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(function, to: CloseFrom.self)(actions, 3)
        }
        var executable = executable, arguments = arguments
        if let directory {
            let changed = Self.fileAction("posix_spawn_file_actions_addchdir_np", &actions) { function, actions in
                typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
                _ = directory.withCString { unsafeBitCast(function, to: ChangeDirectory.self)(actions, $0) }
            }
            if !changed {
                // No addchdir in this libc: a shell changes directory, then becomes the child.
                arguments = ["-c", "cd -- \"$0\" && exec \"$@\"", directory, executable] + arguments
                executable = "/bin/sh"
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = Self.withCStrings([executable] + arguments) { argv in
            Self.withCStrings(environmentLines) { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        close(out[1])
        close(err[1])
        guard status == 0 else {
            close(out[0])
            close(err[0])
            throw SpawnFailed(description: "\(executable): cannot start: \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.stdout = out[0]
        self.stderr = err[0]
    }

    /// Sends `signal` (SIGINT, SIGKILL...) to the child.
    public func signal(_ number: Int32) {
        _ = kill(pid, number)
    }

    /// Waits for the child to end and reaps it: its exit status, or the number of the signal
    /// that ended it (as `Process.terminationStatus` has it). Blocks: call it on a thread of
    /// its own, never on the cooperative pool.
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let low = status & 0x7f
        return low == 0 ? (status >> 8) & 0xff : low
    }

    /// A pipe whose ends are close-on-exec (a child started meanwhile by other code may still
    /// inherit it in between; closefrom in our children keeps ours from theirs).
    private static func pipe(_ fds: inout [Int32]) -> Bool {
        guard fds.withUnsafeMutableBufferPointer({ Foundation.pipe($0.baseAddress!) }) == 0 else { return false }
        return fds.allSatisfy { fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }
    }

    /// Adds the file action `name` (a libc extension, looked up at run time so the package
    /// builds where it is missing) through `add`; false if this libc has none.
    @discardableResult
    private static func fileAction(_ name: String, _ actions: inout posix_spawn_file_actions_t, _ add: (UnsafeMutableRawPointer, UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Void) -> Bool {
        #if os(Linux)
        let everywhere: UnsafeMutableRawPointer? = nil   // RTLD_DEFAULT
        #else
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)   // RTLD_DEFAULT
        #endif
        guard let function = dlsym(everywhere, name) else { return false }
        withUnsafeMutablePointer(to: &actions) { add(function, $0) }
        return true
    }

    private static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        var pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        return body(pointers)
    }
}

/// Why a child could not be started.
public struct SpawnFailed: Error, CustomStringConvertible, Sendable {
    public let description: String
}
