import Foundation
import FlowCheckCoreDriver
import FlowCheckReports
import FlowCheckRunner
import FlowCheckSpec

/// The `flowcheck` command as a library: parse, load, run, report, and decide the exit code.
/// It never prints or exits itself; it hands text to the sinks it is given.
public struct FlowCheckCommand: Sendable {
    /// Where console text goes. The executable prints it; tests collect it.
    public struct Console: Sendable {
        public var out: @Sendable (String) -> Void
        public var err: @Sendable (String) -> Void

        public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
            self.out = out
            self.err = err
        }
    }

    /// Exit codes, as the README documents them.
    public enum ExitCode: Int32, Sendable {
        case passed = 0
        case failed = 1
        case usageOrInvalidSpec = 2
        case harnessFailure = 3
    }

    public let driver: any FlowDriver

    public init(driver: any FlowDriver = CoreSDKDriver()) {
        self.driver = driver
    }

    /// Runs the command line `arguments` (without the program name).
    public func run(_ arguments: [String], console: Console) async -> ExitCode {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments)
        } catch {
            console.err("flowcheck: \(error)\n\n\(CommandLineOptions.usage)")
            return .usageOrInvalidSpec
        }
        if options.help {
            console.out(CommandLineOptions.usage)
            return .passed
        }
        let loaded: SpecLoader.Result
        do {
            loaded = try SpecLoader().load(paths: options.paths)
        } catch {
            console.err("flowcheck: \(error)")
            return .usageOrInvalidSpec
        }
        var specs = loaded.specs
        var skipped = 0
        if let pattern = options.filter, let regex = try? NSRegularExpression(pattern: pattern) {
            let kept = specs.filter { regex.firstMatch(in: $0.id, range: NSRange($0.id.startIndex..., in: $0.id)) != nil }
            skipped = specs.count - kept.count
            specs = kept
            if specs.isEmpty && loaded.invalidFiles.isEmpty {
                console.err("flowcheck: no flow id matches --filter \(pattern)")
                return .usageOrInvalidSpec
            }
        }
        let invalid = Self.invalidSpecs(loaded)
        for spec in invalid {
            console.err(ControlCharacters.escaped(spec.messages.joined(separator: "\n")))
        }
        if options.list {
            for spec in specs {
                let redactor = Redactor(secrets: spec.fixture.secrets)
                console.out(ControlCharacters.escaped(redactor.scrub("\(spec.id)  \(spec.title)  (\(spec.file))")))
            }
            return invalid.isEmpty ? .passed : .usageOrInvalidSpec
        }
        if loaded.specs.isEmpty && invalid.isEmpty {
            console.err("flowcheck: no spec files (*.json) found in \(options.paths.joined(separator: " "))")
            return .usageOrInvalidSpec
        }

        var runnerOptions = FlowRunner.Options()
        if let jobs = options.jobs { runnerOptions.concurrency = jobs }
        let flows = await FlowRunner(driver: driver, options: runnerOptions).run(specs)
        let run = RunResult(flows: flows, invalidSpecs: invalid, driverName: driver.name)
        for flow in flows { console.out(Self.consoleLine(flow)) }

        var reportFailed = false
        for (path, text) in [(options.junitPath, JUnitReport.render(run)), (options.markdownPath, MarkdownReport.render(run))] {
            do {
                try ReportWriter.write(text, to: path)
            } catch {
                console.err("flowcheck: could not write \(path): \(error.localizedDescription)")
                reportFailed = true
            }
        }
        if !reportFailed { console.out("Reports: \(options.junitPath), \(options.markdownPath)") }
        if !invalid.isEmpty { console.out("\(invalid.count) invalid spec\(invalid.count == 1 ? "" : "s") (see above)") }
        let failed = run.failed + run.errors + invalid.count
        console.out("\(run.passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : ""))

        if reportFailed || run.errors > 0 { return .harnessFailure }
        if !invalid.isEmpty { return .usageOrInvalidSpec }
        return run.failed > 0 ? .failed : .passed
    }

    static func invalidSpecs(_ loaded: SpecLoader.Result) -> [InvalidSpec] {
        loaded.invalidFiles.map { file in
            let diagnostics = loaded.diagnostics.filter { $0.file == file }
            return InvalidSpec(file: file, messages: diagnostics.map(\.description), line: diagnostics.first?.location.line ?? 1)
        }
    }

    /// `✔ MLT-AUTH  title`, or `✘` with the failures indented under it.
    static func consoleLine(_ flow: FlowResult) -> String {
        ControlCharacters.escaped(plainLine(flow))
    }

    private static func plainLine(_ flow: FlowResult) -> String {
        switch flow.status {
        case .passed:
            return "✔ \(flow.id)  \(flow.title)"
        case .failed:
            return (["✘ \(flow.id)  \(flow.title)"] + flow.failures.map { "    \($0.message)" }).joined(separator: "\n")
        case .error:
            return "! \(flow.id)  \(flow.title)\n    harness error: \(flow.errorMessage ?? "unknown")"
        }
    }
}
