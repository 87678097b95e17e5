import Foundation
import FlowCheckSpec

/// Where a run that covers only part of the full report writes its own: `reports/subset/`.
///
/// The reports at the default paths are the full run's (CI commits `reports/flowcheck.md` and
/// fails when it changes). A run that leaves out a spec file the JUnit report at the default
/// path covers and that still exists (one spec, a subfolder), or that `--filter`, `--shard` or
/// `--no-derived` narrows, writes beside it instead and says so; chosen paths (`--junit`,
/// `--markdown`) are written as given. A full run after a spec was renamed or removed is still
/// a full run: it replaces the reports, so a stale committed one shows in CI's diff.
enum SubsetReports {
    static let defaultJUnit = "reports/junit.xml"
    static let defaultMarkdown = "reports/flowcheck.md"
    static let folder = "reports/subset"
    /// The folder the committed full report is the run of.
    static let defaultFolder = "specs"

    struct Redirect {
        var junit: String
        var markdown: String
        var sentence: String
    }

    /// The subset's paths, or nil when the run writes where it was told. Each report left at
    /// its default path moves; one given with `--junit` or `--markdown` (`chosen`) is written
    /// as given, even at the default path.
    /// - Parameters:
    ///   - files: the spec files this run loaded (valid or not).
    ///   - narrowed: `--filter`, `--shard` or `--no-derived` left flows out.
    static func redirect(junit: String, markdown: String, chosen: Set<String>, files: Set<String>, narrowed: Bool) -> Redirect? {
        let moves = (junit: !chosen.contains("--junit") && junit == defaultJUnit, markdown: !chosen.contains("--markdown") && markdown == defaultMarkdown)
        guard moves.junit || moves.markdown, let why = subsetReason(files: files, narrowed: narrowed) else { return nil }
        let which = moves.junit && moves.markdown ? "its reports are" : moves.junit ? "its JUnit report is" : "its Markdown report is"
        let full = moves.junit && moves.markdown ? "the full run's are left as they are" : "the full run's is left as it is"
        return Redirect(
            junit: moves.junit ? folder + "/junit.xml" : junit, markdown: moves.markdown ? folder + "/flowcheck.md" : markdown,
            sentence: "\(why), so \(which) in \(folder)/ and \(full) (--junit and --markdown choose where)")
    }

    /// `matrix`'s paths for a run of part of the suite (`--filter`, or not every spec file):
    /// the committed `reports/matrix.md` is the full suite's.
    static func matrixRedirect(markdown: String, json: String, chosen: Set<String>, files: Set<String>, narrowed: Bool) -> MatrixRedirect? {
        let moves = (markdown: !chosen.contains("--markdown") && markdown == defaultMatrixMarkdown, json: !chosen.contains("--json") && json == defaultMatrixJSON)
        guard moves.markdown || moves.json, let why = subsetReason(files: files, narrowed: narrowed) else { return nil }
        return MatrixRedirect(
            markdown: moves.markdown ? folder + "/matrix.md" : markdown, json: moves.json ? folder + "/matrix.json" : json,
            sentence: "\(why), so its matrix is in \(folder)/ and the full suite's is left as it is (--markdown and --json choose where)")
    }

    struct MatrixRedirect {
        var markdown: String
        var json: String
        var sentence: String
    }

    static let defaultMatrixMarkdown = "reports/matrix.md"
    static let defaultMatrixJSON = "reports/matrix.json"

    /// Why this run is part of the full one, or nil when it is the full run (or there is no
    /// full run's report to keep).
    private static func subsetReason(files: Set<String>, narrowed: Bool) -> String? {
        // The spec files the full report covers that are still there: a run that loads them all,
        // unnarrowed, is a full run, whatever flows were renamed or removed meanwhile. The JUnit
        // report names them; on a fresh clone it is not there (git ignores it) while the
        // committed Markdown report is, and that one is the run of `specs/`.
        // Compared as absolute, standardised paths: `./specs/a.json` is `specs/a.json`.
        func normal(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let covered: Set<String>
        let source: String
        if let text = try? String(contentsOfFile: defaultJUnit, encoding: .utf8) {
            (covered, source) = (specFiles(text), defaultJUnit + " covers")
        } else if FileManager.default.fileExists(atPath: defaultMarkdown) || FileManager.default.fileExists(atPath: defaultMatrixMarkdown) {
            (covered, source) = (Set((try? SpecLoader.standard.specFiles(in: [defaultFolder])) ?? []), "in " + defaultFolder + "/")
        } else {
            return nil
        }
        let standing = Set(covered.filter { FileManager.default.fileExists(atPath: $0) }.map(normal))
        let left = standing.subtracting(files.map(normal))
        guard narrowed || !left.isEmpty else { return nil }
        return narrowed ? "--filter, --shard or --no-derived left flows out" : "this run leaves out \(left.count) of the \(standing.count) spec files \(source)"
    }

    /// The spec files a JUnit report of ours names: each suite's `file` attribute.
    static func specFiles(_ text: String) -> Set<String> {
        var files = Set<String>()
        var rest = Substring(text)
        let marker = "<testsuite name=\""
        while let found = rest.range(of: marker) {
            rest = rest[found.upperBound...]
            guard let close = rest.firstIndex(of: ">"), let attribute = rest[..<close].range(of: " file=\"") else { continue }
            let value = rest[attribute.upperBound...].prefix { $0 != "\"" }
            files.insert(unescaped(String(value)))
        }
        return files
    }

    /// An XML attribute's text with its five entities undone.
    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
