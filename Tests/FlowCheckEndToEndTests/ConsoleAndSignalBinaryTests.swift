import Foundation
import FlowCheckTestLanes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built binary when its console goes away or a signal arrives: the run still finishes
/// (or stops) cleanly, both reports are written, and the exit code is the run's own.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ConsoleAndSignalBinaryTests {
    typealias Binary = FlowCheckBinaryTests

    /// Runs `flowcheck ARGS` under bash with the redirections in `shell` (e.g. `| head -1`),
    /// and reports flowcheck's own exit status (PIPESTATUS[0]) on the last line of stderr.
    static func shell(_ arguments: String, _ redirections: String, in root: URL) async throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try Binary.binary().path
        let script = "set -o pipefail; '\(binary)' \(arguments) \(redirections); echo \"flowcheck-status=${PIPESTATUS[0]}\" >&3"
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["GITHUB_ACTIONS"] = nil
        environment["GITHUB_STEP_SUMMARY"] = nil
        // fd 3 is the test's view of stderr, kept when the script closes or redirects flowcheck's.
        let child = try await ChildProcess.launch(
            "bash: flowcheck \(arguments) \(redirections)", executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", "exec 3>&2; " + script],
            directory: root, environment: environment, deadline: Binary.childDeadline
        )
        defer { child.kill() }
        _ = try await child.exitStatus()
        let stderr = child.stderr.text
        let statusLine = try #require(stderr.split(separator: "\n").last { $0.hasPrefix("flowcheck-status=") }, "no status line in: \(stderr)")
        return (Int32(statusLine.dropFirst("flowcheck-status=".count)) ?? -1, child.stdout.text, stderr)
    }

    static func expectReports(in root: URL, flows: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let junit = try String(contentsOf: root.appendingPathComponent("reports/junit.xml"), encoding: .utf8)
        let markdown = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        #expect(junit.hasSuffix("</testsuites>\n"), "the JUnit report is whole", sourceLocation: sourceLocation)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == flows, sourceLocation: sourceLocation)
        #expect(markdown.contains("# FlowCheck"), sourceLocation: sourceLocation)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("reports").path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary report files left: \(leftovers)", sourceLocation: sourceLocation)
    }

    static func expectNoCrash(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for sign in ["Fatal error", "Stack dump", "backtrace", "Illegal instruction", "SIGILL", "Current stack trace"] {
            #expect(!stderr.contains(sign), "flowcheck crashed: \(stderr)", sourceLocation: sourceLocation)
        }
    }

    static func workspace(flows: Int, failing: Bool = false) throws -> URL {
        var specs: [String: String] = [:]
        for index in 1...flows {
            specs["moltin/f\(index).json"] = Binary.spec(id: "E2E-\(index)", productCount: failing && index == 1 ? "3" : "2")
        }
        return try Binary.workspace(specs)
    }

    /// `flowcheck specs/ | head -1`: the reader goes after one line, every later console write
    /// fails with EPIPE, and the run still writes both reports and exits with its own code.
    @Test(arguments: [false, true])
    func aReaderThatLeavesAfterOneLineCostsNothing(failing: Bool) async throws {
        let root = try Self.workspace(flows: 6, failing: failing)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.shell("specs/", "| head -1", in: root)
        #expect(run.status == (failing ? 1 : 0), "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 1)
        Self.expectNoCrash(run.stderr)
        try Self.expectReports(in: root, flows: 6)
    }

    @Test func stdoutOnAFullDiskCostsNothing() async throws {
        let root = try Self.workspace(flows: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.shell("specs/", "> /dev/full", in: root)
        #expect(run.status == 0, "\(run.stderr)")
        Self.expectNoCrash(run.stderr)
        try Self.expectReports(in: root, flows: 3)
    }

    /// With stderr closed, nothing the run opens may take its descriptor: the reports hold
    /// reports, not console text.
    @Test func aClosedStderrCostsNothing() async throws {
        let root = try Self.workspace(flows: 3, failing: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.shell("specs/", "2>&-", in: root)
        #expect(run.status == 1)
        #expect(run.stdout.contains("2 passed, 1 failed"))
        try Self.expectReports(in: root, flows: 3)
    }

    /// A report path that is a folder gets a sentence, not a Cocoa error number, before any
    /// flow runs (a usage error: nothing was run, nothing written).
    @Test func aReportPathThatIsAFolderGetsAPlainSentence() async throws {
        let root = try Self.workspace(flows: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("out"), withIntermediateDirectories: true)
        let run = try await Binary.run(["--junit", "out", "specs/"], in: root)
        #expect(run.status == 2)
        #expect(run.stderr.contains("flowcheck: --junit out: is a folder; name a file in it, e.g. out/out"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
        #expect(!run.stdout.contains("✔"), "no flow ran")
    }

    /// `GITHUB_STEP_SUMMARY` naming a folder gets a sentence too, and the reports are written.
    @Test func aStepSummaryThatIsAFolderGetsAPlainSentence() async throws {
        let root = try Self.workspace(flows: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("summary"), withIntermediateDirectories: true)
        let run = try await Binary.run(["specs/"], in: root, environment: ["GITHUB_STEP_SUMMARY": root.appendingPathComponent("summary").path])
        #expect(run.status == 3)
        #expect(run.stderr.contains("flowcheck: GITHUB_STEP_SUMMARY: could not write \(root.appendingPathComponent("summary").path): it is a folder; it must name a file"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
        try Self.expectReports(in: root, flows: 1)
    }

    /// A temporary report file left by a killed run (its process is gone) is removed at the
    /// next start; one of a process that still runs is not ours to remove.
    @Test func staleTemporaryReportFilesAreRemovedAtTheNextStart() async throws {
        let root = try Self.workspace(flows: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        let reports = root.appendingPathComponent("reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        let gone = try await Self.exitedProcessID()
        let stale = reports.appendingPathComponent(".junit.xml.flowcheck-\(gone).tmp")
        let live = reports.appendingPathComponent(".flowcheck.md.flowcheck-\(getpid()).tmp")
        try Data(repeating: 0x41, count: 1 << 20).write(to: stale)
        try Data("a live run's".utf8).write(to: live)
        let run = try await Binary.run(["specs/"], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }

    /// The id of a process that has exited (and been reaped), so no process has it for now.
    static func exitedProcessID() async throws -> Int32 {
        let child = try await ChildProcess.launch("true", executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo $$"])
        defer { child.kill() }
        #expect(try await child.exitStatus() == 0)
        return try #require(Int32(child.stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// SIGINT (and SIGTERM) during a run: no flow starts after it, the running ones are
    /// cancelled, both reports are written and say the run was interrupted, and the exit
    /// status is 128 + the signal.
    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM"), (SIGHUP, Int32(129), "SIGHUP")])
    func aSignalDuringARunStopsItWithReports(signal: Int32, status: Int32, name: String) async throws {
        let flows = 400
        let root = try Self.workspace(flows: flows)
        defer { try? FileManager.default.removeItem(at: root) }
        let child = try await ChildProcess.launch(
            "flowcheck specs/ (\(name) after the first flow)", executable: try Binary.binary(), arguments: ["specs/"],
            directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline,
            // Signalled from the reading thread the moment the first flow is reported, however
            // busy the test's own threads are.
            on: (.stdout, "✔ E2E-", { $0.signal(signal) })
        )
        defer { child.kill() }
        #expect(try await child.exitStatus() == status)
        #expect(child.stderr.text.contains("flowcheck: The run was interrupted by \(name):"), "\(child.stderr.text)")
        Self.expectNoCrash(child.stderr.text)
        let junit = try String(contentsOf: root.appendingPathComponent("reports/junit.xml"), encoding: .utf8)
        let listed = junit.components(separatedBy: "<testcase ").count - 1
        let notRun = junit.components(separatedBy: "<skipped message=\"not run: the run was interrupted by \(name)\"/>").count - 1
        // Every selected flow is in the report: the finished ones with their verdict, the rest skipped as not run.
        #expect(listed == flows, "\(listed) flows in the report")
        #expect(notRun >= 1 && notRun < flows, "\(notRun) flows not run")
        #expect(junit.hasSuffix("</testsuites>\n"))
        let markdown = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        #expect(markdown.contains("**Interrupted.** The run was interrupted by \(name): \(notRun) flows did not run"))
        // The closing line counts them too, as the reports do.
        #expect(child.stdout.text.contains(", \(notRun) not run"), "\(child.stdout.text.suffix(300))")
    }

    /// An interrupted run after a full one is part of the suite: its reports go to
    /// `reports/subset/`, and the full run's (the committed Markdown report) stay as they were.
    @Test func anInterruptedRunLeavesTheFullReportsAsTheyAre() async throws {
        let root = try Self.workspace(flows: 400)
        defer { try? FileManager.default.removeItem(at: root) }
        let full = try await ChildProcess.launch(
            "flowcheck specs/ (the full run)", executable: try Binary.binary(), arguments: ["specs/"],
            directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline)
        defer { full.kill() }
        #expect(try await full.exitStatus() == 0)
        let before = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        let child = try await ChildProcess.launch(
            "flowcheck specs/ (SIGINT after the first flow)", executable: try Binary.binary(), arguments: ["specs/"],
            directory: root, environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], deadline: Binary.childDeadline,
            on: (.stdout, "✔ E2E-", { $0.signal(SIGINT) })
        )
        defer { child.kill() }
        #expect(try await child.exitStatus() == 130)
        #expect(child.stderr.text.contains("the run was interrupted before every flow finished, so its reports are in reports/subset/"), "\(child.stderr.text)")
        #expect(child.stdout.text.contains("Reports: reports/subset/junit.xml, reports/subset/flowcheck.md"))
        #expect(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8) == before)
        let subset = try String(contentsOf: root.appendingPathComponent("reports/subset/flowcheck.md"), encoding: .utf8)
        #expect(subset.contains("**Interrupted.**"))
    }
}
