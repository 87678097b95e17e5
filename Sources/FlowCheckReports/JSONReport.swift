import Foundation
import FlowCheckRunner

/// Machine-readable results (`--format json`), one document: the format's version, the tool's,
/// when the run started, every flow that ran (outcome, wall time, failed checks as display text
/// and as typed values, requirement ids), every flow `--filter` or `--shard` left out and why,
/// and every invalid spec with its problems as structured diagnostics. Keys are sorted so the
/// output is stable. The published schema is `reports/flowcheck-report.schema.json`.
public enum JSONReport {
    /// Raised when a key changes meaning or goes away; adding keys keeps it.
    public static let formatVersion = 1

    /// A flow that was selected out of the run, and why.
    public struct SkippedFlow: Sendable, Equatable {
        public enum Reason: Sendable, Equatable {
            /// Its id does not match `--filter`.
            case filter(pattern: String)
            /// It belongs to another `--shard` slice.
            case shard(index: Int, count: Int)
        }

        public var id: String
        public var file: String
        public var reason: Reason

        public init(id: String, file: String, reason: Reason) {
            self.id = id
            self.file = file
            self.reason = reason
        }
    }

    public static func render(_ run: RunResult, startedAt: Date = Date(timeIntervalSince1970: 0), skipped: [SkippedFlow] = []) -> String {
        let flows: [[String: Any]] = run.flows.map { flow($0, baselined: run.baselineReason($0)) }
        var root: [String: Any] = [
            "formatVersion": formatVersion,
            "tool": ["name": "flowcheck", "version": ToolVersion.current],
            "startedAt": timestamp(startedAt),
            "driver": run.driverName,
            "summary": [
                "passed": run.passed, "passedWithSkips": run.passedWithSkips, "failed": run.failed, "errors": run.errors,
                "invalid": run.invalidSpecs.count, "skipped": skipped.count, "baselined": run.baselinedFailures, "notRun": run.skipped,
            ],
            "flows": flows,
            "skippedFlows": skipped.map(skippedFlow),
            "invalidSpecs": run.invalidSpecs.map(invalidSpec),
        ]
        if !run.baselined.isEmpty { root["unexpectedlyPassing"] = run.unexpectedlyPassing }
        if let interruption = run.interruption {
            root["interrupted"] = ["signal": interruption.signal, "notRun": interruption.notRun] as [String: Any]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func flow(_ flow: FlowResult, baselined: String?) -> [String: Any] {
        var object: [String: Any] = [
            "id": flow.id, "title": flow.title, "file": flow.file, "provider": flow.provider,
            "status": flow.status.rawValue, "source": ["seed": flow.seed, "passage": flow.passage],
            "requirements": flow.requirements,
            "durationSeconds": (flow.duration * 1000).rounded() / 1000,
            "failures": flow.failures.map(failure),
        ]
        if let derivation = flow.derivation {
            // A variant derived from a written flow: which, how, and the rule it is judged by.
            object["derived"] = [
                "from": derivation.parent, "family": derivation.family.rawValue, "variant": derivation.variant,
                "rule": derivation.rule.id, "statement": derivation.rule.statement, "description": derivation.description,
            ]
        }
        if let error = flow.harnessError {
            object["error"] = error.text
            // Who broke, where, and what, as data.
            var detail: [String: Any] = ["party": error.party.rawValue, "message": error.message]
            if let place = error.place {
                detail["step"] = place.step
                switch place {
                case .before: detail["when"] = "before"
                case .during: detail["when"] = "during"
                case .after: detail["when"] = "after"
                }
            }
            if let line = error.line { detail["line"] = line }
            object["harnessError"] = detail
        }
        if let baselined { object["baselined"] = baselined }
        if !flow.skips.isEmpty { object["skipped"] = flow.skips.map { ["step": $0.step, "line": $0.line, "check": $0.check, "reason": $0.reason] as [String: Any] } }
        return object
    }

    private static func failure(_ failure: CheckFailure) -> [String: Any] {
        var object: [String: Any] = [
            "step": failure.step, "line": failure.line, "check": failure.check, "message": failure.message,
            "expected": failure.expected, "actual": failure.actual, "requirements": failure.requirements,
        ]
        if let values = failure.values {
            var typed: [String: Any] = ["matcher": values.matcher.map { $0.rawValue as Any } ?? NSNull(), "expected": value(values.expected), "actual": value(values.actual)]
            switch values.source {
            case .check(let kind): typed["kind"] = kind.rawValue
            case .invariant(let id):
                typed["kind"] = "invariant"
                typed["invariant"] = id
            }
            object["values"] = typed
        }
        return object
    }

    private static func value(_ value: FailureValues.Value?) -> Any {
        switch value {
        case .string(let text)?: return ["type": "string", "value": text]
        case .integer(let number)?: return ["type": "integer", "value": number]
        case .absent?: return ["type": "absent"]
        case .masked(let characters)?: return ["type": "masked", "characters": characters]
        case nil: return NSNull()
        }
    }

    private static func skippedFlow(_ flow: SkippedFlow) -> [String: Any] {
        switch flow.reason {
        case .filter(let pattern):
            return ["id": flow.id, "file": flow.file, "reason": "filter", "detail": "its id does not match --filter \(pattern)"]
        case .shard(let index, let count):
            return ["id": flow.id, "file": flow.file, "reason": "shard", "detail": "it is in another slice than --shard \(index)/\(count)"]
        }
    }

    private static func invalidSpec(_ spec: InvalidSpec) -> [String: Any] {
        [
            "file": spec.file, "line": spec.line, "column": spec.column, "messages": spec.messages,
            "diagnostics": spec.diagnostics.map { diagnostic in
                ["file": diagnostic.file, "line": diagnostic.location.line, "column": diagnostic.location.column, "path": diagnostic.path, "message": diagnostic.title, "fix": diagnostic.fix] as [String: Any]
            },
        ]
    }

    /// ISO 8601 in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
