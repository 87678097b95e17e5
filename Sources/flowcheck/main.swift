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
    static let outputLock = NSLock()
    static let stopSignal = DispatchSemaphore(value: 0)

    static func out(_ text: String) {
        outputLock.lock()
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
        outputLock.unlock()
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Carriage return and erase-line: the progress line rewrites itself in place.
    static func progress(_ text: String) {
        outputLock.lock()
        FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text).utf8))
        outputLock.unlock()
    }

    /// Ctrl-C and SIGTERM end `serve` cleanly instead of killing the process mid-write.
    static func installSignalHandlers() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopSignal.signal() }
            source.resume()
            return source
        }
    }

    static func waitForStop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A thread of its own: a blocking wait must not hold one of Dispatch's workers.
            Thread.detachNewThread {
                stopSignal.wait()
                continuation.resume()
            }
        }
    }

    static func main() async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let console = FlowCheckCommand.Console(out: out, err: err, progress: isTerminal ? progress : nil)
        let settings = FlowCheckCommand.Environment(
            githubActions: environment["GITHUB_ACTIONS"] == "true",
            stepSummaryPath: environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 },
            colour: isTerminal && environment["NO_COLOR"] == nil,
            now: { Date() },
            waitForStop: waitForStop
        )
        let sources = installSignalHandlers()
        defer { sources.forEach { $0.cancel() } }
        return await FlowCheckCommand().run(Array(CommandLine.arguments.dropFirst()), console: console, environment: settings).rawValue
    }
}

exit(await Entry.main())
