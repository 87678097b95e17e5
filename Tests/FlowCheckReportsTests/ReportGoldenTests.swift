import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FlowCheckTestLanes
import Testing
@testable import FlowCheckReports
import FlowCheckRunner

/// Reports against golden files. Re-record on purpose only:
/// `FLOWCHECK_RECORD_GOLDEN=1 swift test --filter ReportGoldenTests`; a recording run fails, so it
/// never passes silently.
@Suite(.fast, .timeLimit(.minutes(20)))
struct ReportGoldenTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// One flow of each status, with text that XML and Markdown must escape.
    static let sample: RunResult = {
        var passed = FlowResult(
            id: "MLT-AUTH", title: "Auth obtains a token", summary: "Why it matters.", file: "specs/moltin/auth.json", provider: "moltin",
            seed: "003_d427daaf6ba0e8e7.txt", passage: "Obtaining a new token", decisions: ["The fake issues no refresh token."],
            steps: [
                StepResult(number: 1, line: 9, action: "The app calls \(NarrativeMarkup.value("auth")) with clientId \(NarrativeMarkup.value("store-1")), clientSecret \(NarrativeMarkup.value("‹redacted›")).", checks: ["The call succeeds.", "The server sees exactly this request:", "  1. \(NarrativeMarkup.value("POST /oauth/access_token")): form \(NarrativeMarkup.value("grant_type")) equals \(NarrativeMarkup.value("client_credentials")); answered 200"], note: nil, status: .passed),
                StepResult(number: 2, line: 20, action: nil, checks: ["Stored \(NarrativeMarkup.value("accessToken")) is present (kept as \(NarrativeMarkup.value("${token}")))."], note: "The token is parsed.", status: .passed),
            ],
            status: .passed, failures: [], errorMessage: nil,
            transcript: ["#1 POST /oauth/access_token → 200\n> Content-Type: application/x-www-form-urlencoded\n> form: grant_type=client_credentials&client_secret=‹redacted›"],
            duration: 0.0123,
            events: [
                .call(step: 1, name: "auth"), .request(step: 1, actor: .sdk, method: "POST", path: "/oauth/access_token", status: 200), .outcome(step: 1, text: "ok"),
                .note(step: 2, text: "clock +61m; #1"), .call(step: 3, name: "login"), .opened(step: 3, path: "/oauth/v2/authorize"),
                .request(step: 4, actor: .browser, method: "GET", path: "/v3/merchants/MERCH1", status: 401), .redirect(step: 4, target: "examplescheme://braintree/connected"),
                .request(step: 5, actor: .client, method: "POST", path: "/oauth/v2/refresh", status: 400), .dismissed(step: 5), .outcome(step: 5, text: "tokenRejected"),
            ],
            providerTitle: "Moltin (seed 003)"
        )
        passed.requirements = ["SEED-003-auth", "RFC6749-4.4", "RFC6750-2.1"]
        passed.steps[0].requirements = ["SEED-003-auth", "RFC6749-4.4"]
        var failed = FlowResult(
            id: "MLT-ENCODING", title: "Secrets with & < > \" survive | intact", summary: nil, file: "specs/moltin/encoding.json", provider: "moltin",
            seed: "003_d427daaf6ba0e8e7.txt", passage: "Percent Escaping String", decisions: [],
            steps: [StepResult(number: 1, line: 8, action: "The app calls \(NarrativeMarkup.value("auth")).", checks: ["The call succeeds."], note: nil, status: .failed)],
            status: .failed,
            failures: [CheckFailure(step: 1, line: 8, check: "requests[0] (POST /oauth/access_token).form.client_secret", expected: "equals \"‹redacted›\"", actual: "\"‹redacted›\" (2 characters) ]]> \u{1B}[31m\u{0}", requirements: ["SEED-003-encoding"])],
            errorMessage: nil, transcript: [], duration: 1.5
        )
        failed.requirements = ["SEED-003-encoding", "RFC6749-2.3.1 <&\">"]
        let broken = FlowResult(
            id: "MLT-NETFAIL", title: "Network failures", summary: nil, file: "specs/moltin/netfail.json", provider: "moltin",
            seed: "003_d427daaf6ba0e8e7.txt", passage: "getProducts", decisions: [],
            steps: [StepResult(number: 1, line: 8, action: "The app calls \(NarrativeMarkup.value("products")).", checks: ["The call succeeds."], note: nil, status: .notRun)],
            status: .error, failures: [], errorMessage: nil, transcript: [], duration: 0,
            harnessError: HarnessError(party: .harness, message: "the fake server could not listen", place: .before(step: 1), line: 8)
        )
        let invalid = InvalidSpec(file: "specs/bad.json", messages: ["specs/bad.json:3:5: error: unknown key \"tite\" at $.tite\n  fix: did you mean \"title\"?"], line: 3)
        return RunResult(flows: [passed, failed, broken], invalidSpecs: [invalid], driverName: "FlowCheck SDK core")
    }()

    /// A matrix with a row of every kind: held, violated, unsettled, an invariant held and one
    /// violated, uncovered; and one listed without running.
    static let coverage = CoverageMatrix(rows: [
        .init(id: "SEED-003-auth", statement: "Auth posts a client_credentials grant.", source: "seed 003, 'Obtaining a new token'", flows: [.init(flow: "MLT-AUTH", verdict: .held)], invariants: []),
        .init(id: "SEED-003-encoding", statement: "Values | survive.", source: "seed 003", flows: [.init(flow: "MLT-ENCODING", verdict: .violated)], invariants: []),
        .init(id: "RFC6749-2.3.1", statement: "Basic or body.", source: "RFC 6749 §2.3.1", flows: [.init(flow: "MLT-AUTH", verdict: .held), .init(flow: "MLT-ENCODING", verdict: .unsettled), .init(flow: "MLT-NETFAIL", verdict: .error)], invariants: []),
        .init(id: "RFC6749-10.3", statement: "Tokens stay secret.", source: "RFC 6749 §10.3", flows: [], invariants: [.init(invariant: "INV-LEAK", violatedIn: []), .init(invariant: "INV-ORIGIN", violatedIn: ["MLT-ENCODING"])]),
        .init(id: "RFC8252-8.12", statement: "No embedded web view.", source: "RFC 8252 §8.12", flows: [], invariants: []),
    ], ran: true)

    private func assertGolden(_ text: String, _ name: String) throws {
        let url = Self.goldenDirectory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["FLOWCHECK_RECORD_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: url)
            Issue.record("recorded \(name); run again without FLOWCHECK_RECORD_GOLDEN to check it")
            return
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        #expect(text == golden, "\(name) differs from its golden file; re-record only on purpose")
    }

    @Test func junitMatchesGolden() throws {
        try assertGolden(JUnitReport.render(Self.sample), "report.xml")
    }

    @Test func markdownMatchesGolden() throws {
        try assertGolden(MarkdownReport.render(Self.sample, coverage: Self.coverage), "report.md")
    }

    @Test func coverageListingMatchesGolden() throws {
        var listing = Self.coverage
        listing.ran = false
        for index in listing.rows.indices {
            for flow in listing.rows[index].flows.indices { listing.rows[index].flows[flow].verdict = nil }
            for invariant in listing.rows[index].invariants.indices { listing.rows[index].invariants[invariant].violatedIn = nil }
        }
        try assertGolden(MarkdownReport.coverage(listing), "coverage-listing.md")
    }

    @Test func jsonCarriesTheRequirementIds() throws {
        let data = Data(JSONReport.render(Self.sample).utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let flows = try #require(root["flows"] as? [[String: Any]])
        #expect(flows.map { $0["requirements"] as? [String] } == [["SEED-003-auth", "RFC6749-4.4", "RFC6750-2.1"], ["SEED-003-encoding", "RFC6749-2.3.1 <&\">"], []])
        let failures = try #require(flows[1]["failures"] as? [[String: Any]])
        #expect(failures.map { $0["requirements"] as? [String] } == [["SEED-003-encoding"]])
    }

    @Test func junitCarriesTheRequirementIdsAsSuiteProperties() throws {
        let document = try XMLDocument(data: Data(JUnitReport.render(Self.sample).utf8))
        let properties = try document.nodes(forXPath: "//testsuite[@name='moltin.MLT-AUTH']/properties/property")
        let pairs = try properties.map { node -> String in
            let element = try #require(node as? XMLElement)
            return (element.attribute(forName: "name")?.stringValue ?? "") + "=" + (element.attribute(forName: "value")?.stringValue ?? "")
        }
        #expect(pairs == ["MLT-AUTH requirements=SEED-003-auth, RFC6749-4.4, RFC6750-2.1"])
        // Each property name once in the whole file (xunitparser gathers them into one table).
        let names = try document.nodes(forXPath: "//property").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
        #expect(Set(names).count == names.count, "\(names)")
        // A flow citing nothing gets no empty <properties>.
        #expect(try document.nodes(forXPath: "//testsuite[@name='moltin.MLT-NETFAIL']/properties").isEmpty)
    }

    /// The byte-level escape against the scalar-level one it replaced (kept here as the
    /// reference): every character class either path treats differently.
    @Test func junitEscapesByteForByteAsTheScalarReference() {
        func reference(_ s: String, attribute: Bool) -> String {
            var out = ""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"" where attribute: out += "&quot;"
                case "\n" where attribute: out += "&#10;"
                case "\t" where attribute: out += "&#9;"
                case "\r": out += "&#13;"
                case "\n", "\t": out.unicodeScalars.append(scalar)
                default:
                    if JUnitReport.isAllowedInXML(scalar) { out.unicodeScalars.append(scalar) } else { out += String(format: "\\u{%X}", scalar.value) }
                }
            }
            return out
        }
        let samples = ["", "plain text", "a&b<c>d\"e'f", "line\nnext\ttab\rcr", "\u{0}\u{1}\u{8}\u{B}\u{1B}[31m\u{1F}\u{7F}",
                       "\u{FFFE}\u{FFFF}\u{FFFD}\u{EFFF}\u{FEFF}x\u{FFFE}", "é ü 漢字 🙂 \u{10FFFF}", "end\u{EF}", "‹redacted› → ✓", String(repeating: "&<>\"", count: 50)]
        for sample in samples {
            #expect(JUnitReport.attr(sample) == reference(sample, attribute: true), "attribute: \(sample.debugDescription)")
            #expect(JUnitReport.text(sample) == reference(sample, attribute: false), "text: \(sample.debugDescription)")
        }
    }

    @Test func junitHasNoForbiddenCharactersAndParses() throws {
        let xml = JUnitReport.render(Self.sample)
        #expect(xml.unicodeScalars.allSatisfy { JUnitReport.isAllowedInXML($0) })
        #expect(!xml.contains("\u{1B}"))
        let document = try XMLDocument(data: Data(xml.utf8))
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 4)
        #expect(try document.nodes(forXPath: "//failure").count == 1)
        #expect(try document.nodes(forXPath: "//error").count == 2)
        // classname + name must be unique: GitLab drops repeats.
        let keys = try cases.map { node -> String in
            let element = try #require(node as? XMLElement)
            return (element.attribute(forName: "classname")?.stringValue ?? "") + "/" + (element.attribute(forName: "name")?.stringValue ?? "")
        }
        #expect(Set(keys).count == keys.count)
    }

    @Test(arguments: [("MLT-AUTH", "mlt-auth"), ("CLV-FULL-1", "clv-full-1"), ("A b.c", "a-bc")])
    func anchorsFollowGitHub(_ heading: String, _ anchor: String) {
        #expect(MarkdownReport.anchor(heading) == anchor)
    }

    @Test func writerReplacesAtomically() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("deep/r.md").path
        try ReportWriter.write("one, the whole old report", to: path)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        // A reader that opened the report before the write.
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? reader.close() }
        try ReportWriter.write("two", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        // Replaced by a rename, not rewritten in place: a new file under the name, and the
        // early reader still reads the old report whole rather than a mix or a truncation.
        let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(before != nil && after != nil && before != after)
        #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == "one, the whole old report")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(siblings == ["r.md"])
    }
}
