import Foundation

/// `--help` and `docs/command-line.md`, both made from ``CommandLineOptions/declarations`` and
/// the commands below: nothing in either names an option the parser does not take, or leaves
/// one out. `CommandLineDocsTests` fails when the committed page is stale.
public enum CommandLineDocs {
    typealias Command = CommandLineOptions.Command

    /// What `--help` and the docs say of a command.
    struct CommandText {
        let command: Command
        /// Its options written as `[options]` in the synopsis, not one by one.
        let manyOptions: Bool
        /// It takes spec files or folders.
        let takesPaths: Bool
        /// One line for the synopsis table of the docs.
        let oneLine: String
        /// The docs' paragraph (Markdown).
        let doc: String
    }

    static let commands: [CommandText] = [
        CommandText(
            command: .run, manyOptions: true, takesPaths: true, oneLine: "run specs, write reports",
            doc: "Runs the flows of every spec under the paths (files, or folders searched for `*.json`) through a driver, each against a fresh fake provider on loopback, and writes a JUnit XML and a Markdown report. The console has one line a flow and a closing line of counts."
        ),
        CommandText(
            command: .validate, manyOptions: false, takesPaths: true, oneLine: "check specs without running them (exit 0 or 2)",
            doc: "Checks the specs without running them: every problem with its file, line, column, JSON path and a fix. Exits 0 when every spec is valid, 2 otherwise."
        ),
        CommandText(
            command: .serve, manyOptions: false, takesPaths: false, oneLine: "the fake providers standalone, until Ctrl-C",
            doc: "Runs the fake providers standalone until Ctrl-C, on a virtual clock that only its control API (loopback only) moves; prints each base URL and logs each exchange with secrets masked."
        ),
        CommandText(
            command: .schema, manyOptions: false, takesPaths: false, oneLine: "print the JSON Schema for specs (generated)",
            doc: "Prints the JSON Schema for specs, generated from the providers and the check kinds (`specs/flowcheck.schema.json` is its output). Takes no options."
        ),
        CommandText(
            command: .explore, manyOptions: false, takesPaths: false, oneLine: "random flows from provider models; failures shrunk to specs",
            doc: "Runs random flows drawn from a model of each provider, and writes every distinct failure, shrunk to the fewest steps that still fail the same way, as a spec to `--out`. Exits 0 when nothing was found, 1 on a finding, 3 on a harness error."
        ),
        CommandText(
            command: .matrix, manyOptions: false, takesPaths: true, oneLine: "every flow through every driver: a table, flows by drivers",
            doc: "Runs the specs against every driver given and writes a table, flows by drivers, with each failure's reason (Markdown and JSON). Exits 0 once both are written, whatever the drivers did."
        ),
    ]

    /// The exit codes, as `--help` and the docs list them.
    static let exitCodes: [(code: String, meaning: String)] = [
        ("0", "every flow passed, or failed as --baseline expects (validate: every spec is valid)"),
        ("1", "at least one flow failed (not in --baseline), or --strict-baseline and a listed flow passed"),
        ("2", "usage error, an invalid spec (the valid specs still run; reports are still written) or an unusable --baseline (a malformed line, an unknown flow id: named as FILE:LINE), or a --driver that can run none of the selected flows"),
        ("3", "the harness itself failed (a flow could not be run, a --driver did not start or greet, or a report could not be written)"),
        ("130/143/129", "interrupted by SIGINT/SIGTERM/SIGHUP (a run writes its reports first; a second signal exits at once)"),
    ]

    /// The environment variables the command reads.
    static let environment: [(name: String, meaning: String)] = [
        ("GITHUB_ACTIONS=true", "print ::error annotations on the failing spec's line"),
        ("GITHUB_STEP_SUMMARY", "append the Markdown summary to this file"),
        ("NO_COLOR", "no colour, even on a terminal"),
    ]

    static let examples = [
        "flowcheck specs/",
        "flowcheck --filter '^MLT-' --markdown /tmp/moltin.md specs/",
        "flowcheck --shard 2/3 specs/",
        "flowcheck --write-baseline known-failures.txt specs/",
        "flowcheck --baseline known-failures.txt specs/",
        "flowcheck explore --seed 1 --runs 1000",
        "flowcheck --driver 'python3 examples/drivers/python/driver.py' --filter '^MLT-AUTH$' specs/",
        "flowcheck matrix --driver core=builtin:core --driver py='python3 driver.py' specs/",
    ]

    static let width = 100

    // MARK: - --help

    /// The text `flowcheck --help` prints.
    public static var help: String {
        var lines: [String] = []
        for (index, text) in commands.enumerated() {
            let prefix = index == 0 ? "USAGE: " : "       "
            let head = "flowcheck " + (text.command == .run ? "" : text.command.rawValue + " ")
            lines += wrap(words: synopsis(text), firstIndent: prefix, indent: String(repeating: " ", count: prefix.count + head.count))
        }
        lines.append("")
        lines += wrap(
            """
            Runs JSON flow specs against the SDK core and an in-process fake provider server, and writes \
            a JUnit XML and a Markdown report. `validate` checks specs without running them. `serve` runs \
            the fake providers standalone until Ctrl-C, on a virtual clock that only its control API \
            (loopback only) moves. `schema` prints the JSON Schema for specs (specs/flowcheck.schema.json \
            is its output). `explore` runs random flows from provider models and writes each distinct \
            failure, shrunk, as a spec to DIR (see "EXPLORE OPTIONS"). `matrix` runs the specs against \
            every driver given and writes a table, flows by drivers, with each failure's reason (Markdown, \
            default reports/matrix.md, and JSON, default reports/matrix.json); it exits 0 once both are \
            written, whatever the drivers did. Every option: docs/command-line.md.
            """, firstIndent: "", indent: "")
        lines.append("")
        lines.append("OPTIONS:")
        for declaration in CommandLineOptions.declarations where declaration.belongs(to: .main) {
            lines += helpEntry(declaration)
        }
        lines.append("")
        lines.append("EXPLORE OPTIONS:")
        for declaration in CommandLineOptions.declarations where declaration.belongs(to: .explore) && !declaration.belongs(to: .main) {
            lines += helpEntry(declaration)
        }
        lines.append("")
        lines.append("EXIT CODES:")
        for (code, meaning) in exitCodes {
            lines += wrap(meaning, firstIndent: "  " + code + "  ", indent: String(repeating: " ", count: 5))
        }
        lines.append("")
        lines.append("ENVIRONMENT:")
        for (name, meaning) in environment { lines.append("  " + name.padding(20) + "  " + meaning) }
        lines.append("")
        lines.append("EXAMPLE:")
        for example in examples { lines.append("  " + example) }
        return lines.joined(separator: "\n")
    }

    /// `flowcheck serve [--port N] ...`, as words (each option's bracketed group one word).
    static func synopsis(_ text: CommandText) -> [String] {
        var words = ["flowcheck"]
        if text.command != .run { words.append(text.command.rawValue) }
        if text.manyOptions {
            words.append("[options]")
        } else {
            for declaration in CommandLineOptions.declarations where declaration.commands.contains(text.command) && !declaration.general {
                let word = declaration.name + (declaration.value.map { " " + $0 } ?? "")
                switch (declaration.required, declaration.repeatable) {
                case (true, true): words += [word, "[" + word + " ...]"]
                case (true, false): words.append(word)
                case (false, true): words.append("[" + word + " ...]")
                case (false, false): words.append("[" + word + "]")
                }
            }
        }
        if text.takesPaths { words.append("<file-or-dir>...") }
        return words
    }

    /// One option's lines: its label in a column of 18, its text beside it (or under it, for
    /// a longer label), wrapped.
    static func helpEntry(_ declaration: OptionDeclaration) -> [String] {
        let label = "  " + declaration.label
        let indent = String(repeating: " ", count: 20)
        if label.count < indent.count {
            return wrap(declaration.help, firstIndent: label.padding(20), indent: indent)
        }
        return [label] + wrap(declaration.help, firstIndent: indent, indent: indent)
    }

    static func wrap(_ text: String, firstIndent: String, indent: String) -> [String] {
        wrap(words: text.split(separator: " ").map(String.init), firstIndent: firstIndent, indent: indent)
    }

    /// `words` in lines of at most ``width`` characters (a longer word stands alone).
    static func wrap(words: [String], firstIndent: String, indent: String) -> [String] {
        var lines: [String] = []
        var line = firstIndent
        var empty = true
        for word in words {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines
    }

    // MARK: - docs/command-line.md

    /// The command that rewrites the committed page.
    public static let regenerate = "FLOWCHECK_RECORD_GOLDEN=1 swift test --filter CommandLineDocsTests"

    /// `docs/command-line.md`.
    public static var markdown: String {
        var out = """
        <!-- Generated from Sources/FlowCheckCLI/CommandLineOptions+Declarations.swift and CommandLineDocs.swift: do not edit. Rewrite: \(regenerate) -->
        # Command line

        `flowcheck` has one command that runs specs and five more: \(commands.dropFirst().map { "`\($0.command.rawValue)`" }.joined(separator: ", ")). \
        This page is generated from the declarations the parser reads, as `flowcheck --help` is, so \
        it lists exactly the options each command takes.

        ```
        \(commands.map { text in synopsis(text).joined(separator: " ") }.joined(separator: "\n"))
        ```

        Options take their value as the next argument or after `=` (`--junit=out.xml`); a value \
        may not start with `--`. In a run, every argument that does not start with `-` is a spec \
        file or folder, and after `--` every argument is.

        """
        for text in commands {
            out += "\n## `\(text.command == .run ? "flowcheck" : "flowcheck " + text.command.rawValue)`: \(text.oneLine)\n\n"
            out += text.doc + "\n"
            let options = CommandLineOptions.declarations.filter { $0.commands.contains(text.command) && !$0.general }
            if options.isEmpty { continue }
            out += "\n| option | what it does |\n| --- | --- |\n"
            for declaration in options {
                var cell = declaration.doc
                if declaration.required { cell += " Required." }
                out += "| `\(declaration.label)` | \(cell.replacingOccurrences(of: "|", with: "\\|")) |\n"
            }
        }
        out += "\n## Any command\n\n| option | what it does |\n| --- | --- |\n"
        for declaration in CommandLineOptions.declarations where declaration.general {
            let exceptions = Command.allCases.filter { !declaration.commands.contains($0) }
            let but = exceptions.isEmpty ? "" : " Not with \(exceptions.map { "`\($0.rawValue)`" }.joined(separator: ", "))."
            out += "| `\(declaration.label)` | \(declaration.doc)\(but) |\n"
        }
        out += "\n## Exit codes\n\n| code | meaning |\n| --- | --- |\n"
        for (code, meaning) in exitCodes { out += "| \(code) | \(meaning) |\n" }
        out += "\nWhen several apply, the highest wins: a harness failure (3) over an invalid spec (2) over a failed flow (1); an interruption over all of them.\n"
        out += "\n## Environment\n\n| variable | effect |\n| --- | --- |\n"
        for (name, meaning) in environment { out += "| `\(name)` | \(meaning) |\n" }
        out += "\n## Examples\n\n```sh\n" + examples.joined(separator: "\n") + "\n```\n"
        return out
    }
}

extension String {
    /// This text, padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
