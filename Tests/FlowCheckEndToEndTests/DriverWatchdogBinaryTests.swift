import Foundation
import FlowCheckTestLanes
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

    @Test func aKilledFlowcheckLeavesNoDriverRunning() async throws {
        let root = try Binary.workspace(["moltin/one.json": Binary.spec(id: "E2E-1", productCount: "2")])
        defer { try? FileManager.default.removeItem(at: root) }
        let pidFile = root.appendingPathComponent("driver.pid").path
        // A driver that ignores its input for good, and a process it started in its group.
        let command = "sleep 1000 & echo $! > '\(pidFile)'; wait"
        let child = try await ChildProcess.launch(
            "flowcheck --driver (killed with SIGKILL)", executable: try Binary.binary(), arguments: ["--driver", command, "specs/"],
            directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline
        )
        defer { child.kill() }
        // The driver has started (flowcheck now waits for its hello): a hang detector, not a speed test.
        let started = Date().addingTimeInterval(60)
        var text = ""
        while Date() < started {
            text = (try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { break }
            sched_yield()
        }
        let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), "the driver never started")
        #expect(Self.running(pid))
        child.signal(SIGKILL)
        _ = try await child.exitStatus()
        let killedAt = Date()
        while Date() < killedAt.addingTimeInterval(30), Self.running(pid) { sched_yield() }
        #expect(!Self.running(pid), "the driver's child \(pid) still runs 30 s after flowcheck was killed")
        if Self.running(pid) { kill(pid, SIGKILL) }
    }

    /// Ctrl-C while `flowcheck matrix` waits for a driver's first hello ends the wait at once
    /// (it used to last out the 15 s hello deadline, then run the matrix), with the driver killed.
    @Test func matrixStopsAtOnceWhileWaitingForAHello() async throws {
        let root = try Binary.workspace(["moltin/one.json": Binary.spec(id: "E2E-1", productCount: "2")])
        defer { try? FileManager.default.removeItem(at: root) }
        let marker = root.appendingPathComponent("driver.pid").path
        let silent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Drivers/misbehaving/misbehaving.py").path
        let command = "echo $$ > '\(marker)'; exec python3 '\(silent)' silent -"
        let child = try await ChildProcess.launch(
            "flowcheck matrix (SIGINT before hello)", executable: try Binary.binary(), arguments: ["matrix", "--driver", "silent=\(command)", "--markdown", "m.md", "--json", "m.json", "specs/"],
            directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline
        )
        defer { child.kill() }
        let started = Date().addingTimeInterval(60)
        var text = ""
        while Date() < started {
            text = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { break }
            sched_yield()
        }
        let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), "the driver never started")
        child.interrupt()
        #expect(try await child.exitStatus() == 130)
        #expect(child.stderr.text.contains("matrix interrupted by SIGINT while starting silent; nothing written"), "\(child.stderr.text)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("m.md").path))
        let killedAt = Date()
        while Date() < killedAt.addingTimeInterval(30), Self.running(pid) { sched_yield() }
        #expect(!Self.running(pid), "the probed driver \(pid) still runs")
    }
}
