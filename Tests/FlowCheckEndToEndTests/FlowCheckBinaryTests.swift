import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckTestLanes
import Testing
import FlowCheckTestSupport

/// Runs the built `flowcheck` binary on temporary spec folders and checks what a CI job sees:
/// exit code, console output and the report files. Each child has a deadline (see
/// ``ChildProcess``); the limit covers a test's runs one after another on a loaded machine.
@Suite(.integration, .timeLimit(.minutes(20)))
struct FlowCheckBinaryTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `flowcheck` executable SwiftPM built beside this test bundle.
    static func binary() throws -> URL {
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        folders += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent("flowcheck")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "flowcheck beside \(folders.map(\.path))"])
    }

    /// How long one `flowcheck` run may take before it is killed and the test fails naming
    /// it: a hang bound. The slowest run (every committed spec) takes seconds.
    static let childDeadline = HangBound.standard

    static func run(_ arguments: [String], in directory: URL, environment extra: [String: String] = [:]) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["GITHUB_ACTIONS"] = nil
        environment["GITHUB_STEP_SUMMARY"] = nil
        environment.merge(extra) { $1 }
        let child = try await ChildProcess.launch(
            "flowcheck \(arguments.joined(separator: " "))", executable: try binary(), arguments: arguments,
            directory: directory, environment: environment, deadline: childDeadline
        )
        defer { child.kill() }
        let status = try await child.exitStatus()
        return Run(status: status, stdout: child.stdout.text, stderr: child.stderr.text)
    }

    static func workspace(_ specs: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-e2e-\(UUID().uuidString)")
        for (name, text) in specs {
            let url = root.appendingPathComponent("specs").appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    static let secret = "sk-E2e&Secret=+ é"

    static func spec(id: String, productCount: String = "2") -> String {
        """
        {
          "id": "\(id)",
          "title": "Products after auth",
          "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "Using a valid token"}, "requirements": ["SEED-003-bearer"],
          "provider": "moltin",
          "fixture": {"clients": [{"id": "store-1", "secret": "sk-E2e&Secret=+ é"}]}, "notDerived": [{"family": "interleave", "why": "these tests count the flows the binary runs; the derived variants have tests of their own"}, {"family": "storeCrash", "why": "these tests count the flows the binary runs; the derived variants have tests of their own"}, {"family": "answer", "why": "these tests count the flows the binary runs; the derived variants have tests of their own"}],
          "steps": [
            {"app": "auth", "with": {"clientId": "store-1", "clientSecret": "sk-E2e&Secret=+ é"}, "expect": {"store": {"accessToken": {"present": true, "capture": "token"}}}},
            {"app": "products", "expect": {"result": {"productCount": "\(productCount)"}, "requests": [{"method": "GET", "path": "/v1/products", "headers": {"Authorization": "Bearer ${token}"}}]}}
          ]
        }
        """
    }

    private func reports(in root: URL) throws -> (junit: String, markdown: String) {
        (try String(contentsOf: root.appendingPathComponent("reports/junit.xml"), encoding: .utf8),
         try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8))
    }

    private func expectNoSecret(_ texts: [String]) {
        for text in texts {
            #expect(!text.contains("E2e&Secret"), "the client secret leaked")
            #expect(!text.contains("sk-E2e"), "the client secret leaked")
        }
    }

    @Test func allPassedExitsZeroAndWritesBothReports() async throws {
        let root = try Self.workspace(["moltin/a.json": Self.spec(id: "E2E-PASS")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.run(["specs/"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasSuffix("1 passed, 0 failed\n"))
        #expect(run.stdout.contains("✔ E2E-PASS"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("<testcase name=\"E2E-PASS: Products after auth\""))
        #expect(markdown.contains("## E2E-PASS"))
        expectNoSecret([run.stdout, run.stderr, junit, markdown])
    }

    @Test func aFailedFlowExitsOne() async throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-PASS"), "b.json": Self.spec(id: "E2E-FAIL", productCount: "99")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.run(["specs"], in: root)
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("✘ E2E-FAIL"))
        #expect(run.stdout.contains("step 2: result.productCount: expected equals \"99\", got \"2\""))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("<failure type=\"conformance\""))
        #expect(markdown.contains("Outcome: ❌ failed at step 2."))
        expectNoSecret([run.stdout, run.stderr, junit, markdown])
    }

    @Test func anInvalidSpecExitsTwoAndTheOthersStillRun() async throws {
        let broken = Self.spec(id: "E2E-BROKEN").replacingOccurrences(of: "\"title\"", with: "\"tilte\"")
        let root = try Self.workspace(["good.json": Self.spec(id: "E2E-PASS"), "broken.json": broken])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.run(["specs/"], in: root)
        #expect(run.status == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("specs/broken.json:3:3: error: unknown key \"tilte\" at $.tilte\n  fix: did you mean \"title\"?"))
        #expect(run.stdout.contains("✔ E2E-PASS"))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("type=\"invalid-spec\""))
        #expect(markdown.contains("## Invalid specs"))
    }

    @Test(arguments: [["--bogus", "specs"], [], ["--filter", "(", "specs"], ["no-such-folder"]])
    func usageErrorsExitTwo(_ arguments: [String]) async throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-PASS")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.run(arguments, in: root)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("flowcheck: "))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports").path))
    }

    @Test func listAndFilter() async throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-ONE"), "b.json": Self.spec(id: "E2E-TWO")])
        defer { try? FileManager.default.removeItem(at: root) }
        let list = try await Self.run(["--list", "specs"], in: root)
        #expect(list.status == 0)
        #expect(list.stdout == "E2E-ONE  Products after auth  (specs/a.json)\nE2E-TWO  Products after auth  (specs/b.json)\n")
        let filtered = try await Self.run(["--filter", "TWO$", "--junit", "out/j.xml", "--markdown", "out/m.md", "specs"], in: root)
        #expect(filtered.status == 0)
        #expect(filtered.stdout.hasSuffix("1 passed, 0 failed, 1 left out by --filter\n"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/j.xml").path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/m.md").path))
    }

    /// The committed documentation must not change between runs: two full runs of the real
    /// specs write byte-identical Markdown, and it is the committed report.
    @Test func markdownIsByteIdenticalAcrossRunsAndCommitted() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-md-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var reports: [String] = []
        for run in 1...2 {
            let result = try await Self.run(["--junit", out.appendingPathComponent("j\(run).xml").path, "--markdown", out.appendingPathComponent("m\(run).md").path, "specs/"], in: root)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            reports.append(try String(contentsOf: out.appendingPathComponent("m\(run).md"), encoding: .utf8))
        }
        // The difference, not the documents: two 17,000-line values in a failure are cut and
        // mixed with other tests' output, and the line that matters is lost.
        let between = Self.firstDifference(reports[0], reports[1])
        #expect(between == nil, "two runs differ: \(between ?? "")")
        let committed = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        let stale = Self.firstDifference(committed, reports[0])
        #expect(stale == nil, "reports/flowcheck.md is out of date: run swift run flowcheck specs/ and commit it (\(stale ?? ""))")
    }

    /// Where two long texts part, as a short message: the line number and both lines; nil when
    /// they are the same.
    static func firstDifference(_ old: String, _ new: String) -> String? {
        let (a, b) = (old.components(separatedBy: "\n"), new.components(separatedBy: "\n"))
        guard let line = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (a.count == b.count ? nil : min(a.count, b.count)) else { return nil }
        let show = { (lines: [String]) in line < lines.count ? String(lines[line].prefix(300)) : "(end)" }
        return "line \(line + 1): \"\(show(a))\" became \"\(show(b))\""
    }

    @Test func validateChecksWithoutRunningAndGivesTheSameLocations() async throws {
        let broken = Self.spec(id: "E2E-BROKEN").replacingOccurrences(of: "\"title\"", with: "\"tilte\"")
        let root = try Self.workspace(["good.json": Self.spec(id: "E2E-PASS"), "broken.json": broken])
        defer { try? FileManager.default.removeItem(at: root) }
        let validate = try await Self.run(["validate", "specs/"], in: root)
        #expect(validate.status == 2)
        #expect(validate.stdout == "1 of 2 specs valid\n")
        let run = try await Self.run(["specs/"], in: root)
        let location = "specs/broken.json:3:3: error: unknown key \"tilte\" at $.tilte"
        #expect(validate.stderr.contains(location) && run.stderr.contains(location))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports/m.md").path))
        let good = try Self.workspace(["good.json": Self.spec(id: "E2E-PASS")])
        defer { try? FileManager.default.removeItem(at: good) }
        let valid = try await Self.run(["validate", "specs"], in: good)
        #expect(valid.status == 0)
        #expect(!FileManager.default.fileExists(atPath: good.appendingPathComponent("reports").path), "validate runs nothing and writes nothing")
    }

    @Test func githubActionsGetsAnnotationsAndASummary() async throws {
        let broken = Self.spec(id: "E2E-BROKEN").replacingOccurrences(of: "\"title\"", with: "\"tilte\"")
        let root = try Self.workspace(["fail.json": Self.spec(id: "E2E-FAIL", productCount: "99"), "broken.json": broken])
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = root.appendingPathComponent("summary.md")
        let run = try await Self.run(["specs/"], in: root, environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
        #expect(run.status == 2)
        // The failing step of fail.json starts on its 9th line.
        #expect(run.stdout.contains("::error file=specs/fail.json,line=9,title=E2E-FAIL does not conform::E2E-FAIL failed: step 2: result.productCount"))
        // Its first problem in file order is the missing title, reported where the object starts.
        #expect(run.stdout.contains("::error file=specs/broken.json,line=1,title=invalid spec::specs/broken.json:1:1: error: missing required key \"title\" at $%0A"))
        let text = try String(contentsOf: summary, encoding: .utf8)
        #expect(text.contains("## FlowCheck: 0 passed, 1 failed"))
        expectNoSecret([run.stdout, run.stderr, text])
    }

    @Test func shardsTogetherRunEveryFlowOnce() async throws {
        var specs: [String: String] = [:]
        for n in 1...7 { specs["s\(n).json"] = Self.spec(id: "E2E-S\(n)") }
        let root = try Self.workspace(specs)
        defer { try? FileManager.default.removeItem(at: root) }
        var seen: [String] = []
        for index in 1...3 {
            let run = try await Self.run(["--shard", "\(index)/3", "--junit", "j\(index).xml", "--markdown", "m\(index).md", "specs"], in: root)
            #expect(run.status == 0)
            seen += run.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") }.map { String($0.split(separator: " ")[1]) }
        }
        #expect(seen.sorted() == (1...7).map { "E2E-S\($0)" })
    }

    @Test func jsonFormatIsMachineReadable() async throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-PASS"), "b.json": Self.spec(id: "E2E-FAIL", productCount: "99")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.run(["--format", "json", "specs"], in: root)
        #expect(run.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary["passed"] == 1 && summary["failed"] == 1)
        let flows = try #require(object["flows"] as? [[String: Any]])
        let failed = try #require(flows.first { $0["id"] as? String == "E2E-FAIL" })
        let failure = try #require((failed["failures"] as? [[String: Any]])?.first)
        #expect(failure["line"] as? Int == 9)
        #expect(failure["check"] as? String == "result.productCount")
        #expect(run.stderr.hasSuffix("1 passed, 1 failed\n"))
        expectNoSecret([run.stdout])
    }

    /// `flowcheck serve`: the fakes standalone, used by a plain HTTP client, stopped by Ctrl-C.
    @Test func serveAnswersAnyClientAndStopsOnInterrupt() async throws {
        let child = try await ChildProcess.launch("flowcheck serve", executable: try Self.binary(), arguments: ["serve"], deadline: Self.childDeadline)
        defer { child.kill() }
        // The first lines name each provider's base URL.
        try await child.stdout.waitFor("Ctrl-C stops.", "flowcheck serve: its ready line")
        let line = try #require(child.stdout.text.split(separator: "\n").first { $0.hasPrefix("moltin") })
        let base = try #require(URL(string: String(line.split(separator: " ").last ?? "")))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = HangBound.seconds
        configuration.timeoutIntervalForResource = HangBound.seconds
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        var auth = URLRequest(url: base.appendingPathComponent("oauth/access_token"))
        auth.httpMethod = "POST"
        auth.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        auth.httpBody = Data("grant_type=client_credentials&client_id=serve-client&client_secret=serve-secret-1234".utf8)
        let (tokenData, tokenResponse) = try await ServeSession.exchange(auth, on: session, "flowcheck serve: POST /oauth/access_token")
        #expect((tokenResponse as? HTTPURLResponse)?.statusCode == 200)
        let token = try #require((try JSONSerialization.jsonObject(with: tokenData) as? [String: Any])?["access_token"] as? String)
        var products = URLRequest(url: base.appendingPathComponent("v1/products"))
        products.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, productsResponse) = try await ServeSession.exchange(products, on: session, "flowcheck serve: GET /v1/products")
        #expect((productsResponse as? HTTPURLResponse)?.statusCode == 200)
        child.interrupt()
        #expect(try await child.exitStatus() == 0)
        let text = child.stdout.text
        #expect(text.contains("moltin  #1 POST /oauth/access_token → 200"))
        #expect(text.contains("Stopped."))
        #expect(!text.contains(token) && !text.contains("serve-secret-1234"), "serve logs exchanges redacted")
    }

    /// `explore --reach` writes the table with a section per model; a budget that is not a
    /// duration is a usage error naming the option.
    @Test func exploreWritesItsReachTableAndRefusesABadBudget() async throws {
        let root = try Self.workspace([:])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let run = try await Self.run(["explore", "--seed", "1", "--runs", "8", "--budget", "10m", "--reach", "reach.md", "--out", "found"], in: root)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("8 flows, 0 failed, 0 findings"), "\(run.stdout)")
        let table = try String(contentsOf: root.appendingPathComponent("reach.md"), encoding: .utf8)
        for provider in ["moltin", "clover", "clever", "braintree"] {
            #expect(table.contains("## \(provider)\n"), "\(table)")
            #expect(run.stdout.contains("reach: \(provider) "), "\(run.stdout)")
        }
        let bad = try await Self.run(["explore", "--budget", "soon"], in: root)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--budget takes a duration"), "\(bad.stderr)")
    }

    @Test func versionPrintsTheToolsVersion() async throws {
        let run = try await Self.run(["--version"], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0)
        #expect(run.stdout.range(of: #"^flowcheck [0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil, "\(run.stdout)")
    }

    @Test func helpExitsZero() async throws {
        let run = try await Self.run(["--help"], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: flowcheck [options] <file-or-dir>..."))
    }
}
