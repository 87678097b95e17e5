import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer
import FlowCheckProviders
@testable import FlowCheckSpec

@Suite(.fast, .timeLimit(.minutes(20)))
struct SpecLoaderTests {
    private func folder(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("speclt-\(UUID().uuidString)")
        for (name, text) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root.path
    }

    @Test func invalidSpecDoesNotStopTheValidOnes() throws {
        let valid = SpecLoaderErrorTests.spec(steps: #"[{"app": "products"}]"#)
        let dir = try folder([
            "a/good.json": valid,
            "b/broken.json": "{ \"id\": ",
            "flowcheck.schema.json": "{}",
            "notes.txt": "not a spec",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try SpecLoader.standard.load(paths: [dir])
        #expect(result.specs.map(\.id) == ["MLT-AUTH"])
        #expect(result.invalidFiles == [dir + "/b/broken.json"])
        #expect(result.diagnostics.count == 1)
    }

    @Test func duplicateIdsAreReportedOnTheSecondFile() throws {
        let valid = SpecLoaderErrorTests.spec(steps: #"[{"app": "products"}]"#)
        let dir = try folder(["1.json": valid, "2.json": valid])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try SpecLoader.standard.load(paths: [dir])
        #expect(result.specs.count == 1)
        #expect(result.diagnostics.map(\.description) == [
            "\(dir)/2.json:2:9: error: duplicate id \"MLT-AUTH\" (already used by \(dir)/1.json) at $.id\n  fix: give each flow its own catalogue id",
        ])
    }

    @Test func missingPathIsAUsageError() {
        #expect(throws: SpecLoader.MissingPath.self) { try SpecLoader.standard.load(paths: ["/no/such/specs"]) }
    }

    @Test func notUTF8IsReported() {
        guard case .invalid(let diagnostics) = SpecLoader.standard.decode([0x7B, 0xFF, 0x7D], file: "x.json") else {
            Issue.record("expected invalid")
            return
        }
        #expect(diagnostics.map(\.description) == ["x.json:1:2: error: the file is not UTF-8 text: byte 0xFF (offset 1) starts no UTF-8 character at $\n  fix: save it as UTF-8; a byte like this is often an accented letter saved as Latin-1 or Windows-1252"])
    }

    /// The committed specs are the product: every one of them must load.
    @Test func committedSpecsAllLoad() throws {
        let specs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("specs").path
        let result = try SpecLoader.standard.load(paths: [specs])
        #expect(result.diagnostics.map(\.description) == [])
        #expect(result.specs.count >= 8)
    }

    @Test func wholeNumbersWrittenAsDecimalsAreWhole() throws {
        let json = SpecLoaderErrorTests.spec(steps: #"[{"app": "products"}]"#, fixture: #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}], "tokenLifetime": 3.6e3, "products": [{"id": "p", "title": "T", "price": 2000.0}]}"#)
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("3.6e3 and 2000.0 should load as whole numbers")
            return
        }
        let fixture = try #require(spec.fixture as? MoltinFixture)
        #expect(fixture.tokenLifetime == 3600)
        #expect(fixture.products.first?.price == 2000)
    }
}
