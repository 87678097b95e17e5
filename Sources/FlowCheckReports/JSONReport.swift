import Foundation
import FlowCheckRunner

/// Machine-readable results (`--format json`): flows with the requirement ids they cite,
/// outcomes, failed checks with their spec file, line and requirement ids, invalid specs. Keys are sorted so the output is stable.
public enum JSONReport {
    public static func render(_ run: RunResult, skipped: Int = 0) -> String {
        let flows: [[String: Any]] = run.flows.map { flow in
            var object: [String: Any] = [
                "id": flow.id, "title": flow.title, "file": flow.file, "provider": flow.provider,
                "status": flow.status.rawValue, "source": ["seed": flow.seed, "passage": flow.passage],
                "requirements": flow.requirements,
                "failures": flow.failures.map { ["step": $0.step, "line": $0.line, "check": $0.check, "expected": $0.expected, "actual": $0.actual, "requirements": $0.requirements] as [String: Any] },
            ]
            if let error = flow.errorMessage { object["error"] = error }
            if !flow.skips.isEmpty { object["skipped"] = flow.skips.map { ["step": $0.step, "line": $0.line, "check": $0.check, "reason": $0.reason] as [String: Any] } }
            return object
        }
        let invalid: [[String: Any]] = run.invalidSpecs.map { ["file": $0.file, "line": $0.line, "messages": $0.messages] }
        let root: [String: Any] = [
            "driver": run.driverName,
            "summary": ["passed": run.passed, "failed": run.failed, "errors": run.errors, "invalid": run.invalidSpecs.count, "skipped": skipped],
            "flows": flows,
            "invalidSpecs": invalid,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
