/// A problem in a spec file: what is wrong, where (file, line:column, JSON path) and how to fix it.
///
/// Model: hurl_core's error trait. The text form is the one editors and CI logs understand:
/// `file:line:column: error: title at path`, then an indented `fix:` line. A warning reads
/// `file:line:column: warning: ...` and never makes a spec invalid.
public struct SpecDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the problem makes the spec invalid.
    public enum Severity: String, Sendable, Equatable {
        case error
        case warning
    }

    public var file: String
    public var location: SourceLocation
    public var path: String
    public var title: String
    public var fix: String
    public var severity: Severity

    public init(file: String, location: SourceLocation, path: String, title: String, fix: String, severity: Severity = .error) {
        self.file = file
        self.location = location
        self.path = path
        self.title = title
        self.fix = fix
        self.severity = severity
    }

    /// Always two lines: every part is kept to one line (control characters escaped as JSON
    /// would), so nothing from a spec can start a line of its own.
    public var description: String {
        let one = SpecText.oneLine
        return "\(one(file)):\(location.line):\(location.column): \(severity.rawValue): \(one(title)) at \(one(path))\n  fix: \(one(fix))"
    }
}
