import Foundation
import FlowCheckTestLanes
import Testing

/// `--baseline`, `--strict-baseline` and `--write-baseline` on the built binary: the exit code
/// a CI job sees, the console lines and the reports.
@Suite(.integration, .timeLimit(.minutes(20)))
struct BaselineBinaryTests {
    typealias E2E = FlowCheckBinaryTests

    /// One passing flow (E2E-PASS) and one failing (E2E-FAIL), and a baseline file.
    static func workspace(baseline: String) throws -> URL {
        let root = try E2E.workspace(["a.json": E2E.spec(id: "E2E-PASS"), "b.json": E2E.spec(id: "E2E-FAIL", productCount: "99")])
        try Data(baseline.utf8).write(to: root.appendingPathComponent("known.txt"))
        return root
    }

    @Test func onlyListedFailuresExitZeroAndAreMarkedBaselined() async throws {
        let root = try Self.workspace(baseline: "# debt\n\nE2E-FAIL counts are off\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await E2E.run(["--baseline", "known.txt", "specs"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("✘ E2E-FAIL  Products after auth  (baselined: counts are off)"))
        #expect(run.stdout.hasSuffix("1 passed, 0 failed, 1 baselined\n"))
        let junit = try String(contentsOf: root.appendingPathComponent("reports/junit.xml"), encoding: .utf8)
        #expect(junit.contains("<skipped type=\"baselined\" message=\"baselined: counts are off\">specs/b.json:9: step 2: result.productCount"))
        #expect(!junit.contains("<failure"))
        #expect(junit.contains("failures=\"0\""))
        let markdown = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        #expect(markdown.contains("| ❌ failed, baselined | [E2E-FAIL]"))
        #expect(markdown.contains("Baselined (expected to fail, known debt): counts are off."))
    }

    @Test(.enabled(if: RequirementMatrixBinaryTests.xmllint != nil && FileManager.default.fileExists(atPath: RequirementMatrixBinaryTests.junitSchema.path), "needs xmllint"))
    func theBaselinedJUnitIsSchemaValid() async throws {
        let root = try Self.workspace(baseline: "E2E-FAIL counts & <things> are off\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await E2E.run(["--baseline", "known.txt", "specs"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let junit = root.appendingPathComponent("reports/junit.xml")
        #expect(try String(contentsOf: junit, encoding: .utf8).contains("message=\"baselined: counts &amp; &lt;things&gt; are off\""))
        let lint = try await ChildProcess.launch("xmllint", executable: URL(fileURLWithPath: try #require(RequirementMatrixBinaryTests.xmllint)), arguments: ["--noout", "--schema", RequirementMatrixBinaryTests.junitSchema.path, junit.path])
        defer { lint.kill() }
        #expect(try await lint.exitStatus() == 0, "xmllint: \(lint.stderr.text)")
    }

    @Test func aNewFailureExitsOne() async throws {
        let root = try Self.workspace(baseline: "E2E-PASS was flaky\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await E2E.run(["--baseline", "known.txt", "specs"], in: root)
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("✘ E2E-FAIL  Products after auth\n"))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
    }

    @Test func aListedFlowThatPassesIsReportedAndFailsOnlyWhenStrict() async throws {
        let root = try Self.workspace(baseline: "E2E-FAIL known\nE2E-PASS was flaky\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let lenient = try await E2E.run(["--baseline", "known.txt", "specs"], in: root)
        #expect(lenient.status == 0, "\(lenient.stdout)\n\(lenient.stderr)")
        #expect(lenient.stdout.contains("E2E-PASS: unexpectedly passing: remove it from the baseline (known.txt:2)\n"))
        let strict = try await E2E.run(["--baseline", "known.txt", "--strict-baseline", "specs"], in: root)
        #expect(strict.status == 1, "\(strict.stdout)\n\(strict.stderr)")
        #expect(strict.stdout.contains("E2E-PASS: unexpectedly passing: remove it from the baseline (known.txt:2)\n"))
        let json = try await E2E.run(["--baseline", "known.txt", "--format", "json", "specs"], in: root)
        let root2 = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(root2["unexpectedlyPassing"] as? [String] == ["E2E-PASS"])
        #expect((root2["summary"] as? [String: Any])?["baselined"] as? Int == 1)
    }

    @Test func aMalformedLineOrAnUnknownIdIsAUsageErrorNamingFileAndLine() async throws {
        let root = try Self.workspace(baseline: "# debt\nE2E-FAIL\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let malformed = try await E2E.run(["--baseline", "known.txt", "specs"], in: root)
        #expect(malformed.status == 2, "\(malformed.stdout)\n\(malformed.stderr)")
        #expect(malformed.stderr.contains("flowcheck: known.txt:2: E2E-FAIL has no reason"))
        let missing = try await E2E.run(["--baseline", "nowhere.txt", "specs"], in: root)
        #expect(missing.status == 2)
        #expect(missing.stderr == "flowcheck: nowhere.txt: cannot read the --baseline file (a missing file or a folder?)\n")
        try Data("E2E-FAIL ok\nE2E-PAS typo\n".utf8).write(to: root.appendingPathComponent("known.txt"))
        // The id is checked against every loaded spec, not the --filter selection.
        let unknown = try await E2E.run(["--baseline", "known.txt", "--filter", "FAIL", "specs"], in: root)
        #expect(unknown.status == 2, "\(unknown.stdout)\n\(unknown.stderr)")
        #expect(unknown.stderr.contains("flowcheck: known.txt:2: no loaded spec has the flow id E2E-PAS (did you mean E2E-PASS?)"))
        try Data("E2E-PASS flaky\n".utf8).write(to: root.appendingPathComponent("known.txt"))
        let filtered = try await E2E.run(["--baseline", "known.txt", "--filter", "FAIL", "specs"], in: root)
        #expect(filtered.status == 1, "an id --filter left out is still known: \(filtered.stdout)\n\(filtered.stderr)")
    }

    @Test func writeBaselineThenBaselineRoundTrips() async throws {
        let root = try Self.workspace(baseline: "")
        defer { try? FileManager.default.removeItem(at: root) }
        let write = try await E2E.run(["--write-baseline", "out/known.txt", "--filter", "^E2E-", "specs"], in: root)
        #expect(write.status == 1, "the run that writes it still fails: \(write.stdout)\n\(write.stderr)")
        let text = try String(contentsOf: root.appendingPathComponent("out/known.txt"), encoding: .utf8)
        #expect(text.hasPrefix("# flowcheck baseline:"))
        // The command as given, every option kept and quoted for a shell: run again, it remakes it.
        #expect(text.contains("# Written by `flowcheck --write-baseline out/known.txt --filter '^E2E-' specs`"), "\(text)")
        #expect(text.hasSuffix("\nE2E-FAIL step 2: result.productCount: expected equals \"99\", got \"2\"\n"))
        let read = try await E2E.run(["--baseline", "out/known.txt", "specs"], in: root)
        #expect(read.status == 0, "\(read.stdout)\n\(read.stderr)")
        #expect(read.stdout.hasSuffix("1 passed, 0 failed, 1 baselined\n"))
    }

    @Test func baselineOptionsGoWithARun() async throws {
        let root = try Self.workspace(baseline: "E2E-FAIL known\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let strictAlone = try await E2E.run(["--strict-baseline", "specs"], in: root)
        #expect(strictAlone.status == 2)
        #expect(strictAlone.stderr.hasPrefix("flowcheck: --strict-baseline goes with --baseline FILE"))
        let validate = try await E2E.run(["validate", "--baseline", "known.txt", "specs"], in: root)
        #expect(validate.status == 2)
        #expect(validate.stderr.hasPrefix("flowcheck: --baseline, --write-baseline and --strict-baseline go with a run"))
    }
}

/// A run of part of the suite never replaces the full run's reports at the default paths.
@Suite(.integration, .timeLimit(.minutes(20)))
struct SubsetReportBinaryTests {
    typealias E2E = FlowCheckBinaryTests

    @Test func aSubsetRunWritesBesideTheFullReports() async throws {
        let root = try BaselineBinaryTests.workspace(baseline: "")
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await E2E.run(["specs"], in: root)
        let full = try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)
        let subset = try await E2E.run(["--filter", "^E2E-PASS$", "specs"], in: root)
        #expect(subset.status == 0, "\(subset.stderr)")
        #expect(subset.stderr.contains("so its reports are in reports/subset/ and the full run's are left as they are"), "\(subset.stderr)")
        #expect(subset.stdout.contains("Reports: reports/subset/junit.xml, reports/subset/flowcheck.md"))
        #expect(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8) == full)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("reports/subset/flowcheck.md").path))
        // One path chosen: the other report, at its default path, still moves.
        let oneChosen = try await E2E.run(["--filter", "^E2E-PASS$", "--junit", "mine.xml", "specs"], in: root)
        #expect(oneChosen.stdout.contains("Reports: mine.xml, reports/subset/flowcheck.md"), "\(oneChosen.stdout)")
        #expect(oneChosen.stderr.contains("so its Markdown report is in reports/subset/ and the full run's is left as it is"), "\(oneChosen.stderr)")
        #expect(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8) == full)
        // A matrix of part of the suite leaves the full matrix where it is.
        let matrix = try await E2E.run(["matrix", "--driver", "core=builtin:core", "--filter", "^E2E-PASS$", "specs"], in: root)
        #expect(matrix.stdout.contains("Matrix: reports/subset/matrix.md, reports/subset/matrix.json"), "\(matrix.stdout)\n\(matrix.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports/matrix.md").path))
        // A fresh clone: git ignores reports/junit.xml, and the committed Markdown report is the
        // run of specs/. A filtered run, or one of a single spec file, still writes beside it.
        try FileManager.default.removeItem(at: root.appendingPathComponent("reports/junit.xml"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("reports/subset"))
        for arguments in [["--filter", "^E2E-PASS$", "specs"], [try #require(FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("specs").path).filter { $0.hasSuffix(".json") }.sorted().first.map { "specs/" + $0 })]] {
            let fresh = try await E2E.run(arguments, in: root)
            #expect(fresh.stdout.contains("Reports: reports/subset/junit.xml, reports/subset/flowcheck.md"), "\(arguments): \(fresh.stdout)\n\(fresh.stderr)")
            #expect(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8) == full)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("reports/junit.xml").path))
        }
        // Paths given are written as given; the full run's, given by name, with a warning.
        let chosen = try await E2E.run(["--filter", "^E2E-PASS$", "--junit", "reports/junit.xml", "--markdown", "one.md", "specs"], in: root)
        #expect(chosen.stdout.contains("Reports: reports/junit.xml, one.md"), "\(chosen.stdout)")
        #expect(chosen.stderr.contains("--junit reports/junit.xml, given by name, is written there over the full run's"), "\(chosen.stderr)")
        // That JUnit report names one spec file; the next run of that one file is still a
        // subset of specs/, and the committed report stays.
        let after = try await E2E.run(["specs/a.json"], in: root)
        #expect(after.stdout.contains("Reports: reports/subset/junit.xml, reports/subset/flowcheck.md"), "\(after.stdout)\n\(after.stderr)")
        #expect(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8) == full)
    }

    /// A run with a folder of the team's own beside `specs/` writes the default reports, and
    /// the next run of `specs/` alone is still the full run: the last report naming the extra
    /// file must not make every later run a subset.
    @Test func aRunWithAnExtraFolderLeavesTheNextFullRunFull() async throws {
        let root = try BaselineBinaryTests.workspace(baseline: "")
        defer { try? FileManager.default.removeItem(at: root) }
        let team = root.appendingPathComponent("teamspecs")
        try FileManager.default.createDirectory(at: team, withIntermediateDirectories: true)
        try Data(E2E.spec(id: "TEAM-ONE").utf8).write(to: team.appendingPathComponent("one.json"))
        let both = try await E2E.run(["specs", "teamspecs"], in: root)
        #expect(both.stdout.contains("Reports: reports/junit.xml, reports/flowcheck.md"), "\(both.stdout)\n\(both.stderr)")
        for _ in 0..<2 {
            let full = try await E2E.run(["specs"], in: root)
            #expect(full.stdout.contains("Reports: reports/junit.xml, reports/flowcheck.md"), "\(full.stdout)\n\(full.stderr)")
            #expect(!full.stderr.contains("reports/subset/"), "\(full.stderr)")
        }
        #expect(!(try String(contentsOf: root.appendingPathComponent("reports/flowcheck.md"), encoding: .utf8)).contains("TEAM-ONE"))
    }
}
