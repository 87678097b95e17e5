import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCheckTestLanes
import Testing
import FlowCheckCoreDriver
@testable import FlowCheckRunner
import FlowCheckReports
@testable import FlowCheckCLI
import FlowCheckSpec

/// No fixture secret and no token the fake issued may reach a report or the console.
@Suite(.integration, .timeLimit(.minutes(20)))
struct NoSecretInReportsTests {
    /// Wraps the SDK core and remembers every token it ever had in its store.
    final class TokenSpy: @unchecked Sendable {
        private let lock = NSLock()
        private var tokens: Set<String> = []
        func add(_ values: some Sequence<String>) { lock.lock(); tokens.formUnion(values); lock.unlock() }
        var all: Set<String> { lock.lock(); defer { lock.unlock() }; return tokens }
    }

    /// Wraps a driver and adds every token its store ever held to the spy.
    struct SpyingDriver: FlowDriver {
        var name: String { base.name }
        var base: any FlowDriver = CoreSDKDriver()
        let spy: TokenSpy

        func makeSession(for context: DriverContext) async throws -> any FlowSession {
            let inner = try await base.makeSession(for: context)
            return BrokenVariants.OverridingSession(inner: inner, context: context) { [spy] call, inner, _ in
                let outcome = try await inner.perform(call)
                let stored = try await inner.storeContents()
                spy.add([stored["accessToken"], stored["refreshToken"]].compactMap { $0 })
                return outcome
            }
        }
    }

    /// Every line the command printed, on any of its outputs.
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var text: String { lock.lock(); defer { lock.unlock() }; return lines.joined(separator: "\n") }
        var console: FlowCheckCommand.Console {
            .init(out: { self.add($0) }, err: { self.add($0) }, progress: { self.add($0) })
        }
    }

    struct Scan: CustomTestStringConvertible, Sendable {
        let name: String
        let driver: any FlowDriver
        /// Whether flows fail, so the failed checks' expected and actual values are printed.
        let fails: Bool
        var testDescription: String { name }
    }

    /// The SDK core, and broken SDKs whose failed checks are about values that carry secrets
    /// (Authorization headers, token bodies, a wrongly encoded secret, a stale refresh token),
    /// so the expected/actual text of failures is scanned too.
    static let scans: [Scan] = [
        Scan(name: "the SDK core (every flow passes)", driver: CoreSDKDriver(), fails: false),
        Scan(name: "URL-host form encoding", driver: BrokenVariants.hostEncoding, fails: true),
        Scan(name: "the Clover app secret sent", driver: CloverBrokenVariants.appSecretSent, fails: true),
        Scan(name: "the rotated refresh token not stored", driver: CloverBrokenVariants.rotatedRefreshNotStored, fails: true),
        Scan(name: "a Clever Basic header carrying a secret", driver: CleverBraintreeBrokenVariants.basicWithSecret, fails: true),
        Scan(name: "a Braintree token exchanged on the device", driver: CleverBraintreeBrokenVariants.tokenOnDevice, fails: true),
    ]

    /// The `flowcheck` command itself, run over every committed spec as CI runs it (GitHub
    /// annotations, step summary, live progress, colour), then again with `--format json`:
    /// nothing it printed on any output and no file it wrote holds a fixture secret or any
    /// token or code the fakes issued, in any form those travel in.
    @Test(arguments: scans)
    func theCommandPrintsAndWritesNoSecret(_ scan: Scan) async throws {
        let specs = try SpecsEarnTheirPlaceTests.specs()
        let spy = TokenSpy()
        var command = FlowCheckCommand(driver: SpyingDriver(base: scan.driver, spy: spy))
        command.issuedSecretsObserver = { spy.add($0) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowcheck-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = ["junit.xml", "report.md", "summary.md", "junit-json.xml", "report-json.md"].map { folder.appendingPathComponent($0).path }
        let environment = FlowCheckCommand.Environment(githubActions: true, stepSummaryPath: paths[2], colour: true)

        // The derived variants (about a thousand) with the SDK core: their reports and failures are
        // the same code as the flows'; each broken SDK runs the written flows only.
        let derived = scan.fails ? ["--no-derived"] : []
        let console = Captured()
        let code = await command.run(derived + ["--junit", paths[0], "--markdown", paths[1], SpecsEarnTheirPlaceTests.specsFolder], console: console.console, environment: environment)
        let json = Captured()
        let jsonCode = await command.run(derived + ["--format", "json", "--junit", paths[3], "--markdown", paths[4], SpecsEarnTheirPlaceTests.specsFolder], console: json.console, environment: environment)
        #expect(code == (scan.fails ? .failed : .passed))
        #expect(jsonCode == code)

        let files = try paths.map { try String(contentsOfFile: $0, encoding: .utf8) }
        let texts = [console.text, json.text] + files
        if scan.fails {
            // The failures' details were printed and written, so they were scanned.
            #expect(console.text.contains("::error file="))
            #expect(console.text.contains(", got "))
            #expect(json.text.contains("\"expected\""))
            #expect(files[0].contains("<failure"))
        }
        let secrets = specs.flatMap(\.fixture.secrets)
        #expect(spy.all.count >= specs.count, "the spy saw too few tokens to prove anything")
        let outputs = ["console", "console of the --format json run", "JUnit report", "Markdown report", "step summary", "JUnit report of the json run", "Markdown report of the json run"]
        let haystacks = texts.map(Self.cString)
        for needle in secrets + spy.all {
            for form in Redactor.forms(of: needle) {
                for (name, text) in zip(outputs, haystacks) {
                    let leaked = Self.bytes(text, contain: form)
                    #expect(!leaked, "a secret leaked into the \(name) in the form \(form.prefix(3))…")
                }
            }
        }
        // The transcript is there, masked, not missing.
        #expect(files[0].contains("client_secret=‹redacted›"))
        #expect(files[0].contains(scan.fails ? "‹redacted›" : "Bearer ‹redacted›"))
    }

    /// `text` as a C string for ``bytes(_:contain:)``, any NUL made 0x01 (no secret holds
    /// either) so the search cannot stop early.
    static func cString(_ text: String) -> [CChar] {
        text.utf8.map { CChar(bitPattern: $0 == 0 ? 1 : $0) } + [0]
    }

    /// Whether `needle`'s UTF-8 occurs in `haystack`: glibc's strstr, because ~1,700 needle
    /// forms over 0.7 MB of output took String.contains 30 s on Linux and strstr milliseconds.
    static func bytes(_ haystack: [CChar], contain needle: String) -> Bool {
        guard !needle.isEmpty else { return true }
        return haystack.withUnsafeBufferPointer { text in
            needle.withCString { strstr(text.baseAddress!, $0) != nil }
        }
    }

    @Test(arguments: [
        ("s3&cr=t+ é", "form=s3%26cr%3Dt%2B+%C3%A9;", "form=‹redacted›;"),
        ("s3&cr=t+ é", "json {\"x\":\"s3&cr=t+ é\"}", "json {\"x\":\"‹redacted›\"}"),
        ("abcd1234", "Basic YWJjZDEyMzQ=", "Basic ‹redacted›"),
    ])
    func scrubsEveryTravellingForm(_ secret: String, _ text: String, _ expected: String) {
        #expect(Redactor(secrets: [secret]).scrub(text) == expected)
    }
}
