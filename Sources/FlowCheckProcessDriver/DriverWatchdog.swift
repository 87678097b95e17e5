import Foundation
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small process that kills the driver process groups `flowcheck` leaves behind when it dies
/// without cleaning up (SIGKILL, a crash, the OOM killer): a driver that does not end at the end
/// of its input would otherwise run on for good.
///
/// `/bin/sh` in a process group of its own, reading a pipe only this process can write to
/// (close-on-exec, and every driver is started with every other descriptor closed). Each driver
/// group is announced (`+PGID`) when it starts and withdrawn (`-PGID`) once reaped; when the pipe
/// reads end of file, this process is gone, and the watchdog kills every group still announced,
/// then exits. Portable: no parent-death signal, which on Linux would reach only the driver's
/// shell (never what it started) and fire when the spawning thread ends, not the process.
enum DriverWatchdog {
    /// The shell script: the groups announced, kept in one string; at end of input, killed.
    static let script = """
        trap '' HUP INT TERM
        groups=' '
        while IFS= read -r line; do
          case "$line" in
            +*) groups="$groups${line#+} " ;;
            -*) gone=${line#-}; kept=' '
                for group in $groups; do [ "$group" = "$gone" ] || kept="$kept$group "; done
                groups=$kept ;;
          esac
        done
        for group in $groups; do kill -9 "-$group" 2>/dev/null; done
        """

    /// The pipe's write end once the watchdog runs; -1 when it could not start (drivers still
    /// run, and a clean exit still stops them).
    private static let writeEnd = Locked<Int32?>(nil)

    /// Announces a driver's process group (started under the spawn lock).
    static func watch(_ group: pid_t) {
        send("+\(group)\n")
    }

    /// Withdraws a group once its leader is reaped.
    static func release(_ group: pid_t) {
        send("-\(group)\n")
    }

    /// Best effort, never blocking: a watchdog that is stopped (SIGSTOP, a paused container)
    /// or gone must not hold up a driver's start or a reaper; a line it cannot take is lost.
    private static func send(_ line: String) {
        writeEnd.withLock { end in
            if end == nil { end = start() }
            guard let fd = end, fd >= 0 else { return }
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
                if written > 0 { bytes = bytes.dropFirst(written) } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    /// Starts the watchdog; its pipe's write end, or -1.
    private static func start() -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard ends.withUnsafeMutableBufferPointer({ pipe($0.baseAddress!) }) == 0 else { return -1 }
        guard ends.allSatisfy({ fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }) else {
            ends.forEach { close($0) }
            return -1
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        // Its own process group, so no signal for a driver's group or the terminal reaches it.
        let (pid, status) = DriverChild.spawnShell(["-c", script], environment: ["PATH=/usr/bin:/bin"], stdin: ends[0], stdout: max(null, 0), stderr: max(null, 0))
        close(ends[0])
        if null >= 0 { close(null) }
        guard status == 0 else {
            close(ends[1])
            return -1
        }
        // Lines go out whole (each is far below PIPE_BUF) or not at all, never blocking.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        // It exits only once this process has gone (or stopped announcing): reaped then, so it
        // is never a zombie of a long run.
        let watchdog = pid
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(watchdog, &status, 0) < 0 && errno == EINTR {}
        }
        reaper.name = "flowcheck driver watchdog reaper"
        reaper.stackSize = 64 * 1024
        reaper.start()
        return ends[1]
    }
}
