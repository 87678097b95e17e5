import Foundation
import FlowCheckTestLanes
import Testing

/// The built binary with patterns that backtrack for ever in NSRegularExpression: `--filter`
/// returns, a refused pattern is a usage error, and `validate` warns about nested quantifiers
/// without failing. Each run has the child deadline, so a hang is a named failure.
@Suite(.integration, .timeLimit(.minutes(20)))
struct RegexBinaryTests {
    typealias Binary = FlowCheckBinaryTests

    /// `(A+)+Z` against an id of 40 A's backtracks exponentially in a backtracking engine.
    @Test func aCatastrophicFilterReturns() async throws {
        let id = "E2E-" + String(repeating: "A", count: 40) + "Y"
        let root = try Binary.workspace(["a.json": Binary.spec(id: id)])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Binary.run(["--filter", "(A+)+Z", "specs"], in: root)
        #expect(run.status == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr == "flowcheck: no flow id matches --filter (A+)+Z\n")
        let kept = try await Binary.run(["--list", "--filter", "(A+)+Y$", "specs"], in: root)
        #expect(kept.status == 0, "\(kept.stdout)\n\(kept.stderr)")
        #expect(kept.stdout.hasPrefix(id + "  "))
    }

    @Test func aRefusedFilterIsAUsageError() async throws {
        let root = try Binary.workspace(["a.json": Binary.spec(id: "E2E-ONE")])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Binary.run(["--filter", "(E)\\1", "specs"], in: root)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("flowcheck: --filter: unsupported regular expression /(E)\\1/: backreference \\1 at character 4\n  fix: FlowCheck matches regexes in linear time and has no backreferences;"), "\(run.stderr)")
    }

    @Test func validateWarnsAboutANestedQuantifierAndPasses() async throws {
        let spec = Binary.spec(id: "E2E-WARN").replacingOccurrences(of: #""productCount": "2""#, with: #""productCount": {"regex": "^(2+)+$"}"#)
        let root = try Binary.workspace(["a.json": spec])
        defer { try? FileManager.default.removeItem(at: root) }
        let validate = try await Binary.run(["validate", "specs"], in: root)
        #expect(validate.status == 0, "\(validate.stdout)\n\(validate.stderr)")
        #expect(validate.stdout == "1 of 1 spec valid\n")
        #expect(validate.stderr.hasPrefix("specs/a.json:9:73: warning: nested quantifier in /^(2+)+$/ at character 6"), "\(validate.stderr)")
        let run = try await Binary.run(["specs"], in: root)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("warning: nested quantifier"))
        #expect(!run.stdout.contains("warning"))
    }
}
