import FlowCheckFakeServer
import FlowCheckProcessDriver
import FlowCheckReports
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP (a closed terminal, a supervisor's reload) for the process,
/// handled alike on a thread of FlowCheck's own.
///
/// Never on the main thread or queue, nor on Dispatch's global queues: a driver in process may
/// block any of those (a `perform` stuck on `DispatchQueue.main.sync {}` holds a pool thread
/// and waits on a main thread that is itself blocked; on Linux the global queues are the same
/// few threads as Swift's task pool). The signal handler only writes the signal's number to a
/// pipe (all a handler may safely do); the watcher thread reads it and acts:
///
/// - the first signal, while a command handles it (a run, `serve`): delivered to the
///   ``InterruptSignal``, and a hang detector armed: should the command not end within
///   ``endLimit`` (a driver blocks every thread it needs), the process exits anyway, with
///   128 + the signal, saying so on stderr;
/// - a second signal, or one no command handles: every driver process group is killed and the
///   process exits at once.
enum ProcessSignals {
    /// How long the first signal leaves a command to finish (write its reports, stop its
    /// drivers) before the process ends without it. A hang detector, never reached by a run
    /// whose flows end when cancelled: an interrupted run leaves flows that do not end behind
    /// after ``FlowCheckCommand/windDown``.
    static let endLimit: TimeInterval = 30

    /// The command's interrupt, while one runs.
    private static let target = Locked<InterruptSignal?>(nil)
    /// Signals received so far.
    private static let received = Locked(0)
    /// The pipe's ends, once installed.
    private static let installed = Locked<Bool>(false)

    /// The signals that end a run: an interrupt, a termination, a hang-up.
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Routes SIGINT, SIGTERM and SIGHUP to `interrupt` from now on (installing the handler and the
    /// watcher thread the first time).
    static func route(to interrupt: InterruptSignal) {
        target.withLock { $0 = interrupt }
        received.withLock { $0 = 0 }
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { return }
            signalPipeWriteEnd = ends[1]
            let readEnd = ends[0]
            let watcher = Thread { watch(readEnd) }
            watcher.name = "flowcheck signals"
            watcher.stackSize = 256 * 1024
            watcher.start()
        }
        for number in handled { signal(number, forwardSignal) }
    }

    /// Back to the default dispositions once the command has returned.
    static func unroute() {
        target.withLock { $0 = nil }
        for number in handled { signal(number, SIG_DFL) }
    }

    /// Ends the process with `status` from the calling thread, whatever the main thread is
    /// doing; should `exit` itself hang (a lock a blocked thread holds), `_exit` ends it.
    static func end(_ status: Int32) -> Never {
        ProcessDriver.killEveryDriverProcess()
        let backstop = Thread {
            Thread.sleep(forTimeInterval: 5)
            _exit(status)
        }
        backstop.name = "flowcheck exit backstop"
        backstop.start()
        exit(status)
    }

    private static func watch(_ readEnd: Int32) {
        // This thread takes the signals whatever mask the process started with: a child
        // spawned from a thread that blocks them (Dispatch's workers block every signal)
        // inherits that mask, and a signal every thread blocks is never delivered.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in handled { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        while true {
            var byte: UInt8 = 0
            let count = read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            let number = Int32(byte)
            let count2 = received.withLock { count -> Int in
                count += 1
                return count
            }
            let interrupt = target.withLock { $0 }
            if count2 == 1, let interrupt, interrupt.isHandled {
                interrupt.deliver(number)
                let detector = Thread {
                    Thread.sleep(forTimeInterval: endLimit)
                    let message = "flowcheck: \(InterruptSignal.name(of: number)): the command did not end within \(Int(endLimit)) s (a driver blocks the threads it needs); exiting without it\n"
                    _ = DescriptorWrite.all(message, to: STDERR_FILENO)
                    ProcessDriver.killEveryDriverProcess()
                    _exit(InterruptSignal.exitStatus(for: number))
                }
                detector.name = "flowcheck signal hang detector"
                detector.start()
            } else {
                // Driver processes lead groups of their own: the terminal's signal never
                // reached them, and nothing else would end them.
                ProcessDriver.killEveryDriverProcess()
                _exit(InterruptSignal.exitStatus(for: number))
            }
        }
    }
}

/// Where the signal handler writes: set once, before any handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: the signal's number into the pipe, nothing else (async-signal-safe).
private func forwardSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    let saved = errno
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}
