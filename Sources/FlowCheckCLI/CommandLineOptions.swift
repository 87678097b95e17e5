import Foundation
import FlowCheckRunner
import FlowCheckServe
import FlowCheckSpec

/// The parsed command line of `flowcheck`.
public struct CommandLineOptions: Sendable, Equatable {
    /// What the invocation asks for.
    public enum Command: String, Sendable, Equatable, CaseIterable {
        /// Run specs and write reports (the default).
        case run
        /// Check specs without running them.
        case validate
        /// Run the fake providers standalone.
        case serve
        /// Print the JSON Schema for specs, generated from the providers and check kinds.
        case schema
        /// Generate random flows from provider models, run them, shrink what fails.
        case explore
        /// Run the specs against several drivers and write the conformance matrix.
        case matrix
    }

    /// A driver named on the command line: `--driver COMMAND` (a run), or `--driver
    /// NAME=COMMAND` (`matrix`). `builtin:core` and `builtin:example` are the in-process drivers.
    public struct DriverChoice: Sendable, Equatable {
        public var name: String?
        public var command: String
    }

    /// Output on stdout.
    public enum Format: String, Sendable, Equatable {
        case text, json
    }

    public var command = Command.run
    public var paths: [String] = []
    public var junitPath = "reports/junit.xml"
    public var markdownPath = "reports/flowcheck.md"
    public var filter: String?
    public var list = false
    /// `--list --requirements`: print the requirement coverage matrix instead of the flows.
    public var requirements = false
    /// `--no-derived`: run the written flows only, not the variants derived from them.
    public var noDerived = false
    /// `--list --derived`: list the derived variants (with their rules) instead of the flows.
    public var derived = false
    public var help = false
    /// `--version`: print the tool's version and exit.
    public var version = false
    public var jobs: Int?
    /// `--shard i/n`: this run takes the i-th of n deterministic slices.
    public var shard: (index: Int, count: Int)?
    public var format = Format.text
    /// `serve`: the first port (0: ephemeral ports).
    public var port = 0
    /// `serve`: a fixture file instead of the documented default.
    public var fixturePath: String?
    /// `serve --host`: the IPv4 address the fakes bind (the control API stays on loopback).
    public var host = "127.0.0.1"
    /// `serve --control-port`: the control API's port (0: ephemeral).
    public var controlPort = 0
    /// `serve --ready-file`: written (atomically) with every URL once every port listens.
    public var readyFile: String?
    /// `serve`: exchanges each provider keeps in memory, the latest.
    public var keepExchanges = 1_000
    /// `serve`: connections served at once on each port (more are answered 503).
    /// nil: each port's share of the process's descriptors (``ConnectionCap``).
    public var maxConnections: Int?
    /// `--baseline FILE`: flows expected to fail (see ``Baseline``).
    public var baselinePath: String?
    /// `--write-baseline FILE`: this run's failures, written as a baseline.
    public var writeBaselinePath: String?
    /// `--strict-baseline`: a baselined flow that passes fails the run.
    public var strictBaseline = false
    /// `--driver`: a run's one driver process, or `matrix`'s drivers in order.
    public var drivers: [DriverChoice] = []
    /// `matrix --json PATH`: the matrix as JSON (default: reports/matrix.json).
    public var matrixJSONPath = "reports/matrix.json"
    /// The report options given (`--junit`, `--markdown`, `--json`): a path chosen is written
    /// as given, even the default one; a report left at its default moves aside for a run of
    /// part of the suite (``SubsetReports``). Not part of `==`: it says how, not what.
    public var chosenReports: Set<String> = []
    /// `explore`: its own options (declared in CommandLineOptions+Declarations.swift).
    public var explore = ExploreOptions()

    public init() {}

    public static func == (lhs: CommandLineOptions, rhs: CommandLineOptions) -> Bool {
        lhs.command == rhs.command && lhs.paths == rhs.paths && lhs.junitPath == rhs.junitPath && lhs.markdownPath == rhs.markdownPath
            && lhs.filter == rhs.filter && lhs.list == rhs.list && lhs.requirements == rhs.requirements && lhs.noDerived == rhs.noDerived && lhs.derived == rhs.derived && lhs.help == rhs.help && lhs.version == rhs.version && lhs.jobs == rhs.jobs
            && lhs.shard?.index == rhs.shard?.index && lhs.shard?.count == rhs.shard?.count && lhs.format == rhs.format
            && lhs.port == rhs.port && lhs.fixturePath == rhs.fixturePath && lhs.explore == rhs.explore
            && lhs.host == rhs.host && lhs.controlPort == rhs.controlPort && lhs.readyFile == rhs.readyFile
            && lhs.keepExchanges == rhs.keepExchanges && lhs.maxConnections == rhs.maxConnections
            && lhs.baselinePath == rhs.baselinePath && lhs.writeBaselinePath == rhs.writeBaselinePath && lhs.strictBaseline == rhs.strictBaseline
            && lhs.drivers == rhs.drivers && lhs.matrixJSONPath == rhs.matrixJSONPath
    }

    /// A command line that cannot be understood.
    public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The `--help` text, made from ``declarations`` (``CommandLineDocs/help``).
    public static var usage: String { CommandLineDocs.help }
    /// The help's first block: one line per command with its options.
    public static var synopsis: String { usage.components(separatedBy: "\n\n").first ?? usage }

    /// Parses arguments (without the program name).
    /// - Throws: ``UsageError`` naming the problem.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        if arguments.first == Command.explore.rawValue {
            var options = CommandLineOptions()
            options.command = .explore
            _ = try read(Array(arguments.dropFirst()), grammar: .explore, into: &options)
            return options
        }
        var options = CommandLineOptions()
        var arguments = arguments
        if let first = arguments.first, let command = Command(rawValue: first), command != .run {
            options.command = command
            arguments.removeFirst()
        }
        // matrix writes its own Markdown, not a run's report.
        if options.command == .matrix { options.markdownPath = "reports/matrix.md" }
        let given = try read(arguments, grammar: .main, into: &options)
        if options.help || options.version { return options }
        if options.command != .serve && (options.host != "127.0.0.1" || options.controlPort != 0 || options.readyFile != nil) {
            throw UsageError(description: "--host, --control-port and --ready-file go with serve (try: flowcheck serve --ready-file /tmp/ready.json)")
        }
        if options.command != .run && (options.baselinePath != nil || options.writeBaselinePath != nil || options.strictBaseline) {
            throw UsageError(description: "--baseline, --write-baseline and --strict-baseline go with a run (try: flowcheck --baseline known-failures.txt specs/)")
        }
        if options.strictBaseline && options.baselinePath == nil {
            throw UsageError(description: "--strict-baseline goes with --baseline FILE (try: flowcheck --baseline known-failures.txt --strict-baseline specs/)")
        }
        if options.command == .matrix {
            options.drivers = try options.drivers.map { choice throws(UsageError) -> DriverChoice in
                // NAME=COMMAND: the name is everything before the first "=", and has none of
                // the characters a shell command starts with.
                guard let equals = choice.command.firstIndex(of: "="), case let name = String(choice.command[..<equals]),
                      !name.isEmpty, !name.contains(" "), !name.contains("'"), !name.contains("\"") else {
                    throw UsageError(description: "matrix: --driver takes NAME=COMMAND, e.g. --driver py='python3 driver.py', not \(choice.command)")
                }
                let command = String(choice.command[choice.command.index(after: equals)...])
                guard !command.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError(description: "matrix: --driver \(name)= needs a command after the =") }
                return DriverChoice(name: name, command: command)
            }
            if options.drivers.isEmpty { throw UsageError(description: "matrix needs at least one --driver NAME=COMMAND (try: flowcheck matrix --driver core=builtin:core specs/)") }
            let names = options.drivers.compactMap(\.name)
            if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) { throw UsageError(description: "matrix: the driver name \(twice) is given twice") }
        } else if options.drivers.count > 1 {
            throw UsageError(description: "--driver is given \(options.drivers.count) times; a run takes one (several go with: flowcheck matrix --driver NAME=COMMAND ...)")
        }
        if options.command != .run && options.command != .matrix && !options.drivers.isEmpty {
            throw UsageError(description: "--driver goes with a run or matrix (try: flowcheck --driver 'python3 driver.py' specs/)")
        }
        if options.matrixJSONPath != "reports/matrix.json" && options.command != .matrix {
            throw UsageError(description: "--json PATH goes with matrix (for a run's JSON on stdout: --format json)")
        }
        if options.derived && !(options.list && options.command == .run) {
            throw UsageError(description: "--derived goes with --list (try: flowcheck --list --derived specs/)")
        }
        if options.derived && options.noDerived {
            throw UsageError(description: "--derived lists the derived variants and --no-derived leaves them out: give one")
        }
        if options.requirements && !(options.list && options.command == .run) {
            throw UsageError(description: "--requirements goes with --list (try: flowcheck --list --requirements specs/)")
        }
        switch options.command {
        case .run, .validate, .matrix:
            if options.paths.isEmpty {
                throw UsageError(description: "no spec file or folder given (try: flowcheck \(options.command == .validate ? "validate " : "")specs/)")
            }
        case .serve:
            if options.controlPort != 0 && options.controlPort == options.port { throw UsageError(description: "--control-port \(options.controlPort) is the first provider's --port; give the control API a port of its own") }
            if !options.paths.isEmpty { throw UsageError(description: "serve takes no spec paths (did you mean --fixture \(options.paths[0])?)") }
        case .explore:
            break
        case .schema:
            if !options.paths.isEmpty { throw UsageError(description: "schema takes no spec paths (it prints the schema for every spec)") }
            if options != { var plain = CommandLineOptions(); plain.command = .schema; return plain }() {
                throw UsageError(description: "schema takes no options (it prints the schema to stdout: redirect it to a file)")
            }
        }
        // Past the checks above (which name a fix), any option its declaration does not list
        // for this command: it would be taken and have no effect.
        if let (flag, declaration) = given.first(where: { !$0.1.general && !$0.1.commands.contains(options.command) }) {
            let takers = declaration.commands.map { $0 == .run ? "a run" : $0.rawValue }.joined(separator: " or ")
            throw UsageError(description: "\(flag) goes with \(takers), not \(options.command == .run ? "a run" : options.command.rawValue): it would have no effect here")
        }
        // `--list` prints and exits: it runs nothing and writes no report (`--filter` and
        // `--shard` choose what it lists).
        if options.list, let (flag, _) = given.first(where: { ["--junit", "--markdown", "--baseline", "--write-baseline", "--strict-baseline", "--jobs", "--driver", "--no-derived"].contains($0.1.name) }) {
            throw UsageError(description: "\(flag) goes with a run, not --list: listing runs nothing and writes no report")
        }
        return options
    }

    /// Reads `arguments` with `grammar`, each option through its declaration; what is not an
    /// option is a spec path (the main grammar; after `--`, everything is) or refused (explore).
    /// - Returns: each option given, as spelt, with its declaration.
    private static func read(_ arguments: [String], grammar: OptionDeclaration.Grammar, into options: inout CommandLineOptions) throws(UsageError) -> [(String, OptionDeclaration)] {
        var given: [(String, OptionDeclaration)] = []
        var index = 0
        var onlyPaths = false
        while index < arguments.count {
            let argument = arguments[index]
            if grammar == .main && (onlyPaths || !argument.hasPrefix("-") || argument == "-") {
                options.paths.append(argument)
                index += 1
                continue
            }
            var flag = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if grammar == .main && flag == "--" {
                onlyPaths = true
                index += 1
                continue
            }
            guard let declaration = declaration(named: flag, in: grammar, for: options.command) else {
                throw unknown(flag, grammar: grammar, options: options)
            }
            var value = ""
            if declaration.value != nil {
                if let inline {
                    value = inline
                } else {
                    index += 1
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else { throw UsageError(description: "\(flag) needs a value") }
                    value = arguments[index]
                }
            }
            try declaration.apply(&options, value)
            given.append((flag, declaration))
            index += 1
        }
        return given
    }

    /// The refusal of `flag`, which no declaration of `grammar` names.
    private static func unknown(_ flag: String, grammar: OptionDeclaration.Grammar, options: CommandLineOptions) -> UsageError {
        switch grammar {
        case .main:
            let hint = flags(of: .main).first { Self.close(flag, $0) }.map { " (did you mean \($0)?)" } ?? ""
            return UsageError(description: "unknown option \(flag)\(hint)")
        case .explore:
            if !flag.hasPrefix("-") { return UsageError(description: "explore takes no spec paths (it writes its findings to --out \(options.explore.out))") }
            let hint = Suggestion.closest(to: flag, in: flags(of: .explore)).map { " (did you mean \($0)?)" } ?? ""
            return UsageError(description: "unknown explore option \(flag)\(hint)")
        }
    }

    private static func close(_ a: String, _ b: String) -> Bool {
        let a = Array(a), b = Array(b)
        guard abs(a.count - b.count) <= 2, !a.isEmpty, !b.isEmpty else { return false }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var next = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[b.count] <= 2
    }
}
