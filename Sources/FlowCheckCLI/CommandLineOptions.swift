import Foundation
import FlowCheckRunner
import FlowCheckServe
import FlowCheckSpec

/// The parsed command line of `flowcheck`.
public struct CommandLineOptions: Sendable, Equatable {
    /// What the invocation asks for.
    public enum Command: String, Sendable, Equatable {
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
    public var maxConnections = 128
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
    /// `explore`: its own options (parsed in CommandLineOptions+Explore.swift).
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

    public static let usage = """
    USAGE: flowcheck [options] <file-or-dir>...
           flowcheck validate <file-or-dir>...
           flowcheck serve [--port N] [--fixture FILE] [--host ADDR] [--control-port N] [--ready-file F]
                           [--keep-exchanges N] [--max-connections N]
           flowcheck schema
           flowcheck explore [--provider P] [--seed N] [--runs N] [--steps N] [--out DIR]
                         [--budget TIME] [--reach PATH] [--jobs N]
           flowcheck matrix --driver NAME=COMMAND [--driver NAME=COMMAND ...] [--markdown PATH]
                            [--json PATH] [--filter REGEX] <file-or-dir>...

    Runs JSON flow specs against the SDK core and an in-process fake provider server, and writes
    a JUnit XML and a Markdown report. `validate` checks specs without running them. `serve` runs
    the fake providers standalone until Ctrl-C, on a virtual clock that only its control API
    (loopback only; README "The control API") moves. `schema` prints the JSON Schema for
    specs (specs/flowcheck.schema.json is its output). `explore` runs random flows from provider
    models and writes each distinct failure, shrunk, as a spec to DIR (see "EXPLORE OPTIONS").
    `matrix` runs the specs against every driver given and writes a table, flows by drivers, with
    each failure's reason (Markdown, default reports/matrix.md, and JSON, default
    reports/matrix.json); it exits 0 once both are written, whatever the drivers did.

    OPTIONS:
      --driver COMMAND  run every flow through a driver process speaking the driver protocol
                        (Tests/Drivers/PROTOCOL.md; one process per flow, started with
                        /bin/sh -c); default: the in-process SDK core. matrix: NAME=COMMAND,
                        repeatable; COMMAND builtin:core and builtin:example are in-process
      --junit PATH      JUnit XML report (default: reports/junit.xml)
      --markdown PATH   Markdown report (default: reports/flowcheck.md)
      --filter REGEX    run only the flows whose id matches REGEX
      --shard I/N       run the I-th of N deterministic slices of the flows (by id)
      --jobs N          flows run at once (default: one more than the number of cores;
                        one for a Swift driver whose SDK keeps process-wide state)
      --format FORMAT   text (default) or json: machine-readable results on stdout
      --baseline FILE   flows expected to fail, one a line as `FLOW-ID reason words` (# comments,
                        blank lines; an invariant id such as INV-KEEP covers the flows that fail
                        only that invariant): their failures are reported as baselined and do not
                        fail the run; a new failure does; a listed flow that passes is reported
      --strict-baseline with --baseline: a listed flow that passes fails the run (exit 1)
      --write-baseline FILE
                        write this run's failed flows as a baseline (sorted, each with its
                        first failure), for --baseline
      --list            list the flows without running them
      --requirements    with --list: print the requirement coverage matrix (who checks what)
      --derived         with --list: list the variants derived from the flows, with their rules
      --no-derived      run the written flows only, not the adversarial variants derived from
                        them (README, "Derived variants")
      --port N          serve: the first port (providers take N, N+1, ...; default: ephemeral)
      --fixture FILE    serve: fixtures to serve instead of the documented default
      --host ADDR       serve: the IPv4 address the fakes bind (default: 127.0.0.1; 0.0.0.0
                        lets a phone reach them, and warns: any client may use the fakes)
      --control-port N  serve: the control API's port, always on 127.0.0.1 (default: ephemeral)
      --ready-file F    serve: once every port listens, write F (JSON: base URLs and the
                        control URL) atomically; scripts wait for it instead of racing start
      --keep-exchanges N
                        serve: exchanges each provider keeps in memory, the latest (default: 1000)
      --max-connections N
                        serve: connections served at once per port; more get 503 (default: 128)
      --version         print flowcheck's version
      -h, --help        show this help

    EXPLORE OPTIONS:
      --provider P      a provider with a model (repeatable; default: every one)
      --seed N          the seed (default: a random one, printed so it can be replayed)
      --runs N          flows to generate (default: 200)
      --steps N         most steps in one flow (default: 12)
      --out DIR         where shrunk failing specs are written (default: reports/explore)
      --budget TIME     start no flow after TIME (60s, 5m): a run bounded by time as well as
                        by --runs; the summary says how many flows ran
      --reach PATH      also write the reach table (Markdown): every action and perturbation
                        of each model with how many generated flows reached it
      --jobs N          flows run at once (default: the number of cores)

    EXIT CODES:
      0  every flow passed, or failed as --baseline expects (validate: every spec is valid)
      1  at least one flow failed (not in --baseline), or --strict-baseline and a listed flow passed
      2  usage error, an invalid spec (the valid specs still run; reports are still written) or
         an unusable --baseline (a malformed line, an unknown flow id: named as FILE:LINE), or a
         --driver that can run none of the selected flows
      3  the harness itself failed (a flow could not be run, a --driver did not start or greet,
         or a report could not be written)
      130/143/129  interrupted by SIGINT/SIGTERM/SIGHUP (a run writes its reports first; a second signal exits at once)

    ENVIRONMENT:
      GITHUB_ACTIONS=true   print ::error annotations on the failing spec's line
      GITHUB_STEP_SUMMARY   append the Markdown summary to this file
      NO_COLOR              no colour, even on a terminal

    EXAMPLE:
      flowcheck specs/
      flowcheck --filter '^MLT-' --markdown /tmp/moltin.md specs/
      flowcheck --shard 2/3 specs/
      flowcheck --write-baseline known-failures.txt specs/; flowcheck --baseline known-failures.txt specs/
      flowcheck explore --seed 1 --runs 1000
      flowcheck --driver 'python3 Tests/Drivers/python/moltin_driver.py' --filter '^MLT-' specs/
      flowcheck matrix --driver core=builtin:core --driver py='python3 Tests/Drivers/python/moltin_driver.py' specs/
    """

    static let knownFlags = ["--junit", "--markdown", "--filter", "--shard", "--jobs", "--format", "--list", "--requirements", "--derived", "--no-derived", "--port", "--fixture", "--host", "--control-port", "--ready-file", "--keep-exchanges", "--max-connections", "--baseline", "--write-baseline", "--strict-baseline", "--driver", "--json", "--version", "--help"]

    /// Parses arguments (without the program name).
    /// - Throws: ``UsageError`` naming the problem.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        if arguments.first == Command.explore.rawValue { return try parseExplore(Array(arguments.dropFirst())) }
        var options = CommandLineOptions()
        var arguments = arguments
        if let first = arguments.first, let command = Command(rawValue: first), command != .run {
            options.command = command
            arguments.removeFirst()
        }
        // matrix writes its own Markdown, not a run's report.
        if options.command == .matrix { options.markdownPath = "reports/matrix.md" }
        var index = 0
        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw UsageError(description: "\(flag) needs a value")
            }
            return arguments[index]
        }
        var onlyPaths = false
        while index < arguments.count {
            let argument = arguments[index]
            if onlyPaths || !argument.hasPrefix("-") || argument == "-" {
                options.paths.append(argument)
            } else {
                var flag = argument
                var inline: String?
                if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                    flag = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                func take() throws(UsageError) -> String {
                    if let inline { return inline }
                    return try value(for: flag)
                }
                switch flag {
                case "--": onlyPaths = true
                case "-h", "--help": options.help = true
                case "--version": options.version = true
                case "--list": options.list = true
                case "--requirements": options.requirements = true
                case "--derived": options.derived = true
                case "--no-derived": options.noDerived = true
                case "--junit": options.junitPath = try take()
                case "--markdown": options.markdownPath = try take()
                case "--filter":
                    let pattern = try take()
                    do {
                        _ = try LinearRegex(pattern)
                    } catch {
                        throw UsageError(description: "--filter: \(error.title(pattern: pattern))\n  fix: \(error.fix)")
                    }
                    options.filter = pattern
                case "--shard":
                    let text = try take()
                    let parts = text.split(separator: "/").map { Int($0) }
                    guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 1000, i >= 1, i <= n else {
                        throw UsageError(description: "--shard takes I/N with 1 <= I <= N, e.g. 2/3, not \(text)")
                    }
                    options.shard = (i, n)
                case "--jobs":
                    let text = try take()
                    guard let jobs = Int(text), jobs > 0, jobs <= 256 else {
                        throw UsageError(description: "--jobs takes a whole number from 1 to 256, not \(text)")
                    }
                    options.jobs = jobs
                case "--format":
                    let text = try take()
                    guard let format = Format(rawValue: text) else { throw UsageError(description: "--format takes text or json, not \(text)") }
                    options.format = format
                case "--port":
                    let text = try take()
                    // Whether the ports after it are free to take is known once the fixture is
                    // read (`serve` checks it before binding any).
                    guard let port = Int(text), (0...65_535).contains(port) else { throw UsageError(description: "--port takes a port from 0 to 65535, not \(text)") }
                    options.port = port
                case "--fixture":
                    options.fixturePath = try take()
                case "--host":
                    let text = try take()
                    guard FakeProviderHost.isBindableHost(text) else { throw UsageError(description: "--host takes an IPv4 address such as 127.0.0.1 or 0.0.0.0, not \(text)") }
                    options.host = text
                case "--control-port":
                    let text = try take()
                    guard let port = Int(text), (0...65_535).contains(port) else { throw UsageError(description: "--control-port takes a port from 0 to 65535, not \(text)") }
                    options.controlPort = port
                case "--driver":
                    let text = try take()
                    guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError(description: "--driver needs a command, e.g. --driver 'python3 driver.py'") }
                    options.drivers.append(DriverChoice(name: nil, command: text))
                case "--json": options.matrixJSONPath = try take()
                case "--baseline": options.baselinePath = try take()
                case "--write-baseline": options.writeBaselinePath = try take()
                case "--strict-baseline": options.strictBaseline = true
                case "--ready-file":
                    options.readyFile = try take()
                case "--keep-exchanges":
                    let text = try take()
                    guard let count = Int(text), (1...1_000_000).contains(count) else { throw UsageError(description: "--keep-exchanges takes a whole number from 1 to 1000000, not \(text)") }
                    options.keepExchanges = count
                case "--max-connections":
                    let text = try take()
                    guard let count = Int(text), (1...100_000).contains(count) else { throw UsageError(description: "--max-connections takes a whole number from 1 to 100000, not \(text)") }
                    options.maxConnections = count
                default:
                    let hint = knownFlags.first { Self.close(flag, $0) }.map { " (did you mean \($0)?)" } ?? ""
                    throw UsageError(description: "unknown option \(flag)\(hint)")
                }
            }
            index += 1
        }
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
        return options
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
