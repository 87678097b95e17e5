import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckCLI

/// `docs/command-line.md` and `--help` come from the option declarations: the committed page
/// is the rendering, every declared option is in both, and no spelling is declared twice for
/// one command. Re-record on purpose only: `FLOWCHECK_RECORD_GOLDEN=1 swift test --filter
/// CommandLineDocsTests` (a recording run fails, so it never passes silently).
@Suite(.fast, .timeLimit(.minutes(20)))
struct CommandLineDocsTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/command-line.md")

    @Test("docs/command-line.md is the rendering of the option declarations")
    func committedPageIsGenerated() throws {
        let generated = CommandLineDocs.markdown
        if ProcessInfo.processInfo.environment["FLOWCHECK_RECORD_GOLDEN"] == "1" {
            try generated.write(to: Self.page, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(Self.page.path); run again without FLOWCHECK_RECORD_GOLDEN")
            return
        }
        let onDisk = (try? String(contentsOf: Self.page, encoding: .utf8)) ?? ""
        #expect(onDisk == generated, "docs/command-line.md is stale: run \(CommandLineDocs.regenerate)")
    }

    @Test("every declared option is in --help and the docs, under its own label")
    func everyOptionIsDocumented() {
        let help = CommandLineDocs.help
        let page = CommandLineDocs.markdown
        for declaration in CommandLineOptions.declarations {
            #expect(help.contains("  " + declaration.label), "--help leaves out \(declaration.label)")
            #expect(page.contains("`\(declaration.label)`"), "the docs leave out \(declaration.label)")
            #expect(declaration.name.hasPrefix("--") && !declaration.help.isEmpty && !declaration.doc.isEmpty, "\(declaration.label)")
        }
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= CommandLineDocs.width }, "a --help line is wider than \(CommandLineDocs.width)")
    }

    @Test("no spelling is declared twice for one command, so the parser never has to guess")
    func spellingsAreUnambiguous() {
        for command in CommandLineOptions.Command.allCases {
            var seen: Set<String> = []
            for declaration in CommandLineOptions.declarations where declaration.commands.contains(command) {
                for name in declaration.names {
                    #expect(seen.insert(name).inserted, "\(name) is declared twice for \(command)")
                }
            }
        }
    }

    /// Each option a command lists is read by the parser with that command (a flag alone, a
    /// value option with a value its check takes), so no declared option is unreachable.
    @Test("every declared option parses with the commands it lists")
    func everyDeclarationParses() throws {
        let values = ["COMMAND": "builtin:core", "NAME=COMMAND": "c=builtin:core", "I/N": "1/2", "N": "1", "FORMAT": "json", "ADDR": "127.0.0.1", "P": "moltin", "TIME": "5s"]
        for declaration in CommandLineOptions.declarations where !declaration.general {
            for command in declaration.commands {
                var arguments = command == .run ? [] : [command.rawValue]
                arguments.append(declaration.name)
                if let value = declaration.value { arguments.append(values[value] ?? "x") }
                if declaration.name == "--strict-baseline" { arguments += ["--baseline", "b.txt"] }
                if declaration.name == "--requirements" || declaration.name == "--derived" { arguments.append("--list") }
                if command == .matrix && declaration.name != "--driver" { arguments += ["--driver", "c=builtin:core"] }
                if [.run, .validate, .matrix].contains(command) { arguments.append("specs/") }
                #expect(throws: Never.self, "\(arguments)") { _ = try CommandLineOptions.parse(arguments) }
            }
        }
    }
}
