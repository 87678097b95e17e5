import Foundation
import FlowCheckFakeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The executable's entry point: the only place that prints and exits. Each benchmark returns
/// its figures or throws; this wires them to stdout, stderr and an exit code.
enum BenchEntry {
    /// A closed pipe (`| head -1`) must not trap: the fake server ignores SIGPIPE, so the
    /// write fails instead, and the throwing `write(contentsOf:)` lets that pass quietly.
    static func out(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    static func main() async -> Int32 {
        let options: BenchOptions
        do {
            options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            err("flowcheck-bench: \(error)")
            err(BenchOptions.usage)
            return BenchError.Exit.usage.rawValue
        }
        if options.help {
            out(BenchOptions.usage)
            return 0
        }
        if let note = MachineLoad.note() { err("flowcheck-bench: note: \(note)") }
        do throws(BenchError) {
            if options.parts.contains(.suite) {
                let suite = try await SuiteBenchmark(directory: options.specsDirectory, concurrency: options.jobs, runs: options.suiteRuns).run()
                out(suite.line)
                if options.cpu { out(suite.cpuLine) }
            }
            if options.parts.contains(.command) {
                let command = try CommandBenchmark(directory: options.specsDirectory, runs: options.suiteRuns).run()
                command.lines.forEach(out)
                if options.cpu { out(command.cpuLine) }
            }
            if options.parts.contains(.flows) {
                var figures: [FlowThroughputBenchmark.Figure] = []
                for count in options.flowCounts {
                    let flows = try await FlowThroughputBenchmark(count: count, concurrency: options.jobs).run()
                    out(flows.line)
                    if options.cpu { out(flows.cpuLine) }
                    figures.append(flows)
                }
                FlowThroughputBenchmark.marginalLines(figures).forEach(out)
            }
            for (part, floor, name) in [(BenchOptions.Part.transport, TransportFloorBenchmark.Floor.transport, "transport alone"), (.sdk, .sdk, "SDK alone")] where options.parts.contains(part) {
                var figures: [FlowThroughputBenchmark.Figure] = []
                for count in options.flowCounts {
                    let figure = try await TransportFloorBenchmark(count: count, concurrency: options.jobs, floor: floor).run()
                    out("\(name) (\(figure.count) flows): \(Format.whole(figure.perSecond)) flows/s")
                    if options.cpu { out(figure.cpuLine.replacingOccurrences(of: "generated", with: name)) }
                    figures.append(figure)
                }
                FlowThroughputBenchmark.marginalLines(figures).map { $0.replacingOccurrences(of: "generated", with: name) }.forEach(out)
            }
            if options.parts.contains(.requests) {
                let load = try HTTPLoadBenchmark(connections: options.connections, requests: options.requests, target: options.trivialResponder ? .trivialResponder : .fakeMoltin).run()
                load.lines.forEach(out)
                if options.cpu { out(load.cpuLine) }
            }
            if options.parts.contains(.explore) {
                let explore = try await ExploreBenchmark(runs: 2000, concurrency: options.jobs).run()
                out(explore.line)
                if options.cpu { out(explore.cpuLine) }
            }
            var holds = true
            if options.parts.contains(.serveSoak) {
                let soak = try ServeSoakBenchmark(tokens: options.soakTokens, baselineSeconds: options.soakBaselineSeconds, soakSeconds: options.soakSeconds).run()
                soak.lines.forEach(out)
                holds = soak.throughputHolds && soak.memoryHolds
            }
            if options.parts.contains(.hostile) {
                let hostile = try HostileClientsBenchmark().run()
                hostile.lines.forEach(out)
                holds = holds && hostile.holds
            }
            if options.parts.contains(.driverOverhead) {
                let figures = try await DriverOverheadBenchmark(directory: options.specsDirectory, commands: options.driverCommands, runs: options.suiteRuns).run()
                DriverOverheadBenchmark.lines(figures).forEach(out)
            }
            out(PeakMemory.line())
            return holds ? 0 : BenchError.Exit.flowFailed.rawValue
        } catch {
            err("flowcheck-bench: \(error)")
            return error.exit.rawValue
        }
    }
}

// Not `exit(await BenchEntry.main())`: an async top level parks the main thread in
// dispatch_main's sigsuspend, which valgrind 3.19 dies on, and this program exists to be
// profiled with callgrind. A detached task (not a main-actor one: the main thread is blocked)
// plus a semaphore runs the same code under both.
/// The exit code, handed from the task back to the main thread.
private let exitCode = Locked<Int32>(0)
private let finished = DispatchSemaphore(value: 0)
Task.detached {
    let code = await BenchEntry.main()
    exitCode.withLock { $0 = code }
    finished.signal()
}
finished.wait()
exit(exitCode.withLock { $0 })
