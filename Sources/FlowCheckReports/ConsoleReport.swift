import FlowCheckRunner
import FlowCheckSpec

/// What a person reads on the console, one rule for every value printed there: no raw control
/// character (a line feed shows as `\n`, so a value can never begin a console line of its
/// own, where a CI runner could read it as a command), long values cut with a marker.
public enum ConsoleReport {
    /// `✔ MLT-AUTH  title`, or `✘` with the failures indented under it; coloured on a terminal.
    /// A failure `--baseline` expects (`baselined`: its reason) says so on the head line.
    public static func line(_ flow: FlowResult, colour: Bool = false, baselined: String? = nil) -> String {
        let paint: (String, String) -> String = { code, text in colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        let head = " \(value(flow.id))  \(value(flow.title))"
        switch flow.status {
        case .passed:
            return paint("32", "✔") + head
        case .passedWithSkips:
            return ([paint("36", "⏭") + head] + flow.skips.map { "    " + value($0.message) }).joined(separator: "\n")
        case .failed:
            if let baselined {
                return ([paint("33", "✘") + head + "  (baselined: \(value(baselined)))"] + flow.failures.map { "    " + value($0.message) }).joined(separator: "\n")
            }
            return ([paint("31", "✘") + head] + flow.failures.map { "    " + value($0.message) }).joined(separator: "\n")
        case .error:
            return paint("33", "!") + head + "\n    harness error: " + value(flow.errorMessage ?? "unknown")
        case .skipped:
            return paint("36", "⏭") + head + "\n    not run: " + value(flow.skips.first?.reason ?? "the driver cannot run it")
        }
    }

    /// An invalid spec's problems, each `file:line:col: error: ... at path` and its `fix:` line;
    /// the values inside them escaped like any other.
    public static func invalid(_ spec: InvalidSpec) -> String {
        guard !spec.diagnostics.isEmpty else { return spec.messages.map(value).joined(separator: "\n") }
        return spec.diagnostics.map { diagnostic in
            var shown = diagnostic
            shown.file = value(diagnostic.file)
            shown.title = value(diagnostic.title)
            shown.path = value(diagnostic.path)
            shown.fix = value(diagnostic.fix)
            return shown.description
        }.joined(separator: "\n")
    }

    /// One value made safe for one console line: every control character as text (`\n`, `\r`,
    /// `\t`, `\u{1B}`), cut after ``ValueCut/line`` characters.
    public static func value(_ text: String) -> String {
        ControlEscape.escaped(ValueCut.cut(text, limit: ValueCut.line), special: ["\n": "\\n", "\r": "\\r", "\t": "\\t"])
    }

    /// The flows not run, one line per reason, in the order the reasons first came (the ids in
    /// run order, at most ``notRunListed`` of them named): a driver of one provider leaves dozens
    /// of flows for the same reason, which one line says.
    public static func notRun(_ flows: [FlowResult], colour: Bool = false) -> [String] {
        MarkdownReport.notRunGroups(flows).map { reason, listed in
            let named = listed.sorted(by: NaturalOrder.precedes).prefix(notRunListed).joined(separator: ", ")
            let more = listed.count > notRunListed ? " and \(listed.count - notRunListed) more" : ""
            return (colour ? "\u{1B}[36m⏭\u{1B}[0m" : "⏭") + " \(listed.count) not run: " + ControlCharacters.escaped(reason) + " (\(named)\(more))"
        }
    }

    /// How many ids a not-run line names.
    public static let notRunListed = 5
}
