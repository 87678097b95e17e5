import Foundation
import FlowCheckTestLanes
import FlowCheckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `flowcheck` killed with SIGKILL (nothing of it runs to clean up) takes its drivers with it:
/// a driver that never reads its input, and what that driver started, are killed by the
/// watchdog once `flowcheck` is gone.
@Suite(.integration, .timeLimit(.minutes(20)))
struct DriverWatchdogBinaryTests {
    typealias Binary = FlowCheckBinaryTests

    /// Whether `pid` still runs (a zombie waiting for its reaper does not).
    static func running(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            return kill(pid, 0) == 0
        }
        return !status.split(separator: "\n").contains { $0.hasPrefix("State:") && $0.contains("Z") }
    }

    /// Waits off the task pool (a hang detector, not a speed test) until `file` holds a line.
    static func line(in file: String, within seconds: TimeInterval = 60) async throws -> String? {
        try await offThePool("the driver's pid file") {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until {
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                if text.hasSuffix("\n") { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
                sched_yield()
            }
            return nil
        }
    }

    /// Waits off the pool until `pid` no longer runs, or `seconds` pass.
    static func gone(_ pid: Int32, within seconds: TimeInterval = 30) async throws -> Bool {
        try await offThePool("the driver's end") {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, running(pid) { sched_yield() }
            return !running(pid)
        }
    }

    /// Attempts, each judged only if the driver still ran when the test acted: on a machine so
    /// busy that a shell takes longer to start than the driver protocol's own 15 s deadline,
    /// flowcheck ends the driver first and the attempt says nothing (it is made again).
    static let attempts = 5

    @Test func aKilledFlowcheckLeavesNoDriverRunning() async throws {
        var judged = false
        for attempt in 1...Self.attempts where !judged {
            let root = try Binary.workspace(["moltin/one.json": Binary.spec(id: "E2E-1", productCount: "2")])
            defer { try? FileManager.default.removeItem(at: root) }
            let pidFile = root.appendingPathComponent("driver.pid").path
            // A driver that ignores its input for good, and a process it started in its group.
            let command = "sleep 1000 & echo $! > '\(pidFile)'; wait"
            let child = try await ChildProcess.launch(
                "flowcheck --driver (killed with SIGKILL, attempt \(attempt))", executable: try Binary.binary(), arguments: ["--driver", command, "specs/"],
                directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline
            )
            defer { child.kill() }
            let pid = try #require(try await Self.line(in: pidFile).flatMap { Int32($0) }, "the driver never started")
            guard Self.running(pid) else { continue }
            child.signal(SIGKILL)
            _ = try await child.exitStatus()
            judged = true
            let ended = try await Self.gone(pid)
            #expect(ended, "the driver's child \(pid) still runs 30 s after flowcheck was killed")
            if !ended { kill(pid, SIGKILL) }
        }
        #expect(judged, "in \(Self.attempts) attempts the driver never outlived flowcheck's own deadline")
    }

    /// Ctrl-C while `flowcheck matrix` waits for a driver's first hello ends the wait at once
    /// (it used to last out the 15 s hello deadline, then run the matrix), with the driver killed.
    @Test func matrixStopsAtOnceWhileWaitingForAHello() async throws {
        var judged = false
        for attempt in 1...Self.attempts where !judged {
            let root = try Binary.workspace(["moltin/one.json": Binary.spec(id: "E2E-1", productCount: "2")])
            defer { try? FileManager.default.removeItem(at: root) }
            let marker = root.appendingPathComponent("driver.pid").path
            let silent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Drivers/misbehaving/misbehaving.py").path
            let command = "echo $$ > '\(marker)'; exec python3 '\(silent)' silent -"
            let child = try await ChildProcess.launch(
                "flowcheck matrix (SIGINT before hello, attempt \(attempt))", executable: try Binary.binary(), arguments: ["matrix", "--driver", "silent=\(command)", "--markdown", "m.md", "--json", "m.json", "specs/"],
                directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline
            )
            defer { child.kill() }
            let pid = try #require(try await Self.line(in: marker).flatMap { Int32($0) }, "the driver never started")
            child.interrupt()
            let status = try await child.exitStatus()
            // The hello deadline came first: this attempt judged nothing.
            if child.stderr.text.contains("did not send hello within") { continue }
            judged = true
            #expect(status == 130)
            #expect(child.stderr.text.contains("matrix interrupted by SIGINT while starting silent; nothing written"), "\(child.stderr.text)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("m.md").path))
            #expect(try await Self.gone(pid), "the probed driver \(pid) still runs")
        }
        #expect(judged, "in \(Self.attempts) attempts the hello deadline always came first")
    }
}
