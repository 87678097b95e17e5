import Foundation
import FlowCheckTestLanes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A team's own `flowcheck` (``FlowCheckMain``) over a Swift driver that blocks the main thread
/// and a thread of the task pool (`Tests/BlockingDriver`): Ctrl-C still ends the process with
/// 130 and its reports, and a run that ends on its own still ends the process, whatever the
/// driver left blocked. Every wait is a hang detector (the child's deadline), never a speed
/// test: the assertion is that the process ends at all, with the right status.
@Suite(.integration, .timeLimit(.minutes(20)))
struct BlockingDriverBinaryTests {
    typealias Binary = FlowCheckBinaryTests

    /// The blocking-driver executable SwiftPM built beside `flowcheck`.
    static func executable() throws -> URL {
        try Binary.binary().deletingLastPathComponent().appendingPathComponent("blocking-driver")
    }

    static func launch(_ name: String, in root: URL, block: String, entry: String, arguments: [String] = ["specs/"], on trigger: (stream: ChildProcess.Stream, text: String, action: @Sendable (ChildProcess) -> Void)? = nil) async throws -> ChildProcess {
        try await ChildProcess.launch(
            "blocking-driver \(name)", executable: try executable(), arguments: arguments, directory: root,
            environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                          "BLOCKING_DRIVER_BLOCK": block, "BLOCKING_DRIVER_ENTRY": entry],
            deadline: Binary.childDeadline, on: trigger
        )
    }

    /// SIGINT while a flow's `perform` waits on a blocked main queue: the process exits 130,
    /// and the reports are written, the blocked flow among those that did not run. Both entry
    /// points: `exit(await FlowCheckMain.run(driver:))`, whose caller resumes on the main thread
    /// the driver blocks, and `runAndExit`.
    @Test(arguments: ["run", "runAndExit"])
    func sigintEndsARunWhoseDriverBlocksTheMainThread(_ entry: String) async throws {
        let root = try ConsoleAndSignalBinaryTests.workspace(flows: 4)
        defer { try? FileManager.default.removeItem(at: root) }
        // Signalled from the reading thread the moment the driver has blocked, however busy
        // the test's own threads are: the trigger is set before the child starts.
        let child = try await Self.launch("(\(entry), SIGINT once blocked)", in: root, block: "main+pool", entry: entry, on: (.stderr, "blocking-driver: blocking", { $0.signal(SIGINT) }))
        defer { child.kill() }
        let status = try await child.exitStatus()
        #expect(status == 130, "exit \(status); stderr: \(child.stderr.text)")
        ConsoleAndSignalBinaryTests.expectNoCrash(child.stderr.text)
        #expect(child.stderr.text.contains("flowcheck: The run was interrupted by SIGINT:"), "\(child.stderr.text)")
        // The reports, as far as the run got: every selected flow listed, the blocked one not run.
        let junit = try String(contentsOf: root.appendingPathComponent("reports/junit.xml"), encoding: .utf8)
        #expect(junit.hasSuffix("</testsuites>\n"))
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == 4, "\(junit)")
        #expect(junit.contains("<testcase name=\"E2E-1\" classname=\"flowcheck.notRun\""), "\(junit)")
        let markdown = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        #expect(markdown.contains("**Interrupted.**"))
    }

    /// A run that ends on its own while the driver keeps the main thread blocked: `runAndExit`
    /// ends the process from the task that finished the run, with the run's own status.
    @Test func aRunThatEndsEndsTheProcessWhateverTheMainThreadDoes() async throws {
        let root = try ConsoleAndSignalBinaryTests.workspace(flows: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        let child = try await Self.launch("(runAndExit, main thread blocked)", in: root, block: "main", entry: "runAndExit")
        defer { child.kill() }
        let status = try await child.exitStatus()
        // The driver sends no request, so the specs' request checks fail: exit 1, not a hang.
        #expect(status == 1, "exit \(status); stderr: \(child.stderr.text)")
        #expect(child.stderr.text.contains("blocking-driver: blocking"), "the main thread was blocked: \(child.stderr.text)")
        #expect(child.stdout.text.contains("0 passed, 2 failed"), "\(child.stdout.text)")
        ConsoleAndSignalBinaryTests.expectNoCrash(child.stderr.text)
    }

    /// A Swift driver that declares process-wide state runs its flows one at a time, and the
    /// console says so once.
    @Test func aDriverSharingProcessStateIsSaidToRunOneAtATime() async throws {
        let root = try ConsoleAndSignalBinaryTests.workspace(flows: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "BLOCKING_DRIVER_BLOCK": "none", "BLOCKING_DRIVER_SHARED": "1"]
        environment["BLOCKING_DRIVER_ENTRY"] = "runAndExit"
        let child = try await ChildProcess.launch("blocking-driver (shared state)", executable: try Self.executable(), arguments: ["--jobs", "3", "specs/"], directory: root, environment: environment, deadline: Binary.childDeadline)
        defer { child.kill() }
        _ = try await child.exitStatus()
        let said = child.stderr.text.components(separatedBy: "keeps process-wide state (sharesProcessState), so its flows run one at a time, not 3 at once").count - 1
        #expect(said == 1, "\(child.stderr.text)")
        #expect(!child.stderr.text.contains("blocking-driver: sessions overlapped"), "\(child.stderr.text)")
    }
}
