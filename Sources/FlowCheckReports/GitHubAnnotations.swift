import FlowCheckRunner

/// GitHub Actions workflow commands that put a failure on the spec's line in a pull request:
/// `::error file=<spec>,line=<line>::<message>`.
///
/// One escaping rule for everything in them: the runner's own (`%`, CR and LF percent-encoded
/// in the message; `:` and `,` too in a property), and every other control character written
/// as `\u{X}` text, values cut after ``ValueCut/line`` characters. A value therefore never
/// ends the command or starts a line of its own that the runner would execute.
public enum GitHubAnnotations {
    /// GitHub shows at most this many annotations of each level per step; the rest are dropped silently.
    public static let shownPerLevel = 10

    /// One annotation per failed or errored flow and per invalid spec, a warning per flow that
    /// passed with skipped checks (none for a flow not run). Past ``shownPerLevel`` of a level, the last one shown says how
    /// many more there are and names them.
    public static func render(_ run: RunResult) -> [String] {
        var errors: [Annotation] = []
        var warnings: [Annotation] = []
        for flow in run.flows {
            switch flow.status {
            case .passed:
                continue
            case .passedWithSkips:
                // Not a failure, and not a silent pass either: a warning on the skipped check.
                let line = flow.skips.first?.line ?? 1
                warnings.append(Annotation(name: flow.id, file: flow.file, line: line, title: "\(flow.id): checks skipped", message: flow.skips.map { ValueCut.cut($0.message, limit: ValueCut.line) }.joined(separator: "\n")))
            case .failed:
                let line = flow.failures.first?.line ?? 1
                if let reason = run.baselineReason(flow) {
                    // Known debt: a warning, so the check stays green and the debt stays visible.
                    warnings.append(Annotation(name: flow.id, file: flow.file, line: line, title: "\(flow.id): failed as baselined", message: ValueCut.cut("baselined: \(reason)", limit: ValueCut.line)))
                    continue
                }
                let message = "\(flow.id) failed: " + flow.failures.map { ValueCut.cut($0.message, limit: ValueCut.line) }.joined(separator: "\n")
                errors.append(Annotation(name: flow.id, file: flow.file, line: line, title: "\(flow.id) does not conform", message: message))
            case .error:
                errors.append(Annotation(name: flow.id, file: flow.file, line: flow.harnessError?.line ?? 1, title: "\(flow.id): harness error", message: ValueCut.cut(flow.errorMessage ?? "harness error", limit: ValueCut.line)))
            case .skipped:
                // Not run (a provider or action the driver lacks): said once per reason on the
                // console and in the step summary, never annotated: dozens of them took 7 of
                // GitHub's 10 annotation slots from the failures.
                continue
            }
        }
        for invalid in run.invalidSpecs {
            errors.append(Annotation(name: invalid.file, file: invalid.file, line: invalid.line, title: "invalid spec", message: invalid.messages.map { ValueCut.cut($0, limit: ValueCut.line) }.joined(separator: "\n")))
        }
        return capped(errors, level: "error") + capped(warnings, level: "warning")
    }

    /// The invalid specs alone (for `flowcheck validate`).
    public static func render(invalid: [InvalidSpec]) -> [String] {
        render(RunResult(flows: [], invalidSpecs: invalid, driverName: ""))
    }

    struct Annotation {
        var name: String
        var file: String
        var line: Int
        var title: String
        var message: String
    }

    /// At most ``shownPerLevel`` commands: when there are more, the last place says how many
    /// more there are, and which, instead of GitHub dropping them without a word.
    static func capped(_ annotations: [Annotation], level: String) -> [String] {
        guard annotations.count > shownPerLevel else {
            return annotations.map { command(file: $0.file, line: $0.line, title: $0.title, message: $0.message, level: level) }
        }
        let shown = annotations.prefix(shownPerLevel - 1)
        let rest = annotations.dropFirst(shownPerLevel - 1)
        let noun = level == "error" ? "failures" : "warnings"
        let summary = "GitHub shows \(shownPerLevel) annotations per step: \(rest.count) more \(noun) are not annotated here: "
            + ValueCut.cut(rest.map(\.name).joined(separator: ", "), limit: ValueCut.line) + ". The JUnit report and the step summary list them all."
        return shown.map { command(file: $0.file, line: $0.line, title: $0.title, message: $0.message, level: level) }
            + ["::\(level) title=\(property("\(rest.count) more \(noun)"))::\(data(summary))"]
    }

    static func command(file: String, line: Int, title: String, message: String, level: String = "error") -> String {
        "::\(level) file=\(property(file)),line=\(line),title=\(property(title))::\(data(message))"
    }

    /// Escaping of a command's message (GitHub's toolkit `escapeData`), plus every other
    /// control character as `\u{X}` text.
    static func data(_ s: String) -> String {
        ControlEscape.escaped(s, special: ["%": "%25", "\r": "%0D", "\n": "%0A"])
    }

    /// Escaping of a property value (`escapeProperty`).
    static func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
