import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckProviders
import FlowCheckSpec

/// The pages generated from code and specs are committed as rendered: `specs/README.md`'s
/// catalogue (from the specs) and `docs/protocol-actions.md` (from the provider kits' actions).
/// Re-record on purpose only: `FLOWCHECK_RECORD_GOLDEN=1 swift test --filter
/// GeneratedPagesTests` (a recording run fails, so it never passes silently).
@Suite(.fast, .timeLimit(.minutes(20)))
struct GeneratedPagesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var recording: Bool { ProcessInfo.processInfo.environment["FLOWCHECK_RECORD_GOLDEN"] == "1" }

    /// Every spec under specs/, with its path under that folder.
    static func catalogueEntries() throws -> [SpecCatalogue.Entry] {
        let folder = root.appendingPathComponent("specs").path
        let loaded = try SpecLoader.standard.load(paths: [folder])
        #expect(loaded.invalidFiles.isEmpty, "invalid specs: \(loaded.invalidFiles)")
        return loaded.specs.map { spec in
            SpecCatalogue.Entry(path: spec.file.hasPrefix(folder + "/") ? String(spec.file.dropFirst(folder.count + 1)) : spec.file, spec: spec)
        }
    }

    @Test("specs/README.md's catalogue is the rendering of the specs")
    func specCatalogueIsGenerated() throws {
        let file = Self.root.appendingPathComponent("specs/README.md")
        let onDisk = try String(contentsOf: file, encoding: .utf8)
        let entries = try Self.catalogueEntries()
        let generated = try #require(SpecCatalogue.spliced(onDisk, tables: SpecCatalogue.tables(entries, providers: ProviderRegistry.catalog)), "specs/README.md has lost its catalogue markers (\(SpecCatalogue.begin), \(SpecCatalogue.end))")
        #expect(entries.allSatisfy { generated.contains("| \($0.spec.id) |") }, "every spec has its row")
        if Self.recording {
            try generated.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(file.path); run again without FLOWCHECK_RECORD_GOLDEN")
            return
        }
        #expect(onDisk == generated, "specs/README.md is stale: run \(SpecCatalogue.regenerate)")
    }

    @Test("docs/protocol-actions.md is the rendering of the provider kits' actions")
    func actionReferenceIsGenerated() throws {
        let file = Self.root.appendingPathComponent("docs/protocol-actions.md")
        let generated = ActionReference.markdown(providers: ProviderRegistry.catalog)
        for kit in ProviderRegistry.kits {
            for action in kit.actions { #expect(generated.contains("| `\(action.name)` |"), "\(kit.id.rawValue).\(action.name)") }
        }
        if Self.recording {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try generated.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(file.path); run again without FLOWCHECK_RECORD_GOLDEN")
            return
        }
        let onDisk = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        #expect(onDisk == generated, "docs/protocol-actions.md is stale: run \(ActionReference.regenerate)")
    }

    @Test("a splice keeps the prose around the catalogue and replaces only what is between the markers")
    func spliceKeepsTheProse() throws {
        let readme = "# Title\n\nProse.\n\n\(SpecCatalogue.begin)\n\nold table\n\n\(SpecCatalogue.end)\n\nAfter.\n"
        let spliced = try #require(SpecCatalogue.spliced(readme, tables: "new table\n"))
        #expect(spliced == "# Title\n\nProse.\n\n\(SpecCatalogue.begin)\n\nnew table\n\n\(SpecCatalogue.end)\n\nAfter.\n")
        #expect(SpecCatalogue.spliced("no markers", tables: "x") == nil)
    }
}
