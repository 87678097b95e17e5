import Foundation
import FlowCheckTestLanes
import Testing

/// "Your own `flowcheck`" in docs/swift.md (once the README's "Swift: your own `flowcheck`",
/// hence the name) is what a Swift team copies: every file it shows goes verbatim into a fresh
/// folder outside the repository, beside a `flowcheck` link to this checkout (the page's
/// `../flowcheck`), is built with `swift build` and runs the page's command, which must pass. It builds a whole package, so it runs when
/// `FLOWCHECK_README_PACKAGE=1` (`.ci/run` sets it in a step of its own, after `swift test`).
@Suite(.integration, .timeLimit(.minutes(20)))
struct ReadmeExamplePackageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The page that shows the package.
    static let page = root.appendingPathComponent("docs/swift.md")

    /// Each `<!-- readme-package: NAME -->` and the fenced block right after it.
    static func blocks(_ readme: String) -> [(name: String, text: String)] {
        var blocks: [(String, String)] = []
        let lines = readme.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("<!-- readme-package: "), line.hasSuffix(" -->") {
                let name = String(line.dropFirst("<!-- readme-package: ".count).dropLast(" -->".count))
                var start = index + 1
                while start < lines.count, !lines[start].hasPrefix("```") { start += 1 }
                var end = start + 1
                while end < lines.count, lines[end] != "```" { end += 1 }
                blocks.append((name, lines[(start + 1)..<min(end, lines.count)].joined(separator: "\n") + "\n"))
                index = end
            }
            index += 1
        }
        return blocks
    }

    @Test func theReadmeExamplesBlocksAreFound() throws {
        let readme = try String(contentsOf: Self.page, encoding: .utf8)
        let names = Self.blocks(readme).map(\.name)
        #expect(names == ["Package.swift", "Sources/my-sdk-check/main.swift", "Sources/my-sdk-check/MyMoltinDriver.swift", "run"])
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FLOWCHECK_README_PACKAGE"] == "1", "builds a package: FLOWCHECK_README_PACKAGE=1 (CI sets it)"))
    func theReadmeExamplePackageBuildsAndPasses() async throws {
        let readme = try String(contentsOf: Self.page, encoding: .utf8)
        let blocks = Self.blocks(readme)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-readme-\(UUID().uuidString)")
        let package = folder.appendingPathComponent("my-sdk-check")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("flowcheck"), withDestinationURL: Self.root)
        var command: String?
        for (name, text) in blocks {
            if name == "run" {
                command = text.trimmingCharacters(in: .whitespacesAndNewlines)
                continue
            }
            let file = package.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let run = try #require(command)
        let shell = URL(fileURLWithPath: "/bin/sh")
        let build = try await ChildProcess.launch("swift build (the docs/swift.md example)", executable: shell, arguments: ["-c", "swift build"], directory: package, environment: ProcessInfo.processInfo.environment, deadline: .seconds(600))
        defer { build.kill() }
        let built = try await build.exitStatus()
        #expect(built == 0, "swift build: \(build.stdout.text.suffix(3000)) \(build.stderr.text.suffix(3000))")
        guard built == 0 else { return }
        let check = try await ChildProcess.launch("the command in docs/swift.md", executable: shell, arguments: ["-c", run], directory: package, environment: ProcessInfo.processInfo.environment)
        defer { check.kill() }
        let status = try await check.exitStatus()
        let out = check.stdout.text
        #expect(status == 0, "\(run): exit \(status)\n\(out)\n\(check.stderr.text)")
        // The four written flows pass, and so do the variants derived from them that the
        // example's actions can run (the rest add a delete it does not have: not run).
        for id in ["MLT-AUTH", "MLT-BADAUTH", "MLT-ENCODING", "MLT-PRODUCTS"] {
            #expect(out.contains("✔ \(id)  "), "\(id): \(out)")
        }
        #expect(out.contains(" passed, 0 failed, "), "\(out)")
        #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent("reports/junit.xml").path))
    }
}
