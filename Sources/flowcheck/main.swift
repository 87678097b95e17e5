import Dispatch
import FlowCheckCLI
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The executable stays thin: it reads the environment, wires stdout, stderr and signals, and
/// leaves every decision to FlowCheckCLI, where it is tested.
enum Entry {
    static let stdout = ConsoleStream(descriptor: STDOUT_FILENO)
    static let stderr = ConsoleStream(descriptor: STDERR_FILENO)
    static let interrupt = InterruptSignal()

    static func out(_ text: String) {
        stdout.write(text + "\n")
    }

    static func err(_ text: String) {
        stderr.write(text + "\n")
    }

    /// Carriage return and erase-line: the progress line rewrites itself in place.
    static func progress(_ text: String) {
        stdout.write("\r\u{1B}[2K" + text)
    }

    /// The first SIGINT or SIGTERM interrupts a command that handles it (a run stops starting
    /// flows, cancels the running ones and writes its reports; `serve` stops); a second one, or
    /// one that the command does not handle (`validate`, `explore`, `--list`), exits at once.
    static func installSignalHandlers() -> [DispatchSourceSignal] {
        let count = NSLock()
        nonisolated(unsafe) var received = 0
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                count.lock()
                received += 1
                let first = received == 1
                count.unlock()
                if first, interrupt.isHandled {
                    interrupt.deliver(number)
                } else {
                    _exit(InterruptSignal.exitStatus(for: number))
                }
            }
            source.resume()
            return source
        }
    }

    static func main() async -> Int32 {
        ConsoleStream.ignoreBrokenPipes()
        let environment = ProcessInfo.processInfo.environment
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let console = FlowCheckCommand.Console(out: out, err: err, progress: isTerminal ? progress : nil)
        let settings = FlowCheckCommand.Environment(
            githubActions: environment["GITHUB_ACTIONS"] == "true",
            stepSummaryPath: environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 },
            colour: isTerminal && environment["NO_COLOR"] == nil,
            now: { Date() },
            interrupt: interrupt
        )
        let sources = installSignalHandlers()
        defer { sources.forEach { $0.cancel() } }
        return await FlowCheckCommand().run(Array(CommandLine.arguments.dropFirst()), console: console, environment: settings).rawValue
    }
}

exit(await Entry.main())
