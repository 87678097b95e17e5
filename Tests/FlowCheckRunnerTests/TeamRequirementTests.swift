import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCLI
import FlowCheckFakeServer
import FlowCheckSpec

/// A team owns its suite: its own requirement catalogue beside its specs, cited by its specs,
/// listed in the coverage matrix after FlowCheck's, every problem of it located.
@Suite(.fast, .timeLimit(.minutes(20)))
struct TeamRequirementTests {
    static func folder(catalogue: String, citing ids: [String]) throws -> String {
        let folder = NSTemporaryDirectory() + "flowcheck-team-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/specs", withIntermediateDirectories: true)
        var spec = try String(contentsOfFile: SpecsEarnTheirPlaceTests.specsFolder + "/moltin/auth.json", encoding: .utf8)
            .replacingOccurrences(of: #""id": "MLT-AUTH""#, with: #""id": "TEAM-AUTH""#)
        // The flow's own list (the first), not its steps'.
        let list = try #require(spec.range(of: #""requirements": ["#))
        spec.replaceSubrange(list, with: #""requirements": ["# + ids.map { "\"\($0)\", " }.joined())
        try spec.write(toFile: folder + "/specs/auth.json", atomically: true, encoding: .utf8)
        try catalogue.write(toFile: folder + "/specs/flowcheck.requirements.json", atomically: true, encoding: .utf8)
        return folder
    }

    static let good = #"{"requirements": [{"id": "TEAM-REFRESH-EARLY", "statement": "The app gets its token before its first call.", "source": "docs/login.md"}, {"id": "TEAM-UNCITED", "statement": "Not cited yet.", "source": "docs/x.md"}]}"#

    @Test func aTeamsCatalogueIsCitedAndListed() async throws {
        let folder = try Self.folder(catalogue: Self.good, citing: ["TEAM-REFRESH-EARLY"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loaded = try SpecLoader.standard.load(paths: [folder + "/specs"])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        #expect(loaded.specs.map(\.id) == ["TEAM-AUTH"], "the catalogue is not read as a spec")
        #expect(loaded.teamRequirements.map(\.id) == ["TEAM-REFRESH-EARLY", "TEAM-UNCITED"])
        let lines = Locked<[String]>([])
        let console = FlowCheckCommand.Console(out: { line in lines.withLock { $0.append(line) } }, err: { line in lines.withLock { $0.append(line) } })
        #expect(await FlowCheckCommand().run(["--list", "--requirements", folder + "/specs"], console: console) == .passed)
        let text = lines.withLock { $0 }.joined(separator: "\n")
        #expect(text.contains("| TEAM-REFRESH-EARLY | The app gets its token before its first call."), "\(text)")
        #expect(text.contains("| TEAM-UNCITED | Not cited yet.") && text.contains("**uncovered**"))
    }

    @Test func aSpecFileNamedAloneFindsTheCatalogueBesideIt() throws {
        let folder = try Self.folder(catalogue: Self.good, citing: ["TEAM-REFRESH-EARLY"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Alone, with its folder too, and with the catalogue named: read once each time.
        for paths in [[folder + "/specs/auth.json"], [folder + "/specs", folder + "/specs/auth.json"], [folder + "/specs/auth.json", folder + "/specs/flowcheck.requirements.json"]] {
            let loaded = try SpecLoader.standard.load(paths: paths)
            #expect(loaded.diagnostics.isEmpty, "\(paths): \(loaded.diagnostics)")
            #expect(loaded.specs.map(\.id) == ["TEAM-AUTH"])
            #expect(loaded.teamRequirements.map(\.id) == ["TEAM-REFRESH-EARLY", "TEAM-UNCITED"], "\(paths)")
        }
    }

    @Test func anIdNoCatalogueHasIsStillRefused() throws {
        let folder = try Self.folder(catalogue: Self.good, citing: ["TEAM-NOT-THERE"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loaded = try SpecLoader.standard.load(paths: [folder + "/specs"])
        #expect(loaded.diagnostics.map(\.title) == [#"unknown requirement id "TEAM-NOT-THERE""#])
    }

    @Test func aCataloguesProblemsAreLocated() throws {
        let bad = #"{"requirements": [{"id": "team one", "statement": "s", "source": "d"}, {"id": "SEED-003-auth", "statement": "s", "source": "d"}, {"id": "TEAM-A", "statement": "s", "source": "d"}, {"id": "TEAM-A", "statement": "s", "source": "d"}, {"id": "TEAM-B", "statement": "s"}]}"#
        let folder = try Self.folder(catalogue: bad, citing: [])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loaded = try SpecLoader.standard.load(paths: [folder + "/specs"])
        #expect(loaded.diagnostics.map { "\($0.path): \($0.title)" } == [
            #"$.requirements[0].id: requirement id "team one" is not capitals, digits and dashes"#,
            #"$.requirements[1].id: requirement id "SEED-003-auth" is one of FlowCheck's own"#,
            #"$.requirements[3].id: requirement id "TEAM-A" is given twice (first in \#(folder)/specs/flowcheck.requirements.json)"#,
            #"$.requirements[4]: missing required key "source""#,
        ])
        #expect(loaded.invalidFiles == [folder + "/specs/flowcheck.requirements.json"])
        #expect(loaded.specs.map(\.id) == ["TEAM-AUTH"], "the specs still load")
    }
}
