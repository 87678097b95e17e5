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
    ///   - interrupted: a signal stopped the run before every flow finished.
    static func redirect(junit: String, markdown: String, chosen: Set<String>, files: Set<String>, narrowed: Bool, interrupted: Bool = false) -> Redirect? {
        guard junit == defaultJUnit || markdown == defaultMarkdown, let why = subsetReason(files: files, narrowed: narrowed, interrupted: interrupted) else { return nil }
        let moves = (junit: !chosen.contains("--junit") && junit == defaultJUnit, markdown: !chosen.contains("--markdown") && markdown == defaultMarkdown)
        // Asked for by name: written there, and said so, since it replaces the full run's.
        let kept = [(junit == defaultJUnit && !moves.junit, "--junit " + defaultJUnit), (markdown == defaultMarkdown && !moves.markdown, "--markdown " + defaultMarkdown)]
            .filter(\.0).map(\.1)
        var sentence = "\(why), so "
        if moves.junit || moves.markdown {
            let which = moves.junit && moves.markdown ? "its reports are" : moves.junit ? "its JUnit report is" : "its Markdown report is"
            let full = moves.junit && moves.markdown ? "the full run's are left as they are" : "the full run's is left as it is"
            sentence += "\(which) in \(folder)/ and \(full) (--junit and --markdown choose where)"
        }
        if !kept.isEmpty {
            sentence += (moves.junit || moves.markdown ? "; " : "") + "\(kept.joined(separator: " and ")), given by name, \(kept.count == 1 ? "is" : "are") written there over the full run's"
        }
        return Redirect(junit: moves.junit ? folder + "/junit.xml" : junit, markdown: moves.markdown ? folder + "/flowcheck.md" : markdown, sentence: sentence)
    }

    /// `matrix`'s paths for a run of part of the suite (`--filter`, or not every spec file):
    /// the committed `reports/matrix.md` is the full suite's.
    static func matrixRedirect(markdown: String, json: String, chosen: Set<String>, files: Set<String>, narrowed: Bool) -> MatrixRedirect? {
        guard markdown == defaultMatrixMarkdown || json == defaultMatrixJSON, let why = subsetReason(files: files, narrowed: narrowed) else { return nil }
        let moves = (markdown: !chosen.contains("--markdown") && markdown == defaultMatrixMarkdown, json: !chosen.contains("--json") && json == defaultMatrixJSON)
        let kept = [(markdown == defaultMatrixMarkdown && !moves.markdown, "--markdown " + defaultMatrixMarkdown), (json == defaultMatrixJSON && !moves.json, "--json " + defaultMatrixJSON)]
            .filter(\.0).map(\.1)
        var sentence = "\(why), so "
        if moves.markdown || moves.json {
            let which = moves.markdown && moves.json ? "its matrix is" : moves.markdown ? "its Markdown matrix is" : "its JSON matrix is"
            sentence += "\(which) in \(folder)/ and the full suite's is left as it is (--markdown and --json choose where)"
        }
        if !kept.isEmpty {
            sentence += (moves.markdown || moves.json ? "; " : "") + "\(kept.joined(separator: " and ")), given by name, \(kept.count == 1 ? "is" : "are") written there over the full suite's"
        }
        return MatrixRedirect(markdown: moves.markdown ? folder + "/matrix.md" : markdown, json: moves.json ? folder + "/matrix.json" : json, sentence: sentence)
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
    private static func subsetReason(files: Set<String>, narrowed: Bool, interrupted: Bool = false) -> String? {
        // The spec files the full report covers that are still there: a run that loads them all,
        // unnarrowed, is a full run, whatever flows were renamed or removed meanwhile. The JUnit
        // report names them; on a fresh clone it is not there (git ignores it) while the
        // committed Markdown report is, and that one is the run of `specs/`.
        // Compared as absolute, standardised paths: `./specs/a.json` is `specs/a.json`.
        func normal(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let loaded = Set(files.map(normal))
        let committedFolder = Set(((try? SpecLoader.standard.specFiles(in: [defaultFolder])) ?? []).map(normal))
        // A whole, unnarrowed run of `specs/` is the full run, whatever the last report named:
        // a run with an extra folder must not make every later run of `specs/` a subset.
        if !narrowed, !interrupted, !committedFolder.isEmpty, committedFolder.isSubset(of: loaded) { return nil }
        // Both when both are there: a JUnit report a subset run wrote by name names only its
        // subset, and must not make the next subset look whole.
        let junit = (try? String(contentsOfFile: defaultJUnit, encoding: .utf8)).map(specFiles)
        let committed = FileManager.default.fileExists(atPath: defaultMarkdown) || FileManager.default.fileExists(atPath: defaultMatrixMarkdown)
        guard junit != nil || committed else { return nil }
        let covered = (junit ?? []).union(committed ? committedFolder : [])
        let source = junit != nil && committed ? "\(defaultJUnit) and \(defaultFolder)/ hold" : junit != nil ? defaultJUnit + " covers" : "in " + defaultFolder + "/"
        let standing = Set(covered.filter { FileManager.default.fileExists(atPath: $0) }.map(normal))
        let left = standing.subtracting(loaded)
        guard narrowed || interrupted || !left.isEmpty else { return nil }
        if interrupted { return "the run was interrupted before every flow finished" }
        return narrowed ? "--filter, --shard or --no-derived left flows out" : "this run leaves out \(left.count) of the \(standing.count) spec files \(source)"
    }

    /// The spec files a JUnit report of ours names: each suite's `file` attribute.
    ///
    /// One pass over the bytes: the full run's report is megabytes, and a `Substring`
    /// `range(of:)` loop over it (Foundation's, bridged anew at every call) took 13 s of a
    /// 4 s run whenever the previous run's report was there.
    static func specFiles(_ text: String) -> Set<String> {
        var files = Set<String>()
        let bytes = Array(text.utf8)
        let marker = Array("<testsuite name=\"".utf8)
        let attribute = Array(" file=\"".utf8)
        func match(_ needle: [UInt8], at index: Int) -> Bool {
            index + needle.count <= bytes.count && bytes[index..<index + needle.count].elementsEqual(needle)
        }
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), match(marker, at: index) else { index += 1; continue }
            index += marker.count
            // The suite's attributes run to its tag's `>`; the name's value has its `>` escaped.
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { break }
            var cursor = index
            while cursor < close, !match(attribute, at: cursor) { cursor += 1 }
            if cursor < close {
                let start = cursor + attribute.count
                let end = bytes[start..<close].firstIndex(of: UInt8(ascii: "\"")) ?? close
                files.insert(unescaped(String(decoding: bytes[start..<end], as: UTF8.self)))
            }
            index = close + 1
        }
        return files
    }

    /// An XML attribute's text with the entities our JUnit writer uses undone: the five named
    /// ones and the tab, line feed and carriage return it writes as character references.
    private static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#9;", with: "\t").replacingOccurrences(of: "&#10;", with: "\n").replacingOccurrences(of: "&#13;", with: "\r")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
