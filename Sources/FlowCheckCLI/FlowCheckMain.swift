import FlowCheckCoreDriver
import FlowCheckFakeServer
import FlowCheckProcessDriver
import FlowCheckRunner
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole `flowcheck` command line for any driver: a team's own executable is
///
/// ```swift
/// import FlowCheckCLI
/// await FlowCheckMain.runAndExit(driver: MyDriver())
/// ```
///
/// with the same options, console, reports, signals and exit codes as `flowcheck`. This is the
/// one place that touches the process: it reads the environment, wires stdout and stderr (written
/// with write(2): a console that goes away never costs the run) and SIGINT/SIGTERM/SIGHUP (on a thread
/// of its own: a driver that blocks the main thread or the task pool cannot make the process
/// deaf to Ctrl-C), and ends the process or returns the exit status for the caller to exit with.
public enum FlowCheckMain {
    /// Runs `arguments` (the process's, without the program name, by default) through `driver`,
    /// and returns the exit status for the caller to exit with.
    ///
    /// A run a signal interrupted does not return: once its reports are written it ends the
    /// process itself, with 130, 143 or 129, because the signal asked for that and the caller's code
    /// may resume on a thread the driver blocks (top-level code resumes on the main thread).
    /// For the same reason prefer ``runAndExit(driver:arguments:)``, which also ends an
    /// uninterrupted run from the task that finished it.
    /// - Returns: the exit status (see ``FlowCheckCommand/ExitCode``).
    public static func run(driver: any FlowDriver = CoreSDKDriver(), arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        ConsoleStream.ignoreBrokenPipes()
        let stdout = ConsoleStream(descriptor: STDOUT_FILENO)
        let stderr = ConsoleStream(descriptor: STDERR_FILENO)
        let interrupt = InterruptSignal()
        let environment = ProcessInfo.processInfo.environment
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let out: @Sendable (String) -> Void = { stdout.write($0 + "\n") }
        let err: @Sendable (String) -> Void = { stderr.write($0 + "\n") }
        // Carriage return and erase-line: the progress line rewrites itself in place.
        let rewrite: @Sendable (String) -> Void = { stdout.write("\r\u{1B}[2K" + $0) }
        let progress: (@Sendable (String) -> Void)? = isTerminal ? rewrite : nil
        let console = FlowCheckCommand.Console(out: out, err: err, progress: progress)
        let settings = FlowCheckCommand.Environment(
            githubActions: environment["GITHUB_ACTIONS"] == "true",
            stepSummaryPath: environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 },
            colour: isTerminal && environment["NO_COLOR"] == nil,
            now: { Date() },
            interrupt: interrupt
        )
        ProcessSignals.route(to: interrupt)
        let status = await FlowCheckCommand(driver: driver).run(arguments, console: console, environment: settings).rawValue
        if interrupt.signal != nil { ProcessSignals.end(status) }
        ProcessSignals.unroute()
        return status
    }

    /// Runs `arguments` through `driver`, as ``run(driver:arguments:)`` does, and ends the process
    /// with the exit status from the task that finished the run: never from the main thread,
    /// which a driver may block (an SDK that waits on the main queue), so the process ends
    /// when the run does, whatever the driver left blocked.
    public static func runAndExit(driver: any FlowDriver = CoreSDKDriver(), arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        let status = await run(driver: driver, arguments: arguments)
        ProcessSignals.end(status)
    }
}
