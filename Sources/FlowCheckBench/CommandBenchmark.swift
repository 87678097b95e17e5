import Foundation

/// Times `flowcheck specs/` as a user runs it: the release `flowcheck` beside this benchmark,
/// a process of its own, its reports written at their default paths over the previous run's.
/// The in-process suite figure leaves out what only the command does (start-up, reading the
/// previous reports, writing the new ones): a run after a run once took 17 s there, unseen.
struct CommandBenchmark {
    struct Figure {
        var best: Double
        var worst: Double
        /// CPU seconds of the best run (the child's, on all its threads).
        var cpuSeconds: Double
        var runs: Int
        var command: String
        /// The binary timed: `swift build -c release --product flowcheck-bench` does not
        /// rebuild it, so the line names it (build both: `swift build -c release`).
        var binary: String

        var lines: [String] {
            ["command: \(Format.fixed(best, 2)) s best, \(Format.fixed(worst, 2)) s worst of \(runs) (\(command), after a warm-up that leaves the previous run's reports; \(binary))"]
        }
        var cpuLine: String { "command cpu: \(Format.fixed(cpuSeconds, 2)) s" }
    }

    let directory: String
    let runs: Int

    /// - Throws: ``BenchError`` when the binary is missing or a run does not exit 0.
    func run() throws(BenchError) -> Figure {
        let binary = Self.binary()
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw .usage("no flowcheck beside this benchmark at \(binary): swift build -c release --product flowcheck")
        }
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        let command = "flowcheck " + folder
        // The warm-up also writes the reports every timed run then finds at their paths.
        _ = try Self.timeOnce(binary, folder: folder)
        var (best, worst, bestCPU) = (Double.infinity, 0.0, 0.0)
        for _ in 0..<max(1, runs) {
            let (seconds, cpu) = try Self.timeOnce(binary, folder: folder)
            if seconds < best { (best, bestCPU) = (seconds, cpu) }
            worst = max(worst, seconds)
        }
        return Figure(best: best, worst: worst, cpuSeconds: bestCPU, runs: max(1, runs), command: command, binary: binary)
    }

    /// `flowcheck` in this benchmark's own folder (`.build/release/`), wherever it was started
    /// from.
    static func binary() -> String {
        me().deletingLastPathComponent().appendingPathComponent("flowcheck").path
    }

    /// This executable, as the system knows it (not `argv[0]`, which a PATH search leaves
    /// relative to nothing).
    private static func me() -> URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath()
    }

    private static func timeOnce(_ binary: String, folder: String) throws(BenchError) -> (seconds: Double, cpu: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [folder]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let cpuBefore = ProcessCPU.childrenSeconds()
        let start = ContinuousClock.now
        do {
            try process.run()
        } catch {
            throw .harness("could not start \(binary): \(error)")
        }
        process.waitUntilExit()
        let seconds = Stopwatch.seconds(ContinuousClock.now - start)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw .flowsFailed("\(binary) \(folder) ended with \(process.terminationReason == .exit ? "exit code" : "signal") \(process.terminationStatus): run it to see why")
        }
        return (seconds, ProcessCPU.childrenSeconds() - cpuBefore)
    }
}
