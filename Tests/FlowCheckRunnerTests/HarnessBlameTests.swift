import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI
@testable import FlowCheckProcessDriver
import FlowCheckReports
@testable import FlowCheckRunner
import FlowCheckSpec

/// Every harness error names the party that broke (the SDK, the driver, the driver's protocol,
/// the spec, the harness), what was awaited and where: one case per way a driver can break,
/// each with the exact party and the words of its message.
/// Serialized: each case starts driver processes; at once they would starve the rest of the
/// test run on a 2-core machine.
@Suite(.integration, .serialized, .timeLimit(.minutes(20)))
struct HarnessBlameTests {
    static let misbehaving = "python3 \(ProcessDriverTests.drivers)/misbehaving/misbehaving.py"

    /// A Moltin flow whose first step expects the SDK to open a page: what a driver's late
    /// `browserOpen` would make look like "the SDK opened no browser".
    static func expectsABrowser() throws -> FlowSpec {
        let text = """
        {"id": "T-BLAME", "title": "t", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-auth"], "provider": "moltin",
         "fixture": {"clients": [{"id": "c", "secret": "sk-blame-1234"}]},
         "steps": [
          {"app": "auth", "with": {"clientId": "c", "clientSecret": "sk-blame-1234"},
           "expect": {"browser": {"opened": [{"path": "/oauth/authorize"}]}}}
         ]}
        """
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(text.utf8), file: "t.json") else { throw DriverError("spec did not load") }
        return spec
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let mode: String
        let party: HarnessParty
        /// Where the error points: the step, and when (a late event is found by the next
        /// question of the step, or when the flow ends, whichever comes first: either way at
        /// its step, so either is allowed where `orAfter`).
        let place: HarnessError.Place
        var orAfter = false
        /// Words the message must hold.
        let says: [String]
        /// Words it must not: the wrong party or the wrong wait.
        let never: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "an event after its call's answer is the driver protocol's, never a page the SDK did not open",
             mode: "lateopen", party: .driverProtocol, place: .during(step: 1), orAfter: true,
             says: ["driver misbehaving-lateopen 1.0.0 (", "sent browserOpen after its answer to call auth (id 1), while no call was in flight: an event belongs before the answer to the call that caused it"],
             never: ["opened", "SDK:"]),
        Case(name: "a driver that greets and never becomes ready did not send ready",
             mode: "noready", party: .driverProtocol, place: .before(step: 1),
             says: ["did not send ready within 2 s of start", "misbehaving: noready in T-BLAME, never sending ready"],
             never: ["did not send hello"]),
        Case(name: "a driver that dies in a call is named with the call the runner awaited",
             mode: "exit", party: .driverProtocol, place: .during(step: 1),
             says: ["exited with status 3 while the runner awaited its answer to call auth (id 1)", "panic: the SDK gave up"],
             never: ["before the flow ended"]),
        Case(name: "a driver that never answers is named with the call and the deadline",
             mode: "hang", party: .driverProtocol, place: .during(step: 1),
             says: ["did not answer call auth (id 1) within 2 s"],
             never: []),
    ]

    @Test(arguments: cases)
    func aProcessDriverBreakNamesTheProtocolAndTheMessage(_ blame: Case) async throws {
        let spec = try Self.expectsABrowser()
        // Only the wait a case is about is short: a slow interpreter start on a loaded machine
        // must not turn one break into another.
        let deadlines: ProcessDriver.Deadlines = switch blame.mode {
        case "noready": .init(ready: .seconds(2))
        case "hang": .init(answer: .seconds(2))
        default: .init()
        }
        let driver = try await ProcessDriver.probe(command: "\(Self.misbehaving) \(blame.mode) T-BLAME", deadlines: deadlines)
        // Twice: the verdict must not depend on which thread got there first.
        for _ in 1...2 {
            let result = await FlowRunner(driver: driver).run(spec)
            #expect(result.status == .error, "\(result.status): \(result.failures.map(\.message))")
            let error = try #require(result.harnessError)
            #expect(error.party == blame.party, "\(error.text)")
            let place = blame.orAfter && error.place == .after(step: blame.place.step) ? .after(step: blame.place.step) : blame.place
            #expect(error.place == place, "\(error.text)")
            #expect(error.line == spec.steps[0].location.line)
            #expect(error.text.hasPrefix("\(place.text): \(blame.party.label): "), "\(error.text)")
            for words in blame.says { #expect(error.text.contains(words), "\(words) in: \(error.text)") }
            for words in blame.never { #expect(!error.text.contains(words), "\(words) in: \(error.text)") }
            // Nothing is blamed on the SDK: no failure stands beside the protocol error.
            #expect(result.failures.isEmpty, "\(result.failures.map(\.message))")
            #expect(!result.steps.contains { $0.status == .failed }, "\(result.steps.map(\.status))")
        }
    }

    /// The same break in JUnit: an `<error>` whose type names the party and whose message and
    /// text start with `spec-file:line:` of the step, the text ending with the frame.
    @Test func aHarnessErrorInJUnitIsLocatedAsAFailureIs() async throws {
        let spec = try Self.expectsABrowser()
        let driver = try await ProcessDriver.probe(command: "\(Self.misbehaving) lateopen T-BLAME")
        let result = await FlowRunner(driver: driver).run(spec)
        let line = spec.steps[0].location.line
        let xml = JUnitReport.render(RunResult(flows: [result], driverName: driver.name))
        let place = result.harnessError?.place?.text ?? "?"
        #expect(xml.contains("<error type=\"driver-protocol\" message=\"t.json:\(line): \(place): driver protocol: driver misbehaving-lateopen"), "\(xml)")
        #expect(xml.contains(">t.json:\(line): \(place): driver protocol: driver misbehaving-lateopen"), "\(xml)")
        #expect(xml.contains("    at t.json:\(line)</error>"), "\(xml)")
    }

    /// A driver that cannot start (or fails at its first hello) still makes a run: every
    /// selected flow is an error naming the cause, in the JUnit and Markdown reports and in a
    /// `--format json` document the published schema accepts; the exit code is 3.
    @Test(arguments: ["/nonexistent/driver --x", "\(misbehaving) version -"])
    func aDriverThatFailsAtHelloStillWritesEveryReport(_ command: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-hello-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = LockedLines()
        let stdout = LockedLines()
        let console = FlowCheckCommand.Console(out: { stdout.add($0) }, err: { lines.add($0) })
        let code = await FlowCheckCommand().run([
            "--driver", command, "--format", "json", "--junit", folder.path + "/j.xml", "--markdown", folder.path + "/m.md",
            "--filter", "^MLT-(AUTH|PRODUCTS)$", "--no-derived", SpecsEarnTheirPlaceTests.specsFolder,
        ], console: console)
        #expect(code == .harnessFailure, "\(lines.all)")
        let cause = command.hasPrefix("/nonexistent") ? "exited with status 127 before it sent hello" : "the driver speaks protocol 2; this runner speaks 1"
        // stdout is the JSON document alone, valid against the published schema.
        let document = stdout.all.joined(separator: "\n")
        let value = try JSONSerialization.jsonObject(with: Data(document.utf8))
        let schema = try MiniJSONSchema(data: Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../reports/flowcheck-report.schema.json").standardized))
        #expect(schema.errors(value).isEmpty, "\(schema.errors(value))")
        let flows = try #require((value as? [String: Any])?["flows"] as? [[String: Any]])
        #expect(flows.map { $0["id"] as? String } == ["MLT-AUTH", "MLT-PRODUCTS"])
        for flow in flows {
            #expect(flow["status"] as? String == "error")
            let detail = try #require(flow["harnessError"] as? [String: Any])
            #expect(detail["party"] as? String == "driver-protocol" && detail["when"] as? String == "before" && detail["step"] as? Int == 1)
            #expect((flow["error"] as? String)?.contains(cause) == true, "\(flow["error"] ?? "")")
        }
        let junit = try String(contentsOf: folder.appendingPathComponent("j.xml"), encoding: .utf8)
        #expect(junit.components(separatedBy: "<error type=\"driver-protocol\" message=\"").count - 1 == 2, "\(junit)")
        #expect(junit.contains(cause))
        let markdown = try String(contentsOf: folder.appendingPathComponent("m.md"), encoding: .utf8)
        #expect(markdown.contains("harness error") && markdown.contains(cause), "\(markdown)")
        #expect(lines.all.contains { $0.contains(cause) }, "\(lines.all)")
    }

    /// A driver line quoted in an error, holding an issued access token anywhere around the
    /// point where the quote is cut: masked before it is cut, so no 8 characters of the token
    /// (nor of any other issued secret) reach the console, the JUnit or Markdown report, the
    /// step summary or the JSON document.
    @Test(arguments: [30, 41, 50, 60, 66, 72, 76, 79])
    func aQuotedDriverLineNeverShowsAPieceOfAToken(_ offset: Int) async throws {
        let folder = try Self.scratchFolder("flowcheck-leak-")
        defer { try? FileManager.default.removeItem(at: folder) }
        let issued = LockedLines()
        var command = FlowCheckCommand()
        command.issuedSecretsObserver = { secrets in for secret in secrets { issued.add(secret) } }
        var written: [String] = []
        for format in ["text", "json"] {
            let printed = LockedLines()
            let console = FlowCheckCommand.Console(out: { printed.add($0) }, err: { printed.add($0) }, progress: { printed.add($0) })
            let summary = folder.appendingPathComponent("summary-\(format).md")
            let code = await command.run([
                "--driver", "\(Self.misbehaving) leak MLT-PRODUCTS \(offset)", "--format", format,
                "--junit", folder.path + "/j-\(format).xml", "--markdown", folder.path + "/m-\(format).md",
                "--filter", "^MLT-PRODUCTS$", SpecsEarnTheirPlaceTests.specsFolder,
            ], console: console, environment: .init(githubActions: true, stepSummaryPath: summary.path))
            #expect(code == .harnessFailure, "\(printed.all)")
            let shown = printed.all.joined(separator: "\n")
            // The break was quoted (masked), so the test saw what it means to see.
            #expect(shown.contains("wrote a line that is not a protocol message") && shown.contains("…\"(+"), "\(shown)")
            if offset + Redactor.mask.count <= SpecText.quoteLimit { #expect(shown.contains(Redactor.mask), "\(shown)") }
            written += [shown] + (try ["j-\(format).xml", "m-\(format).md", "summary-\(format).md"].map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) })
        }
        Self.expectNoPiece(of: issued, in: written, "offset \(offset)")
    }

    /// A driver (or the SDK behind it) that writes a token cut in two, in its stderr and in
    /// the message of the error it answers: no whole form of the token is there to mask, and
    /// the halves are masked as pieces, in the failure, the driver's log and every report.
    @Test func aTokenWrittenInHalvesShowsNoPiece() async throws {
        let folder = try Self.scratchFolder("flowcheck-halves-")
        defer { try? FileManager.default.removeItem(at: folder) }
        let issued = LockedLines()
        var command = FlowCheckCommand()
        command.issuedSecretsObserver = { secrets in for secret in secrets { issued.add(secret) } }
        let printed = LockedLines()
        let console = FlowCheckCommand.Console(out: { printed.add($0) }, err: { printed.add($0) }, progress: { printed.add($0) })
        let code = await command.run([
            "--driver", "\(Self.misbehaving) halves MLT-PRODUCTS", "--format", "json",
            "--junit", folder.path + "/j.xml", "--markdown", folder.path + "/m.md",
            "--filter", "^MLT-PRODUCTS$", SpecsEarnTheirPlaceTests.specsFolder,
        ], console: console, environment: .init())
        #expect(code == .failed, "\(printed.all)")
        let written = [printed.all.joined(separator: "\n")] + (try ["j.xml", "m.md"].map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) })
        // The halves were written and reported, masked.
        #expect(written[1].contains("was rejected") && written[1].contains("first part"), "\(written[1].prefix(6000))")
        Self.expectNoPiece(of: issued, in: written, "halves")
    }

    /// A signal while the driver is probed for its hello (a silent driver holds the probe for
    /// its whole hello deadline) stops the run there as a signal mid-run does: every flow is
    /// listed as not run, the reports are written, and the exit status is the signal's. It
    /// used to come before the run's signal handling, so the process died with no report.
    @Test func aSignalDuringTheDriversHelloStillWritesTheReports() async throws {
        let folder = try Self.scratchFolder("flowcheck-hello-signal-")
        defer { try? FileManager.default.removeItem(at: folder) }
        let interrupt = InterruptSignal()
        let printed = LockedLines()
        let console = FlowCheckCommand.Console(out: { printed.add($0) }, err: { printed.add($0) }, progress: { _ in })
        // Delivered whenever it lands, before or during the probe: the run is stopped either way.
        let signal = Task {
            try? await Task.sleep(for: .milliseconds(300))
            interrupt.deliver(SIGTERM)
        }
        let code = await FlowCheckCommand().run([
            "--driver", "\(Self.misbehaving) silent -",
            "--junit", folder.path + "/j.xml", "--markdown", folder.path + "/m.md",
            "--filter", "^MLT-(AUTH|PRODUCTS)$", "--no-derived", SpecsEarnTheirPlaceTests.specsFolder,
        ], console: console, environment: .init(interrupt: interrupt))
        _ = await signal.value
        #expect(code == .terminated, "\(printed.all)")
        let shown = printed.all.joined(separator: "\n")
        #expect(shown.contains("interrupted by SIGTERM") && shown.contains("2 flows did not run"), "\(shown)")
        let junit = try String(contentsOf: folder.appendingPathComponent("j.xml"), encoding: .utf8)
        let markdown = try String(contentsOf: folder.appendingPathComponent("m.md"), encoding: .utf8)
        #expect(junit.contains("MLT-AUTH") && markdown.contains("MLT-PRODUCTS"), "both flows are listed: \(markdown.prefix(2000))")
    }

    /// A new folder for a test's reports (the caller removes it).
    static func scratchFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// An access token was issued, and no 8-byte piece of anything issued is in `written`.
    static func expectNoPiece(of issued: LockedLines, in written: [String], _ label: String) {
        let tokens = Set(issued.all)
        #expect(tokens.contains { $0.count == 56 }, "an access token was issued: \(tokens)")
        for text in written {
            let leaked = pieces(of: tokens, in: text)
            #expect(leaked.isEmpty, "\(label): pieces \(leaked) of an issued secret in: \(text.prefix(4000))")
        }
    }

    /// Every 8-byte piece of a secret (UTF-8) that `text` holds. Pieces are packed in a UInt64
    /// and the text is read once with a sliding window: a scan of every report costs
    /// milliseconds, not the seconds of a `contains` per piece that would hold the test pool.
    static func pieces(of secrets: Set<String>, in text: String) -> [String] {
        func pack(_ bytes: some Collection<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
        var wanted: [UInt64: String] = [:]
        for secret in secrets {
            let bytes = Array(secret.utf8)
            guard bytes.count >= 8 else { continue }
            for start in 0...(bytes.count - 8) { wanted[pack(bytes[start..<start + 8])] = String(decoding: bytes[start..<start + 8], as: UTF8.self) }
        }
        var found: [String] = []
        var window: UInt64 = 0
        for (index, byte) in text.utf8.enumerated() {
            window = window << 8 | UInt64(byte)
            if index >= 7, let piece = wanted[window] { found.append(piece) }
        }
        return found
    }

    /// The report schema knows every party, and only those.
    @Test func theReportSchemaNamesEveryParty() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../reports/flowcheck-report.schema.json").standardized
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let flow = try #require((root["$defs"] as? [String: Any])?["flow"] as? [String: Any])
        let detail = try #require((flow["properties"] as? [String: Any])?["harnessError"] as? [String: Any])
        let party = try #require((detail["properties"] as? [String: Any])?["party"] as? [String: Any])
        #expect(Set(party["enum"] as? [String] ?? []) == Set(HarnessParty.allCases.map(\.rawValue)))
    }
}
