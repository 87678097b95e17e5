import Dispatch
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
/// exit(await FlowCheckMain.run(driver: MyDriver()))
/// ```
///
/// with the same options, console, reports, signals and exit codes as `flowcheck`. This is the
/// one place that touches the process: it reads the environment, wires stdout and stderr (written
/// with write(2): a console that goes away never costs the run) and SIGINT/SIGTERM, and returns
/// the exit status for the caller to exit with.
public enum FlowCheckMain {
    /// Runs `arguments` (the process's, without the program name, by default) through `driver`.
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
        let sources = installSignalHandlers(interrupt)
        defer { sources.forEach { $0.cancel() } }
        return await FlowCheckCommand(driver: driver).run(arguments, console: console, environment: settings).rawValue
    }

    /// The first SIGINT or SIGTERM interrupts a command that handles it (a run stops starting
    /// flows, cancels the running ones and writes its reports; `serve` stops); a second one, or
    /// one that the command does not handle (`validate`, `explore`, `--list`, a run still
    /// loading its specs), exits at once with 128 + the signal.
    private static func installSignalHandlers(_ interrupt: InterruptSignal) -> [DispatchSourceSignal] {
        // Signals received so far, counted across the handlers' queue.
        let received = Locked(0)
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.withLock({ count in count += 1; return count }) == 1, interrupt.isHandled {
                    interrupt.deliver(number)
                } else {
                    // Driver processes lead groups of their own: the terminal's signal never
                    // reached them, and nothing else would end them.
                    ProcessDriver.killEveryDriverProcess()
                    _exit(InterruptSignal.exitStatus(for: number))
                }
            }
            source.resume()
            return source
        }
    }
}
