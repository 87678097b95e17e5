import Foundation
import FlowCheckRunner

/// Renders results as JUnit XML that validates against the Jenkins xUnit schema
/// (`reports/junit-10.xsd`), which GitLab and GitHub's JUnit actions also read.
///
/// One `testsuite` per flow, derived variants included, with its spec file (the schema allows `file` there; it allows neither `file` nor
/// `line` on `testcase`, so the line travels in the text: see ``located(_:line:_:)``), one
/// `testcase` per flow named after its id; `<failure>` when the SDK did not conform, `<error>`
/// when the flow could not be judged (its `type` the party that broke: `sdk`, `driver`,
/// `driver-protocol`, `spec`, `harness`) or the spec is invalid; the redacted HTTP transcript in `<system-out>`;
/// the requirement ids the flow cites as one `<property name="FLOW-ID requirements" value="ID, ID">`
/// in the suite's `<properties>`.
public enum JUnitReport {
    public static func render(_ run: RunResult) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let notRun = run.interruption?.notRun ?? []
        let total = run.flows.count + run.invalidSpecs.count + notRun.count
        let errors = run.errors + run.invalidSpecs.count
        let time = run.flows.reduce(0) { $0 + $1.duration }
        // A baselined failure is known debt: skipped, so dashboards stay green on it.
        out += "<testsuites name=\"flowcheck\" tests=\"\(total)\" failures=\"\(run.newFailures)\" errors=\"\(errors)\" time=\"\(seconds(time))\">\n"
        for flow in run.flows {
            let baselineReason = run.baselineReason(flow)
            let failures = flow.status == .failed && baselineReason == nil ? 1 : 0
            let flowErrors = flow.status == .error ? 1 : 0
            let flowSkipped = flow.status == .passedWithSkips || flow.status == .skipped || baselineReason != nil ? 1 : 0
            out += "  <testsuite name=\"\(attr("\(flow.provider).\(flow.id)"))\" tests=\"1\" failures=\"\(failures)\" errors=\"\(flowErrors)\" skipped=\"\(flowSkipped)\" time=\"\(seconds(flow.duration))\" file=\"\(attr(flow.file))\">\n"
            if !flow.requirements.isEmpty {
                // The schema allows <properties> on a testsuite, not on a testcase; each suite holds
                // one flow. One property named after the flow, the ids comma-separated: some
                // readers (xunitparser) gather every suite's properties into one table and refuse
                // a name given twice anywhere in the file.
                out += "    <properties>\n"
                out += "      <property name=\"\(attr("\(flow.id) requirements"))\" value=\"\(attr(flow.requirements.joined(separator: ", ")))\"/>\n"
                out += "    </properties>\n"
            }
            out += "    <testcase name=\"\(attr("\(flow.id): \(flow.title)"))\" classname=\"\(attr("flowcheck.\(flow.provider)"))\" time=\"\(seconds(flow.duration))\">\n"
            switch flow.status {
            case .passed:
                break
            case .passedWithSkips:
                // Every check that could be made held; the others are named, with why.
                let detail = flow.skips.map(\.message).joined(separator: "\n")
                out += "      <skipped message=\"\(attr(flow.skips.first?.message ?? "checks skipped"))\">\(text(detail))</skipped>\n"
            case .failed:
                let line = flow.failures.first?.line ?? 1
                let first = located(flow.file, line: line, flow.failures.first?.message ?? "failed")
                let detail = flow.failures.map { located(flow.file, line: $0.line, $0.message) } + [frame(flow.file, line: line)]
                if let reason = baselineReason {
                    // The failure stays inside for the record; the element says why it is not one.
                    out += "      <skipped type=\"baselined\" message=\"\(attr("baselined: \(reason)"))\">\(text(detail.joined(separator: "\n")))</skipped>\n"
                } else {
                    out += "      <failure type=\"conformance\" message=\"\(attr(first))\">\(text(detail.joined(separator: "\n")))</failure>\n"
                }
            case .error:
                // Located as a failure is: `spec-file:line:` of the step it happened in leads the
                // message and the text, and the text ends with the frame; the type names who broke.
                let line = flow.harnessError?.line ?? 1
                let message = located(flow.file, line: line, flow.errorMessage ?? "harness error")
                let party = flow.harnessError?.party ?? .harness
                out += "      <error type=\"\(attr(party.rawValue))\" message=\"\(attr(firstLine(message)))\">\(text(message + "\n" + frame(flow.file, line: line)))</error>\n"
            case .skipped:
                let message = "not run: " + (flow.skips.first?.reason ?? "the driver cannot run it")
                out += "      <skipped type=\"unsupported\" message=\"\(attr(message))\"/>\n"
            }
            let transcript = flow.transcript.isEmpty ? "(no HTTP exchanges)" : flow.transcript.joined(separator: "\n\n")
            out += "      <system-out>\(text("Spec: \(flow.file)\nSource: \(flow.seed), \(flow.passage)\n\n" + transcript))</system-out>\n"
            out += "    </testcase>\n"
            out += "  </testsuite>\n"
        }
        for invalid in run.invalidSpecs {
            let first = invalid.messages.first ?? "invalid spec"
            out += "  <testsuite name=\"\(attr("invalid.\(invalid.file)"))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\" file=\"\(attr(invalid.file))\">\n"
            out += "    <testcase name=\"\(attr(invalid.file))\" classname=\"flowcheck.specs\" time=\"0\">\n"
            // The first problem's line leads and ends the text: a reader that takes the first
            // `file:line` and one that takes the last both land on it.
            let located = first.hasPrefix("\(invalid.file):") ? first : self.located(invalid.file, line: invalid.line, first)
            let detail = invalid.messages + [frame(invalid.file, line: invalid.line)]
            out += "      <error type=\"invalid-spec\" message=\"\(attr(firstLine(located)))\">\(text(detail.joined(separator: "\n")))</error>\n"
            out += "    </testcase>\n"
            out += "  </testsuite>\n"
        }
        if let interruption = run.interruption {
            // A flow the interrupted run did not finish: named, skipped, never passed.
            let message = "not run: the run was interrupted by \(interruption.signal)"
            for id in interruption.notRun {
                out += "  <testsuite name=\"\(attr("notRun.\(id)"))\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0\">\n"
                out += "    <testcase name=\"\(attr(id))\" classname=\"flowcheck.notRun\" time=\"0\">\n"
                out += "      <skipped message=\"\(attr(message))\"/>\n"
                out += "    </testcase>\n"
                out += "  </testsuite>\n"
            }
        }
        out += "</testsuites>\n"
        return out
    }

    /// `spec-file:line: message`, as compilers write it: what GitHub's JUnit actions and editors
    /// read a location from.
    static func located(_ file: String, line: Int, _ message: String) -> String {
        "\(file):\(line): \(message)"
    }

    /// The last line of a failure's text, like a stack frame: `    at spec-file:line`. Readers
    /// that search the text for the last `file:line` (mikepenz/action-junit-report) find this
    /// one, never a location a value inside a message happens to hold.
    static func frame(_ file: String, line: Int) -> String {
        "    at \(file):\(line)"
    }

    /// A plain decimal with millisecond precision, as the schema's time pattern wants.
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", max(0, value))
    }

    private static func firstLine(_ s: String) -> String {
        s.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? s
    }

    /// Escapes for an attribute value (newlines kept as character references).
    static func attr(_ s: String) -> String {
        escape(s, attribute: true)
    }

    /// Escapes for element text. No CDATA, so `]]>` needs no special case beyond `>`.
    static func text(_ s: String) -> String {
        escape(s, attribute: false)
    }

    /// One pass over the UTF-8 bytes (a report escapes every transcript, so this is on the
    /// suite's hot path). In valid UTF-8 the only multi-byte characters XML 1.0 forbids are
    /// U+FFFE and U+FFFF (`EF BF BE`, `EF BF BF`): surrogates cannot occur in a `String`.
    private static func escape(_ s: String, attribute: Bool) -> String {
        let bytes = s.utf8
        if !bytes.contains(where: { needsEscape($0, attribute: attribute) }) { return s }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): if attribute { out.append(contentsOf: "&quot;".utf8) } else { out.append(byte) }
            case UInt8(ascii: "\n"): if attribute { out.append(contentsOf: "&#10;".utf8) } else { out.append(byte) }
            case UInt8(ascii: "\t"): if attribute { out.append(contentsOf: "&#9;".utf8) } else { out.append(byte) }
            case UInt8(ascii: "\r"): out.append(contentsOf: "&#13;".utf8)
            case 0..<0x20:
                // XML 1.0 forbids it even as a reference: show it, do not drop it silently.
                out += Array(String(format: "\\u{%X}", UInt32(byte)).utf8)
            case 0xEF:
                let next = bytes.index(after: index)
                if next != bytes.endIndex, bytes[next] == 0xBF, bytes.index(after: next) != bytes.endIndex,
                   case let last = bytes[bytes.index(after: next)], last == 0xBE || last == 0xBF {
                    out += Array(String(format: "\\u{%X}", 0xFFC0 | UInt32(last & 0x3F)).utf8)
                    index = bytes.index(after: bytes.index(after: next))
                    continue
                }
                out.append(byte)
            default: out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `byte` is one the escape rewrites (or may: `EF` starts U+FFFE and U+FFFF).
    private static func needsEscape(_ byte: UInt8, attribute: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\r"), 0xEF: return true
        case UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\t"): return attribute
        case 0..<0x20: return true
        default: return false
        }
    }

    /// XML 1.0 Char production.
    static func isAllowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF: return true
        case 0xE000...0xFFFD: return true
        case 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
