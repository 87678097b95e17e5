import Foundation

/// Where a run that covers only part of the full report writes its own: `reports/subset/`.
///
/// The reports at the default paths are the full run's (CI commits `reports/flowcheck.md` and
/// fails when it changes). A run whose flows do not include every flow the JUnit report at the
/// default path lists (one spec, `--filter`, `--shard`, `--no-derived`) writes beside it
/// instead and says so; chosen paths (`--junit`, `--markdown`) are written as given.
enum SubsetReports {
    static let defaultJUnit = "reports/junit.xml"
    static let defaultMarkdown = "reports/flowcheck.md"
    static let folder = "reports/subset"

    struct Redirect {
        var junit: String
        var markdown: String
        var sentence: String
    }

    /// The subset's paths, or nil when the run writes where it was told.
    static func redirect(junit: String, markdown: String, ids: Set<String>) -> Redirect? {
        guard junit == defaultJUnit, markdown == defaultMarkdown,
              let text = try? String(contentsOfFile: defaultJUnit, encoding: .utf8) else { return nil }
        let listed = testcaseIDs(text)
        let missing = listed.subtracting(ids)
        guard !missing.isEmpty else { return nil }
        return Redirect(
            junit: folder + "/junit.xml", markdown: folder + "/flowcheck.md",
            sentence: "this run has \(ids.intersection(listed).count) of the \(listed.count) flows in \(defaultJUnit), so its reports are in \(folder)/ and the full run's are left as they are (--junit and --markdown choose where)")
    }

    /// The flow ids of a JUnit report of ours: each testcase is named `ID: title`.
    static func testcaseIDs(_ text: String) -> Set<String> {
        var ids = Set<String>()
        var rest = Substring(text)
        let marker = "<testcase name=\""
        while let found = rest.range(of: marker) {
            rest = rest[found.upperBound...]
            guard let colon = rest.firstIndex(of: ":"), let quote = rest.firstIndex(of: "\""), colon < quote else { continue }
            ids.insert(String(rest[..<colon]))
        }
        return ids
    }
}
