import Foundation
import Testing
import FlowCheckFakeServer
import FlowCheckTestLanes
@testable import FlowCheckRunner
import FlowCheckProcessDriver

/// The stall judge stretches its grace by how crowded the processors are: a conforming
/// client's timeout, which follows the flow's clock, took 3.6 s of real time to end its
/// request under 16 busy loops on two cores, past the idle machine's 2 s, and FLT-STALL failed
/// our own SDK core. The stretch must see a crowd it is part of.
@Suite(.integration, .timeLimit(.minutes(20)))
struct StallJudgeStretchTests {
    @Test func aCrowdedMachineStretchesTheGrace() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let stop = Locked(false)
        // Twice as many spinning threads as cores: every thread waits for its turn.
        let spinners = (0..<(2 * cores)).map { _ in
            let thread = Thread {
                var sink = 0
                while !stop.withLock({ $0 }) { for index in 0..<10_000 { sink &+= index } }
                withExtendedLifetime(sink) {}
            }
            thread.start()
            return thread
        }
        defer { stop.withLock { $0 = true } }
        _ = spinners
        let stretch = await Task.detached { StallJudge.cpuStretch() }.value
        // About 2 + 1/cores here; more on a machine already busy. Never below 1.
        #expect(stretch > 1.5, "a spin among \(2 * cores) spinning threads on \(cores) cores ran at \(stretch)x its CPU time")
    }

    /// The judge's latest verdict, unstarved (the stretched grace, then a probe's wait), comes
    /// before the authlib driver's wall-clock timeout could end the stalled request and pass
    /// FLT-STALL, and that timeout before the runner's answer deadline: else the matrix cell
    /// would depend on the machine's load.
    @Test func theLatestVerdictComesBeforeTheShortestWallClockTimeoutWeRun() throws {
        let source = try String(contentsOf: ProcessDriverTests.root.appendingPathComponent("Tests/Drivers/authlib/authlib_driver.py"), encoding: .utf8)
        let line = try #require(source.split(separator: "\n").first { $0.hasPrefix("REAL_TIMEOUT = ") })
        let timeout = try #require(Double(line.dropFirst("REAL_TIMEOUT = ".count).prefix { $0.isNumber || $0 == "." }))
        let latest = StallJudge.grace * StallJudge.maxStretch + StallJudge.grace
        #expect(latest + 4 <= timeout, "the judge may speak \(latest) s after the stall; authlib times out at \(timeout) s")
        #expect(timeout < Double(FlowCheckProcessDriver.ProcessDriver.Deadlines().answer.components.seconds), "authlib's timeout must end a request before the answer deadline")
    }
}

