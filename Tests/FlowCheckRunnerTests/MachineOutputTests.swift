import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckCoreDriver
@testable import FlowCheckCLI

/// The command's outputs under GitHub Actions: `--format json` leaves stdout to one document,
/// and a hostile expected value never starts a line of its own on either output.
@Suite(.integration, .timeLimit(.minutes(20)))
struct MachineOutputTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var out: [String] = []
        private var err: [String] = []
        var console: FlowCheckCommand.Console {
            .init(out: { line in self.lock.withLock { self.out.append(line) } }, err: { line in self.lock.withLock { self.err.append(line) } })
        }
        var stdout: String { lock.withLock { out.joined(separator: "\n") } }
        var stderr: String { lock.withLock { err.joined(separator: "\n") } }
    }

    static let hostile = "4\n::warning file=x,line=1::hi\r\n::stop-commands::x"

    /// A failing copy of the products spec (its expected count hostile) and an invalid spec.
    static func folder() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var spec = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("specs/moltin/products.json"))) as? [String: Any])
        var steps = try #require(spec["steps"] as? [[String: Any]])
        var expect = try #require(steps[steps.count - 1]["expect"] as? [String: Any])
        var result = try #require(expect["result"] as? [String: Any])
        result["productCount"] = hostile
        expect["result"] = result
        steps[steps.count - 1]["expect"] = expect
        spec["steps"] = steps
        spec.removeValue(forKey: "$schema")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("machine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: spec, options: [.prettyPrinted]).write(to: folder.appendingPathComponent("hostile.json"))
        try Data("{\"id\": \"MLT-BROKEN\", \"tilte\": \"x\"}\n".utf8).write(to: folder.appendingPathComponent("invalid.json"))
        return folder
    }

    @Test(arguments: [false, true])
    func noValueStartsALineAndJSONIsAloneOnStdout(_ json: Bool) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = Lines()
        let arguments = (json ? ["--format", "json"] : []) + ["--junit", folder.appendingPathComponent("j.xml").path, "--markdown", folder.appendingPathComponent("m.md").path, folder.path]
        let code = await FlowCheckCommand().run(arguments, console: lines.console, environment: .init(githubActions: true))
        #expect(code == .usageOrInvalidSpec)
        let all = (lines.stdout + "\n" + lines.stderr).components(separatedBy: "\n")
        let commands = all.filter { $0.hasPrefix("::") }
        #expect(commands.count == 2, "one annotation for the failed flow, one for the invalid spec")
        #expect(commands.allSatisfy { $0.hasPrefix("::error file=") })
        #expect(!all.contains { $0.hasPrefix("::warning") || $0.hasPrefix("::stop-commands") })
        if json {
            let document = try JSONSerialization.jsonObject(with: Data(lines.stdout.utf8)) as? [String: Any]
            #expect(document?["formatVersion"] as? Int == 1)
            #expect(!lines.stdout.contains("::error"))
        }
    }
}
