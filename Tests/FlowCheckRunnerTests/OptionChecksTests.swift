import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCLI
import FlowCheckFakeServer
import FlowCheckRunner

/// Option values are checked against what they promise before anything starts, with one line
/// naming the option: a built-in driver name never runs as a shell command, an output path
/// that cannot be written is never found out after the run, and no option is quietly ignored.
@Suite(.fast, .timeLimit(.minutes(20)))
struct OptionChecksTests {
    static let folder = NSTemporaryDirectory() + "flowcheck-options-\(UUID().uuidString)"

    static func run(_ arguments: [String]) async -> (FlowCheckCommand.ExitCode, [String]) {
        let lines = Locked<[String]>([])
        let console = FlowCheckCommand.Console(out: { line in lines.withLock { $0.append(line) } }, err: { line in lines.withLock { $0.append(line) } })
        let code = await FlowCheckCommand().run(arguments, console: console)
        return (code, lines.withLock { $0 })
    }

    @Test(arguments: [
        (["--driver", "builtin:cor", "specs/"], "--driver builtin:cor: no built-in driver of that name"),
        (["matrix", "--driver", "x=builtin:nope", "specs/"], "--driver x=builtin:nope: no built-in driver of that name"),
        (["", "specs/"], "an empty spec path was given"),
        (["--junit", "", "specs/"], "--junit was given an empty path"),
        (["--list", "--format", "json", "specs/"], "--format json does not go with --list"),
        (["explore", "--out", "", "--runs", "1"], "explore --out was given an empty path"),
        // An option its declaration does not list for the command would have no effect.
        (["validate", "--junit", "x.xml", "specs/"], "--junit goes with a run, not validate"),
        (["validate", "--format", "json", "specs/"], "--format goes with a run, not validate"),
        (["validate", "--no-derived", "specs/"], "--no-derived goes with a run, not validate"),
        (["serve", "--filter", "x"], "--filter goes with a run or matrix, not serve"),
        (["serve", "--jobs", "3"], "--jobs goes with a run or matrix, not serve"),
        (["matrix", "--driver", "c=builtin:core", "--no-derived", "specs/"], "--no-derived goes with a run, not matrix"),
        (["matrix", "--driver", "c=builtin:core", "--junit", "j.xml", "specs/"], "--junit goes with a run, not matrix"),
        (["--list", "--junit", "j.xml", "specs/"], "--junit goes with a run, not --list"),
        (["--list", "--no-derived", "specs/"], "--no-derived goes with a run, not --list"),
        // A value quoted back shows its invisible characters.
        (["explore", "--provider", "molt\u{200B}in"], "--provider: no model for \"molt\\u{200B}in\""),
    ])
    func refusedBeforeAnythingStarts(arguments: [String], message: String) async {
        let (code, lines) = await Self.run(arguments)
        #expect(code == .usageOrInvalidSpec)
        #expect(lines.first?.hasPrefix("flowcheck: " + message) == true, "\(lines.first ?? "")")
    }

    /// Paths that exist in the way: a file where findings' folder should be, a folder where a
    /// report should be, a file where a report's folder should be.
    @Test func aUsageErrorShowsTheMistakeAndTheSynopsisNotTheWholeHelp() async {
        let (code, lines) = await Self.run(["--fliter", "x", "specs/"])
        #expect(code == .usageOrInvalidSpec)
        let text = lines.joined(separator: "\n")
        #expect(text.hasPrefix("flowcheck: unknown option --fliter (did you mean --filter?)\n\nUSAGE: flowcheck [options] <file-or-dir>..."), "\(text)")
        #expect(text.hasSuffix("`flowcheck --help` describes every option."))
        #expect(!text.contains("Runs JSON flow specs"), "the help's prose is left to --help")
    }

    @Test func outputPathsInTheWayAreRefusedFirst() async throws {
        try FileManager.default.createDirectory(atPath: Self.folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: Self.folder) }
        let file = Self.folder + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for (arguments, message) in [
            (["explore", "--out", file, "--runs", "1"], "--out \(file): is a file, and findings are written into a folder"),
            (["--junit", Self.folder, "/nonexistent-specs"], "--junit \(Self.folder): is a folder"),
            (["--markdown", file + "/report.md", "/nonexistent-specs"], "--markdown \(file)/report.md: \(file) is a file, so nothing can be written under it"),
            (["matrix", "--driver", "c=builtin:core", "--json", Self.folder, "/nonexistent-specs"], "--json \(Self.folder): is a folder"),
        ] {
            let (code, lines) = await Self.run(arguments)
            #expect(code == .usageOrInvalidSpec, "\(arguments)")
            #expect(lines.count == 1 && lines.first?.hasPrefix("flowcheck: " + message) == true, "\(lines)")
        }
    }
}

/// One rule for text files: a leading byte order mark is no text, in a baseline as in a spec,
/// and an invisible character in a baseline's id is shown, not printed as it is.
@Suite(.fast, .timeLimit(.minutes(20)))
struct BaselineTextTests {
    @Test func aByteOrderMarkIsStrippedAndInvisibleCharactersShown() throws {
        let baseline = try Baseline.parse("\u{FEFF}MLT-AUTH known to fail\n", file: "b.txt")
        #expect(baseline.entries.map(\.id) == ["MLT-AUTH"])
        #expect {
            _ = try Baseline.parse("MLT-AUTH\u{200B} known\n", file: "b.txt")
        } throws: { error in
            "\(error)".contains(#""MLT-AUTH\u{200B}" is not a flow id"#)
        }
    }
}

/// Flows a driver cannot run are said once per reason, never one a line and never annotated,
/// and the closing line counts them as the step summary does.
@Suite(.integration, .timeLimit(.minutes(20)))
struct NotRunGroupingTests {
    @Test func notRunFlowsAreOneLinePerReasonAndNeverAnnotated() async throws {
        let folder = NSTemporaryDirectory() + "flowcheck-notrun-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lines = Locked<[String]>([])
        let console = FlowCheckCommand.Console(out: { line in lines.withLock { $0.append(line) } }, err: { line in lines.withLock { $0.append(line) } })
        let summary = folder + "/summary.md"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let code = await FlowCheckCommand().run(["--driver", "builtin:example", "--no-derived", "--junit", folder + "/j.xml", "--markdown", folder + "/m.md", SpecsEarnTheirPlaceTests.specsFolder], console: console, environment: .init(githubActions: true, stepSummaryPath: summary))
        #expect(code == .failed)
        let printed = lines.withLock { $0 }
        let notRun = printed.filter { $0.contains(" not run: ") }
        #expect(notRun.count == 4, "one line per reason: \(notRun)")
        #expect(notRun.allSatisfy { $0.hasPrefix("⏭ ") })
        // One missing capability is one line, whichever step of each flow needs it.
        #expect(!notRun.contains { $0.contains(", and step ") }, "\(notRun)")
        #expect(!printed.contains { $0.hasPrefix("::") && $0.contains("%3A not run::") }, "no annotation for a flow not run")
        let total = notRun.compactMap { Int($0.dropFirst(2).prefix { $0.isNumber }) }.reduce(0, +)
        let closing = try #require(printed.last)
        #expect(closing.contains(", \(total) not run"), "\(closing)")
        let document = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(document.contains("\(total) not run"), "the step summary counts them the same way")
    }
}

/// The baseline's header is a command a shell reads back word for word.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ShellQuotingTests {
    @Test func aShellReadsTheWordsBack() throws {
        let words = ["plain", "a'b", "it's 'quoted'", "sp ace", "", "$HOME", "^E2E-(A|B)$", "back\\slash", "new\nline"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The quoted words are given to a second shell as text, as a person pasting the header would.
        process.arguments = ["-c", "eval \"set -- \" \"$1\"; for w in \"$@\"; do printf '<%s>' \"$w\"; done", "sh", words.map(FlowCheckCommand.shellQuoted).joined(separator: " ")]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == words.map { "<\($0)>" }.joined(), "\(text)")
    }
}
