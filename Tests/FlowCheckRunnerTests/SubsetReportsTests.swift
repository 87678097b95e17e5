import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI

/// Whether a run is the full one is decided from the spec files the previous full run's JUnit
/// report names; that report is megabytes, and every later run reads it.
@Suite(.fast, .timeLimit(.minutes(20)))
struct SubsetReportsTests {
    @Test func theSpecFilesAreEachSuitesFileAttributeUnescaped() {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="flowcheck" tests="3">
          <testsuite name="moltin.MLT-AUTH" tests="1" failures="0" errors="0" skipped="0" time="0.001" file="specs/moltin/auth.json">
            <testcase name="MLT-AUTH" classname="moltin"/>
          </testsuite>
          <testsuite name="clover.a&gt;b" tests="1" failures="0" errors="0" skipped="0" time="0" file="specs/a &amp; &quot;b&quot;.json">
          </testsuite>
          <testsuite name="notRun.X" tests="1" failures="0" errors="0" skipped="1" time="0">
            <system-out>file="specs/not-an-attribute.json"</system-out>
          </testsuite>
          <testsuite name="invalid.specs/bad.json" tests="1" failures="0" errors="1" skipped="0" time="0" file="specs/bad.json">
        """
        #expect(SubsetReports.specFiles(text) == ["specs/moltin/auth.json", "specs/a & \"b\".json", "specs/bad.json"])
    }

    @Test func theWritersCharacterReferencesAreUndone() {
        let text = "<testsuite name=\"a\" file=\"specs/tab&#9;line&#10;return&#13;&amp;#9;.json\">"
        #expect(SubsetReports.specFiles(text) == ["specs/tab\tline\nreturn\r&#9;.json"])
    }

    @Test func aTruncatedReportGivesTheFilesBeforeTheCut() {
        let text = "<testsuite name=\"a\" file=\"specs/a.json\">\n<testsuite name=\"b\" file=\"specs/b.js"
        #expect(SubsetReports.specFiles(text) == ["specs/a.json"])
        #expect(SubsetReports.specFiles("") == [])
    }
}
