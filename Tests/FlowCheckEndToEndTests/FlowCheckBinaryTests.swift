import Foundation
import Testing

/// Runs the built `flowcheck` binary on temporary spec folders and checks what a CI job sees:
/// exit code, console output and the report files.
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

    static func run(_ arguments: [String], in directory: URL) throws -> Run {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting, so a full pipe cannot block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
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
          "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "Using a valid token"},
          "provider": "moltin",
          "fixture": {"clients": [{"id": "store-1", "secret": "sk-E2e&Secret=+ é"}]},
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

    @Test func allPassedExitsZeroAndWritesBothReports() throws {
        let root = try Self.workspace(["moltin/a.json": Self.spec(id: "E2E-PASS")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try Self.run(["specs/"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasSuffix("1 passed, 0 failed\n"))
        #expect(run.stdout.contains("✔ E2E-PASS"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("<testcase name=\"E2E-PASS: Products after auth\""))
        #expect(markdown.contains("## E2E-PASS"))
        expectNoSecret([run.stdout, run.stderr, junit, markdown])
    }

    @Test func aFailedFlowExitsOne() throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-PASS"), "b.json": Self.spec(id: "E2E-FAIL", productCount: "99")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try Self.run(["specs"], in: root)
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("✘ E2E-FAIL"))
        #expect(run.stdout.contains("step 2: result.productCount: expected equals \"99\", got \"2\""))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("<failure type=\"conformance\""))
        #expect(markdown.contains("Outcome: ❌ failed at step 2."))
        expectNoSecret([run.stdout, run.stderr, junit, markdown])
    }

    @Test func anInvalidSpecExitsTwoAndTheOthersStillRun() throws {
        let broken = Self.spec(id: "E2E-BROKEN").replacingOccurrences(of: "\"title\"", with: "\"tilte\"")
        let root = try Self.workspace(["good.json": Self.spec(id: "E2E-PASS"), "broken.json": broken])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try Self.run(["specs/"], in: root)
        #expect(run.status == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("specs/broken.json:3:3: error: unknown key \"tilte\" at $.tilte\n  fix: did you mean \"title\"?"))
        #expect(run.stdout.contains("✔ E2E-PASS"))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
        let (junit, markdown) = try reports(in: root)
        #expect(junit.contains("type=\"invalid-spec\""))
        #expect(markdown.contains("## Invalid specs"))
    }

    @Test(arguments: [["--bogus", "specs"], [], ["--filter", "(", "specs"], ["no-such-folder"]])
    func usageErrorsExitTwo(_ arguments: [String]) throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-PASS")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try Self.run(arguments, in: root)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("flowcheck: "))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports").path))
    }

    @Test func listAndFilter() throws {
        let root = try Self.workspace(["a.json": Self.spec(id: "E2E-ONE"), "b.json": Self.spec(id: "E2E-TWO")])
        defer { try? FileManager.default.removeItem(at: root) }
        let list = try Self.run(["--list", "specs"], in: root)
        #expect(list.status == 0)
        #expect(list.stdout == "E2E-ONE  Products after auth  (specs/a.json)\nE2E-TWO  Products after auth  (specs/b.json)\n")
        let filtered = try Self.run(["--filter", "TWO$", "--junit", "out/j.xml", "--markdown", "out/m.md", "specs"], in: root)
        #expect(filtered.status == 0)
        #expect(filtered.stdout.hasSuffix("1 passed, 0 failed, 1 skipped\n"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/j.xml").path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/m.md").path))
    }

    /// The committed documentation must not change between runs: two full runs of the real
    /// specs write byte-identical Markdown, and it is the committed report.
    @Test func markdownIsByteIdenticalAcrossRunsAndCommitted() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-md-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var reports: [String] = []
        for run in 1...2 {
            let result = try Self.run(["--junit", out.appendingPathComponent("j\(run).xml").path, "--markdown", out.appendingPathComponent("m\(run).md").path, "specs/"], in: root)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            reports.append(try String(contentsOf: out.appendingPathComponent("m\(run).md"), encoding: .utf8))
        }
        #expect(reports[0] == reports[1])
        let committed = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        #expect(reports[0] == committed, "reports/flowcheck.md is out of date: run swift run flowcheck specs/ and commit it")
    }

    @Test func helpExitsZero() throws {
        let run = try Self.run(["--help"], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: flowcheck [options] <file-or-dir>..."))
    }
}
