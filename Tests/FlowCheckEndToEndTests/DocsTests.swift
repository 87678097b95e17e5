import Foundation
import FlowCheckTestLanes
import Testing

/// The docs a newcomer follows stay whole: every relative link in the README, `docs/`, the
/// reference drivers' folder and `examples/` names a file that is there (and, with a `#`, a
/// heading that is there), and the CI files `docs/ci.md` shows are the files under
/// `examples/ci/`, byte for byte. It reads files only: no socket, no child process.
@Suite(.fast, .timeLimit(.minutes(20)))
struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Pages generated from code on another branch of the work (issue 25): a link to them is
    /// allowed while they are missing, and checked like any other once they exist.
    static let generatedPages: Set<String> = ["docs/command-line.md", "docs/protocol-actions.md"]

    /// The Markdown files whose links are checked, relative to the package root.
    static func checkedFiles() -> [String] {
        var files = ["README.md"]
        for folder in ["docs", "Tests/Drivers", "examples"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let name = enumerator?.nextObject() as? String {
                if name.hasSuffix(".md") { files.append(folder + "/" + name) }
            }
        }
        return files.sorted()
    }

    /// The text with fenced code blocks and inline code spans blanked out: a link written as
    /// code is an example, not a link.
    static func prose(_ text: String) -> String {
        var inFence = false
        return text.components(separatedBy: "\n").map { line -> String in
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                return ""
            }
            return inFence ? "" : line.replacing(/`[^`]*`/, with: "")
        }.joined(separator: "\n")
    }

    /// GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as `-`,
    /// a repeated heading numbered `-1`, `-2`, ...
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle() }
            // `^#{1,6} +(.*?) *#* *$`, by hand: the time-limit scan follows braces, and a regex
            // literal's `{1,6}` would read as one.
            let hashes = line.prefix { $0 == "#" }.count
            guard !inFence, (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { continue }
            var title = Substring(line.dropFirst(hashes))
            while title.first == " " { title = title.dropFirst() }
            while title.last == " " { title = title.dropLast() }
            while title.last == "#" { title = title.dropLast() }
            while title.last == " " { title = title.dropLast() }
            let slug = String(String(title).lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// Every broken relative link of the page at `path` (relative to the root). `read` gives a
    /// file's text, or nil when it is not a file; `exists` says whether a path is there at all.
    static func brokenLinks(in text: String, at path: String, read: (String) -> String?, exists: (String) -> Bool) -> [String] {
        let folder = (path as NSString).deletingLastPathComponent
        var problems: [String] = []
        // `\x22` is a quote: written plainly, the time-limit scan would read a string there.
        for match in prose(text).matches(of: /\]\(([^)\s]+)(?: +\x22[^\x22]*\x22)?\)/) {
            let link = String(match.1)
            if link.contains("://") || link.hasPrefix("mailto:") { continue }
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? path : normalised(folder.isEmpty ? parts[0] : folder + "/" + parts[0])
            guard let file else {
                problems.append("\(path): \(link) leaves the repository")
                continue
            }
            guard exists(file) else {
                if !generatedPages.contains(file) { problems.append("\(path): \(link): no file \(file)") }
                continue
            }
            if parts.count == 2, file.hasSuffix(".md"), let target = read(file), !anchors(target).contains(parts[1]) {
                problems.append("\(path): \(link): \(file) has no heading with the anchor #\(parts[1])")
            }
        }
        return problems
    }

    /// `a/b/../c/./d/` as `a/c/d`; nil when it climbs out of the root.
    static func normalised(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    static func read(_ path: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    @Test func everyRelativeLinkResolves() throws {
        let files = Self.checkedFiles()
        #expect(files.contains("docs/README.md") && files.contains("docs/protocol.md"), "\(files)")
        var problems: [String] = []
        for file in files {
            let text = try #require(Self.read(file), "\(file) reads")
            problems += Self.brokenLinks(in: text, at: file, read: Self.read, exists: Self.exists)
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The table of contents names every page in `docs/`.
    @Test func theTableOfContentsListsEveryPage() throws {
        let toc = try #require(Self.read("docs/README.md"))
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") && $0 != "README.md" }
        let named = Set(pages + Self.generatedPages.map { ($0 as NSString).lastPathComponent })
        let unlisted = named.filter { !toc.contains("](\($0))") }.sorted()
        #expect(unlisted.isEmpty, "docs/README.md, the table of contents, does not list \(unlisted)")
    }

    struct LinkCase: Sendable, CustomTestStringConvertible {
        let name: String
        let page: String
        let text: String
        let broken: Int
        var testDescription: String { name }
    }

    /// The checker itself can fail: each broken case below is found, each sound one is not.
    @Test(arguments: [
        LinkCase(name: "a file that is there", page: "docs/a.md", text: "see [b](b.md)", broken: 0),
        LinkCase(name: "a file that is not", page: "docs/a.md", text: "see [c](c.md)", broken: 1),
        LinkCase(name: "a folder above", page: "docs/a.md", text: "see [r](../README.md) and [x](../x.md)", broken: 1),
        LinkCase(name: "out of the repository", page: "docs/a.md", text: "see [up](../../etc/passwd)", broken: 1),
        LinkCase(name: "a heading that is there", page: "docs/a.md", text: "see [b](b.md#known-failures-baselines)", broken: 0),
        LinkCase(name: "a heading that is not", page: "docs/a.md", text: "see [b](b.md#in-ci)", broken: 1),
        LinkCase(name: "a heading of its own page", page: "docs/a.md", text: "# Harness errors: who broke\nsee [here](#harness-errors-who-broke), [gone](#who)", broken: 1),
        LinkCase(name: "a repeated heading", page: "docs/b.md", text: "see [second](#known-failures-baselines-1)", broken: 0),
        LinkCase(name: "link text over two lines", page: "docs/a.md", text: "see [not\nthere](nothere.md)", broken: 1),
        LinkCase(name: "a generated page not made yet", page: "docs/a.md", text: "see [options](command-line.md)", broken: 0),
        LinkCase(name: "code is not a link", page: "docs/a.md", text: "`[x](x.md)`\n```\n[y](y.md)\n```", broken: 0),
        LinkCase(name: "web addresses are not checked", page: "docs/a.md", text: "[s](https://www.swift.org/install/)", broken: 0),
    ])
    func theLinkCheckerFindsWhatIsBroken(_ example: LinkCase) {
        let files = ["README.md": "# FlowCheck", "docs/b.md": "# B\n## Known failures (baselines)\n## Known failures (baselines)\n"]
        let problems = Self.brokenLinks(in: example.text, at: example.page, read: { files[$0] ?? ($0 == example.page ? example.text : nil) }, exists: { files[$0] != nil || $0 == example.page })
        #expect(problems.count == example.broken, "\(problems)")
    }

    /// Each `<!-- ci-file: PATH -->` and the fenced block after it.
    static func shownFiles(_ page: String) -> [(path: String, text: String)] {
        var shown: [(String, String)] = []
        let lines = page.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            guard let marker = line.firstMatch(of: /^<!-- ci-file: (\S+) -->$/) else { continue }
            guard index + 1 < lines.count, lines[index + 1].hasPrefix("```") else {
                shown.append((String(marker.1), ""))
                continue
            }
            let body = lines[(index + 2)...].prefix { $0 != "```" }
            shown.append((String(marker.1), body.map { $0 + "\n" }.joined()))
        }
        return shown
    }

    @Test func theCIFilesInTheDocsAreTheExampleFiles() throws {
        let page = try #require(Self.read("docs/ci.md"))
        let shown = Self.shownFiles(page)
        #expect(shown.map(\.path) == ["examples/ci/github-actions.yml", "examples/ci/gitlab-ci.yml"])
        for (path, text) in shown {
            let file = try #require(Self.read(path), "\(path) reads")
            let same = text == file
            #expect(same, "docs/ci.md shows \(path) other than it is: copy the file into the page again")
        }
        // And the comparison can fail: a page with one line changed no longer matches.
        let changed = Self.shownFiles(page.replacingOccurrences(of: "timeout-minutes: 30", with: "timeout-minutes: 31"))
        #expect(changed.first?.text != Self.read("examples/ci/github-actions.yml"))
    }
}
