import FlowCheckRunner

/// GitHub Actions workflow commands that put a failure on the spec's line in a pull request:
/// `::error file=<spec>,line=<line>::<message>`.
public enum GitHubAnnotations {
    /// One annotation per failed or errored flow and per invalid spec.
    public static func render(_ run: RunResult) -> [String] {
        var lines: [String] = []
        for flow in run.flows {
            switch flow.status {
            case .passed:
                continue
            case .passedWithSkips:
                // Not a failure, and not a silent pass either: a warning on the skipped check.
                let line = flow.skips.first?.line ?? 1
                lines.append(command(file: flow.file, line: line, title: "\(flow.id): checks skipped", message: flow.skips.map(\.message).joined(separator: "\n"), level: "warning"))
            case .failed:
                let line = flow.failures.first?.line ?? 1
                let message = "\(flow.id) failed: " + flow.failures.map(\.message).joined(separator: "\n")
                lines.append(command(file: flow.file, line: line, title: "\(flow.id) does not conform", message: message))
            case .error:
                lines.append(command(file: flow.file, line: 1, title: "\(flow.id): harness error", message: flow.errorMessage ?? "harness error"))
            }
        }
        for invalid in run.invalidSpecs {
            lines.append(command(file: invalid.file, line: invalid.line, title: "invalid spec", message: invalid.messages.joined(separator: "\n")))
        }
        return lines
    }

    /// The invalid specs alone (for `flowcheck validate`).
    public static func render(invalid: [InvalidSpec]) -> [String] {
        render(RunResult(flows: [], invalidSpecs: invalid, driverName: ""))
    }

    static func command(file: String, line: Int, title: String, message: String, level: String = "error") -> String {
        "::\(level) file=\(property(file)),line=\(line),title=\(property(title))::\(data(message))"
    }

    /// Escaping of a command's message (GitHub's toolkit `escapeData`).
    static func data(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Escaping of a property value (`escapeProperty`).
    static func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
